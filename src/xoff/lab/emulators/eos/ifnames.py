"""EOS interface names: what the CLI accepts, the canonical name it prints, the prompt abbreviation.

EOS accepts any unique prefix of an interface type, in any case, joined to or separated from the
number (``et1/1``, ``Ethernet 1/1``, ``int lo0``), prints the canonical name (``Ethernet1/1``) in
the running-config, and abbreviates it in prompts and tables (``Et1/1``, ``Lo0``, ``Ma1``).
"""

from __future__ import annotations

import re
from functools import cmp_to_key

# canonical type name -> short form (prompt, show interfaces status)
TYPES: dict[str, str] = {"Ethernet": "Et", "Loopback": "Lo", "Management": "Ma"}
_NUMBER = re.compile(r"^\d+(?:/\d+){0,2}$")
_JOINED = re.compile(r"^([A-Za-z-]+)(\d+(?:/\d+){0,2})$")
_SPLIT_KEY = re.compile(r"(\d+)")


def _type_for(word: str) -> str | None:
    """``et`` -> ``Ethernet``; None when the word starts no type (or more than one)."""
    word = word.lower()
    hits = [t for t in TYPES if t.lower().startswith(word)]
    return hits[0] if len(hits) == 1 and word else None


def canonical(token: str, following: str | None = None) -> tuple[str, int] | None:
    """The canonical name and how many tokens it used (1, or 2 for ``Ethernet 1/1``); None if not a name."""
    m = _JOINED.match(token)
    if m:
        kind = _type_for(m[1])
        return None if kind is None or not _valid_number(kind, m[2]) else (f"{kind}{m[2]}", 1)
    kind = _type_for(token)
    if kind is not None and following is not None and _NUMBER.match(following) and _valid_number(kind, following):
        return f"{kind}{following}", 2
    return None


def _valid_number(kind: str, number: str) -> bool:
    parts = [int(p) for p in number.split("/")]
    if kind == "Loopback":
        return len(parts) == 1 and 0 <= parts[0] <= 1000
    if kind == "Management":
        return len(parts) <= 2 and all(p >= 0 for p in parts)
    return parts[0] >= 1 and all(p >= 1 for p in parts)


def kind(name: str) -> str:
    """``Ethernet1/1`` -> ``Ethernet``."""
    m = _JOINED.match(name)
    if m is None:
        raise ValueError(f"{name!r} is not an EOS interface name")
    return m[1]


def short(name: str) -> str:
    """``Ethernet1/1`` -> ``Et1/1`` (prompts, ``show interfaces status``)."""
    k = kind(name)
    return TYPES[k] + name[len(k) :]


def _key(name: str) -> tuple[int, list[int]]:
    k = kind(name)
    return list(TYPES).index(k), [int(p) for p in _SPLIT_KEY.findall(name[len(k) :])]


def sort_names(names: list[str]) -> list[str]:
    """EOS order: by type (Ethernet, Loopback, Management), then numerically (Ethernet2/1 before Ethernet10/1)."""

    def cmp(a: str, b: str) -> int:
        ka, kb = _key(a), _key(b)
        return (ka > kb) - (ka < kb)

    return sorted(names, key=cmp_to_key(cmp))
