"""Strict reading of a device's JSON output: a value of the wrong shape is an error naming its path,
never a default. Shared by the collectors that read counters as JSON (EOS ``| json``, NVUE ``-o json``)."""

from __future__ import annotations

from typing import Any


class ShapeError(ValueError):
    """JSON of a shape the device does not print; the message names the path."""


def obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ShapeError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def key(data: Any, name: str, where: str) -> Any:
    found = obj(data, where)
    if name not in found:
        raise ShapeError(f"{where}: no {name!r}")
    return found[name]


def count(data: Any, name: str, where: str) -> int:
    value = key(data, name, where)
    if type(value) is not int or value < 0:
        raise ShapeError(f"{where}.{name}: expected a count, got {value!r}")
    return value
