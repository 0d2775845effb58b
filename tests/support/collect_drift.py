"""Field-by-field comparison of a desired and an observed Device on the paths a collector read."""

from __future__ import annotations

from typing import Any

from xoff.desired.models import Device


def _values(data: Any, parts: list[str], prefix: str) -> dict[str, Any]:
    if not parts:
        return {prefix: data}
    head, rest = parts[0], parts[1:]
    if data is None:
        return {prefix: None}
    if head == "*":
        return {k: v for key in sorted(data, key=str) for k, v in _values(data[key], rest, f"{prefix}.{key}").items()}
    return _values(data.get(head) if isinstance(data, dict) else None, rest, f"{prefix}.{head}" if prefix else head)


def differing_fields(desired: Device, observed: Device, paths: list[str]) -> list[str]:
    """``path: desired != observed`` for every read path (``*`` over map keys) whose values differ."""
    want, got = desired.model_dump(mode="json"), observed.model_dump(mode="json")
    out = []
    for path in paths:
        a, b = _values(want, path.split("."), ""), _values(got, path.split("."), "")
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key) and not (path == "interfaces" and _same_keys(a.get(key), b.get(key))):
                out.append(f"{key}: desired {a.get(key)!r} observed {b.get(key)!r}")
    return out


def _same_keys(a: Any, b: Any) -> bool:
    """``interfaces`` as a path means the set of interfaces, not their values."""
    return isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b)
