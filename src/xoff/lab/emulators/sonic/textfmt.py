"""The two text helpers SONiC's CLI scripts use: ``tabulate`` (0.9.0, the version sonic-utilities
pins) in its "simple" format, and ``natsorted``.

Only what the emulated commands need: column type detection (int, float, text), alignment,
minimum column width = header + 2, headerless tables framed by dashes. Checked against tabulate
0.9.0 on the emulator's tables; the fixtures in tests/fixtures/sonic-cli/ hold the results.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

_INT = re.compile(r"^\s*[+-]?\d+\s*$")
_DIGITS = re.compile(r"(\d+)")


def _kind(value: Any) -> int:
    """0 int, 1 float, 2 text (None is ignored by the caller)."""
    if isinstance(value, bool):
        return 2
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 1
    text = str(value)
    if _INT.match(text):
        return 0
    try:
        float(text)
    except ValueError:
        return 2
    return 1


def _format(value: Any, kind: int) -> str:
    if value is None:
        return ""
    if kind == 1:
        return format(float(value), "g")
    return str(value)


def _pad(text: str, width: int, align: str) -> str:
    if align == "left":
        return text.ljust(width)
    if align == "center":
        return text.center(width)
    return text.rjust(width)


def tabulate(
    rows: Iterable[Sequence[Any]],
    headers: Sequence[str] = (),
    *,
    stralign: str = "left",
    numalign: str = "decimal",
) -> str:
    table = [list(r) for r in rows]
    ncols = max([len(headers), *(len(r) for r in table)]) if (headers or table) else 0
    columns = [[r[i] if i < len(r) else None for r in table] for i in range(ncols)]
    kinds = [max((_kind(v) for v in col if v is not None), default=2) for col in columns]
    aligns = [stralign if k == 2 else numalign for k in kinds] if table else [stralign] * ncols
    cells = [[_format(v, k) for v in col] for col, k in zip(columns, kinds, strict=True)]
    minimum = [len(h) + 2 for h in headers] if headers else [0] * ncols
    widths = [max([minimum[i], *(len(c) for c in cells[i])]) for i in range(ncols)]
    lines: list[str] = []
    dashes = "  ".join("-" * w for w in widths)
    if headers:
        lines.append(
            "  ".join(_pad(h, w, "left" if a == "left" else a) for h, w, a in zip(headers, widths, aligns, strict=True))
        )
        lines.append(dashes)
    else:
        lines.append(dashes)
    for r in range(len(table)):
        lines.append("  ".join(_pad(cells[i][r], widths[i], aligns[i]) for i in range(ncols)))
    if not headers:
        lines.append(dashes)
    return "\n".join(line.rstrip() for line in lines)


def natural_key(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [natural_key(v) for v in value]
    parts = _DIGITS.split(str(value))
    return [int(p) if i % 2 else p for i, p in enumerate(parts)]


def natsorted(values: Iterable[Any]) -> list[Any]:
    return sorted(values, key=natural_key)
