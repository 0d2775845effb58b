"""The real-format corpus: ``tests/fixtures/real/<platform>/<command>/<case>.txt`` and ``<case>.expected.json``.

``<command>`` is the command's capture name (``Command(text).slug``), with per-device arguments written as capital
placeholders (``mlnx_qos -i NETDEV`` -> ``mlnx_qos_-i_NETDEV``). Each platform's README.md names the source of every
sample's format. A parser test globs the samples of a command and compares what its parser made of each with the
expected file beside it (``expected_for``); ``XOFF_UPDATE_CORPUS=1`` writes the expected files instead, for a person
to review: an expected file is a claim about a real device's output, read and checked by hand.

``shape`` reduces a parsed value to its structure (keys, value types), so an emulator's output can be held to the
corpus' shape without its values.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT

REAL = ROOT / "tests" / "fixtures" / "real"
_UPDATE = os.environ.get("XOFF_UPDATE_CORPUS") == "1"


def samples(platform: str, command: str) -> list[Path]:
    """Every sample of one command (``<case>.txt``), sorted; an empty list is a failure of the caller's test."""
    return sorted((REAL / platform / command).glob("*.txt"))


def sample_ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


def jsonable(value: Any) -> Any:
    """Models, dataclasses and int-keyed maps as plain JSON values (keys as strings, as JSON has them)."""
    if hasattr(value, "model_dump"):
        return jsonable(value.model_dump(mode="json"))
    if hasattr(value, "__dataclass_fields__"):
        return jsonable({k: getattr(value, k) for k in value.__dataclass_fields__})
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=json.dumps) if isinstance(value, (set, frozenset)) else items
    return value


def expected_for(sample: Path, value: Any) -> Any:
    """The expected value beside ``sample`` (``<case>.expected.json``) and ``value`` as JSON, for ``==``."""
    got = jsonable(value)
    path = sample.with_name(sample.stem + ".expected.json")
    if _UPDATE:
        path.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
    if not path.exists():
        raise AssertionError(f"{path} is missing (write it by hand, or XOFF_UPDATE_CORPUS=1 and review it)")
    return json.loads(path.read_text()), got


_DATA_KEY = re.compile(
    r"^(\d+|Ethernet\S*|Eth\S*|swp\S*|eth\S*|ens\S*|enp\S*|mlx5_\S*|ib\S*|Port-Channel\S*|Loopback\S*|"
    r"PortChannel\S*|Management\S*|lo|\d+\.\d+\.\d+\.\d+(/\d+)?|[0-9a-f:]{6,}|UC\d+|MC\d+|ALL\d+|PG\d+|GPU\d+|NIC\d+)$"
)


def shape(value: Any) -> Any:
    """The structure of a JSON value: dict keys (data-like keys such as ports, queues and addresses folded into
    ``"*"``), list element shapes merged, scalars as their type name (``None`` stays ``"null"``)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = "*" if _DATA_KEY.match(str(key)) else str(key)
            out[name] = _merge(out[name], shape(item)) if name in out else shape(item)
        return out
    if isinstance(value, list):
        merged: Any = None
        for item in value:
            merged = shape(item) if merged is None else _merge(merged, shape(item))
        return [merged] if merged is not None else []
    if value is None:
        return "null"
    return type(value).__name__


NULLABLE = "?null"  # in a merged mapping's shape: some sample had null there instead (``bgp: None`` and ``bgp: {...}``)


def _merge(a: Any, b: Any) -> Any:
    if (a == "null" and isinstance(b, dict)) or (b == "null" and isinstance(a, dict)):
        return {**(a if isinstance(a, dict) else b), NULLABLE: "null"}
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: _merge(a[k], b[k]) if k in a and k in b else a.get(k, b.get(k)) for k in sorted(set(a) | set(b))}
    if isinstance(a, list) and isinstance(b, list):
        if not a or not b:
            return a or b
        return [_merge(a[0], b[0])]
    if a == b:
        return a
    kinds = set(a.split("|") if isinstance(a, str) else [json.dumps(a)]) | set(
        b.split("|") if isinstance(b, str) else [json.dumps(b)]
    )
    return "|".join(sorted(kinds))


def covers(corpus: Any, emulated: Any, path: str = "") -> list[str]:
    """Where ``emulated``'s shape has what no corpus sample has (a key, a type): each as ``path: what``."""
    problems: list[str] = []
    if emulated == "null" and isinstance(corpus, dict) and NULLABLE in corpus:
        return problems
    if isinstance(emulated, dict):
        if not isinstance(corpus, dict):
            return [f"{path or '.'}: a mapping where the corpus has {corpus}"]
        for key, item in emulated.items():
            if key not in corpus:
                problems.append(f"{path}.{key}: no corpus sample has this key")
            else:
                problems += covers(corpus[key], item, f"{path}.{key}")
        return problems
    if isinstance(emulated, list):
        if not isinstance(corpus, list):
            return [f"{path or '.'}: a list where the corpus has {corpus}"]
        if emulated and corpus:
            problems += covers(corpus[0], emulated[0], f"{path}[]")
        return problems
    allowed = set(str(corpus).split("|"))
    extra = set(str(emulated).split("|")) - allowed
    return [f"{path or '.'}: {'|'.join(sorted(extra))} where the corpus has {corpus}"] if extra else []


def corpus_shape(platform: str, command: str) -> Any:
    """The merged shape of every expected file of one command."""
    merged: Any = None
    for sample in samples(platform, command):
        path = sample.with_name(sample.stem + ".expected.json")
        if path.exists():
            got = shape(json.loads(path.read_text()))
            merged = got if merged is None else _merge(merged, got)
    if merged is None:
        raise AssertionError(f"no expected files under {REAL / platform / command}")
    return merged


def read_sample(path: Path) -> str:
    return path.read_text()


def with_unmodelled(parse: Callable[[str, dict[str, int]], Any], key: str = "ports") -> Callable[[str], dict[str, Any]]:
    """A parser that tallies what it does not model (``parse(text, unmodelled)``) as one of ``text`` alone, giving
    ``{key: what it read, "unmodelled": the tally}``: both halves are compared with the expected file."""

    def run(text: str) -> dict[str, Any]:
        unmodelled: dict[str, int] = {}
        return {key: parse(text, unmodelled), "unmodelled": unmodelled}

    return run


__all__ = [
    "REAL",
    "corpus_shape",
    "covers",
    "expected_for",
    "jsonable",
    "read_sample",
    "sample_ids",
    "samples",
    "shape",
    "with_unmodelled",
]
