"""``json.dumps(value, indent=N)``, byte for byte, at a fraction of its cost on configuration-shaped data.

With an indent, the standard library's encoder runs in pure Python, one generator step per token; it was
three quarters of the host and SONiC renderers' time. This printer builds each container's text with
one join, and reuses the text of a top-level member it has already printed (``render.memo``): rendering a
fabric prints the same QoS, buffer and NIC blocks for every switch and host. The key is the member's
``memo.key_of`` serialization, which is the value, types included, so equal keys mean equal text (the key also
holds the indent, the only other input); it is four times faster to make than the value's compact JSON.
Anything outside plain JSON types, or non-finite floats, goes to ``json.dumps`` itself, so the output never
departs from it.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring_ascii
from typing import Any

from xoff.render.memo import Memo, key_of

# The root's members are looked up (the tables of a CONFIG_DB, the sections of a host's state): the root is
# one device's whole document, never repeated, and a member that is not repeated holds little that is.
CACHED_DEPTH = 1
CACHE_CHARS = 32 * 2**20  # texts held, at most; the least recently used go first


class _NotPlainError(Exception):
    """A value this printer does not print exactly as json.dumps: the caller hands the whole value to it."""


def _key(k: object) -> str:
    """A dict key as json.dumps writes it (str, int, float, bool and None keys become strings)."""
    if type(k) is str:
        return encode_basestring_ascii(k)
    if k is True or k is False or k is None:
        return '"' + json.dumps(k) + '"'
    if type(k) is int or type(k) is float:
        return encode_basestring_ascii(_scalar(k))
    raise _NotPlainError


def _scalar(v: Any) -> str:
    t = type(v)
    if t is str:
        return encode_basestring_ascii(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if t is int:
        return int.__repr__(v)
    if t is float and math.isfinite(v):
        return float.__repr__(v)
    raise _NotPlainError


class JsonPrinter:
    """Prints values as ``json.dumps(value, indent=indent)``; remembers recent containers' texts."""

    def __init__(self, chars: int = CACHE_CHARS) -> None:
        self.texts: Memo[str] = Memo(chars, len)

    def dumps(self, value: Any, indent: int) -> str:
        try:
            return self._value(value, " " * indent, 0)
        except (_NotPlainError, ValueError, TypeError, RecursionError):
            return json.dumps(value, indent=indent)  # the reference: prints, or raises, as it always did

    def _value(self, v: Any, unit: str, depth: int) -> str:
        t = type(v)
        if t is not dict and t is not list and t is not tuple:
            return _scalar(v)
        if not v:
            return "{}" if t is dict else "[]"
        if depth != CACHED_DEPTH:
            return self._container(v, unit, depth)
        return self.texts.get((len(unit), key_of(v)), lambda: self._container(v, unit, depth))

    def _container(self, v: Any, unit: str, depth: int) -> str:
        inner = "\n" + unit * (depth + 1)
        value = self._value
        if type(v) is dict:
            parts = [
                _key(k) + ": " + (encode_basestring_ascii(x) if type(x) is str else value(x, unit, depth + 1))
                for k, x in v.items()
            ]
            opening, closing = "{", "}"
        else:
            parts = [encode_basestring_ascii(x) if type(x) is str else value(x, unit, depth + 1) for x in v]
            opening, closing = "[", "]"
        return opening + inner + ("," + inner).join(parts) + "\n" + unit * depth + closing


PRINTER = JsonPrinter()  # one per process: the renderers run device by device, so the reuse spans the fabric


def dumps(value: Any, indent: int) -> str:
    """``json.dumps(value, indent=indent)``."""
    return PRINTER.dumps(value, indent)
