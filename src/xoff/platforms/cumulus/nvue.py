"""NVUE's configuration tree and its two printed forms: ``nv set`` lines and startup.yaml.

NVUE keeps a switch's whole configuration as one tree (the ``- set:`` document of
``/etc/nvue.d/startup.yaml``). ``nv set A B C V`` sets the leaf ``A/B/C`` to ``V``; a command with no
value (``nv set interface swp1 ip address 198.19.0.0/31``) adds a member to a collection, which the
YAML shows as ``198.19.0.0/31: {}``. So one tree gives both files, and each file parses back to it
(CumulusNetworks/docs content/cumulus-linux-514/Layer-3/Border-Gateway-Protocol-BGP/Configuration-Example.md
shows the same configuration both ways).

Builders fill a ``Tree`` with :func:`put`; :func:`merge` joins the builders' trees (a leaf set twice to
different values is an error, never a silent overwrite); :func:`commands` and :func:`yaml_lines` print it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Union

Scalar = str | int
Tree = dict[str, Union["Tree", Scalar]]

_TOKEN = re.compile(r"\S+\Z")
# a YAML 1.1 plain scalar that stays a string; anything else is quoted (keys too: '4', '198.19.0.0/31')
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*\Z")
_YAML11_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
# Rendering a fabric prints the same port names, keywords and values on every switch: tokens already
# checked, and strings already printed as YAML, are remembered (up to _MEMO_SIZE each) instead of matched again.
_MEMO_SIZE = 1 << 16
_GOOD_TOKENS: set[str] = set()
_YAML_TEXT: dict[str, str] = {}


class NvueConflictError(ValueError):
    """Two builders (or one builder twice) set the same NVUE leaf to different values."""


def _check_token(token: str) -> str:
    if token not in _GOOD_TOKENS:
        if not _TOKEN.match(token):
            raise ValueError(f"NVUE path token {token!r} is empty or has whitespace")
        if len(_GOOD_TOKENS) < _MEMO_SIZE:
            _GOOD_TOKENS.add(token)
    return token


def put(tree: Tree, path: Sequence[str], value: Scalar | None = None) -> None:
    """Set ``path`` to ``value``, or add ``path[-1]`` as a collection member when ``value`` is None."""
    if not path:
        raise ValueError("empty NVUE path")
    if isinstance(value, bool):
        raise TypeError(f"{' '.join(path)}: NVUE values are strings or integers, not booleans")
    node = tree
    for i, key in enumerate(path[:-1]):
        child = node.get(key)
        if child is None:
            child = node[key if key in _GOOD_TOKENS else _check_token(key)] = {}
        elif not isinstance(child, dict):
            raise NvueConflictError(f"{' '.join(path[: i + 1])} is a value ({child!r}), not a container")
        node = child
    last = path[-1]
    if last not in _GOOD_TOKENS:
        _check_token(last)
    if isinstance(value, str) and value not in _GOOD_TOKENS:
        _check_token(value)
    new: Tree | Scalar = {} if value is None else value
    old = node.get(last)
    if old is None:
        node[last] = new
    elif value is None and isinstance(old, dict):
        return  # the member is already there (possibly with children)
    elif old != new:
        raise NvueConflictError(f"{' '.join(path)}: set to {old!r} and to {new!r}")


def _copy(tree: Tree) -> Tree:
    return {k: _copy(v) if isinstance(v, dict) else v for k, v in tree.items()}


def merge(into: Tree, other: Tree, _prefix: tuple[str, ...] = (), *, take: bool = False) -> Tree:
    """Merge a copy of ``other`` into ``into`` (``other``'s new keys appended in order); returns ``into``.

    ``take``: move ``other``'s subtrees in instead of copying them, for a caller done with ``other`` (later
    merges then change them in place).
    """
    for key, value in other.items():
        old = into.get(key)
        if old is None:
            into[key] = _copy(value) if isinstance(value, dict) and not take else value
        elif isinstance(old, dict) and isinstance(value, dict):
            merge(old, value, (*_prefix, key), take=take)
        elif old != value:
            raise NvueConflictError(f"{' '.join((*_prefix, key))}: set to {old!r} and to {value!r}")
    return into


def leaves(tree: Tree, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every leaf as command tokens: the path, plus the value for a valued leaf (depth first, in order)."""
    for key, value in tree.items():
        path = (*prefix, key)
        if isinstance(value, dict):
            if value:
                yield from leaves(value, path)
            else:
                yield path
        else:
            yield (*path, str(value))


def commands(tree: Tree) -> list[str]:
    """``nv set`` lines for the tree, one per leaf, in tree order (``leaves``, each joined with spaces)."""
    out: list[str] = []
    _command_lines(tree, "nv set ", out)
    return out


def _command_lines(tree: Tree, prefix: str, out: list[str]) -> None:
    for key, value in tree.items():
        if isinstance(value, dict):
            if value:
                _command_lines(value, f"{prefix}{key} ", out)
            else:
                out.append(prefix + key)
        else:
            out.append(f"{prefix}{key} {value}")


def yaml_scalar(value: Scalar) -> str:
    """A key or value as YAML that every loader (1.1 or 1.2) reads back as the same string or integer."""
    if isinstance(value, bool):
        raise TypeError("NVUE values are strings or integers, not booleans")
    if isinstance(value, int):
        return str(value)
    if _PLAIN.match(value) and value.lower() not in _YAML11_WORDS:
        return value
    return "'" + value.replace("'", "''") + "'"


def yaml_lines(tree: Tree, depth: int = 0) -> list[str]:
    """The tree as block-style YAML lines, two spaces per level."""
    out: list[str] = []
    _yaml_into(tree, "  " * depth, out)
    return out


def _yaml_text(value: Scalar) -> str:
    """``yaml_scalar``, remembered for strings."""
    if type(value) is not str:
        return yaml_scalar(value)
    text = _YAML_TEXT.get(value)
    if text is None:
        text = yaml_scalar(value)
        if len(_YAML_TEXT) < _MEMO_SIZE:
            _YAML_TEXT[value] = text
    return text


def _yaml_into(tree: Tree, pad: str, out: list[str]) -> None:
    known = _YAML_TEXT  # a remembered text is never empty ('' prints as "''")
    for key, value in tree.items():
        k = known.get(key) or _yaml_text(key)
        if isinstance(value, dict):
            if value:
                out.append(f"{pad}{k}:")
                _yaml_into(value, pad + "  ", out)
            else:
                out.append(f"{pad}{k}: {{}}")
        else:
            out.append(f"{pad}{k}: {known.get(value) or _yaml_text(value)}")  # type: ignore[arg-type]
