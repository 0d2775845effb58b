"""``natsorted``, the order SONiC's CLI scripts list ports and pools in (the ``natsort`` package's natural order:
``Ethernet8`` before ``Ethernet12``). Tables are printed with the ``tabulate`` package itself, the version
sonic-utilities pins (0.9.0)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_DIGITS = re.compile(r"(\d+)")


def natural_key(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [natural_key(v) for v in value]
    parts = _DIGITS.split(str(value))
    return [int(p) if i % 2 else p for i, p in enumerate(parts)]


def natsorted(values: Iterable[Any]) -> list[Any]:
    return sorted(values, key=natural_key)
