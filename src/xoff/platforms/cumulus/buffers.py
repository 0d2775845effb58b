"""Cumulus' per-priority-group buffer occupancy for ``xoff watch``'s slow drain and headroom signals: ``nv show
interface <swp> qos buffer ingress-priority-group`` (Cumulus Linux 5.4+), NVUE's table, into ``BufferWatermarks``.

The format (NVIDIA's NVUE command reference, "QoS" show commands; tests/fixtures/real/cumulus/README.md): a header of
two lines whose column names NVUE cuts with ``…`` where the terminal is narrow, a rule of dashes (a run per column,
``…`` ending a cut one), then one row per priority group: ``priority-group``, ``Pool ID``, ``Mode``, ``Reserved
Size``, ``Current Usage``, ``Max Usage``, ``Shared Max``, ``Lossy/Lossless``, ``XON Th``, ``XOFF Th``, ``HR``,
``HR/PL Usage``, ``HR/PL Max Usage``. Sizes carry NVUE's unit (``0 Bytes``, ``9.98 KB``, ``1.43 MB``; binary
multiples, as the emulator prints them).

Read: ``Max Usage``, the PG's peak occupancy of its (shared, ``DYNAMIC``) pool, as the shared watermark, and ``HR/PL
Max Usage``, the peak of its headroom, as the headroom watermark. The columns' meanings are INFERRED from their names
(the reference prints the table without describing it); the JSON of this view is not published, so the table is read.
Priority groups outside 0-7 (NVUE lists its control PG 9) are counted in ``unmodelled``; a column the header does not
name is a ``BufferParseError``. An empty output (a port without buffers) reads nothing.
"""

from __future__ import annotations

import re

from xoff.collect.json_shape import ShapeError as BufferParseError
from xoff.contracts.collect import Command
from xoff.contracts.observed import BufferWatermarks

CLASSES = range(8)
SHARED_MAX = "Max Usage"
HEADROOM_MAX = "HR/PL Max Usage"
_UNITS = {"Bytes": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?) (Bytes|KB|MB|GB)$")
_RULE = re.compile(r"^[-…]+(?:\s+[-…]+)+\s*$")

__all__ = ["BufferParseError", "buffer_command", "parse_ingress_pg"]


def buffer_command(port: str) -> Command:
    return Command(f"nv show interface {port} qos buffer ingress-priority-group")


def _size(text: str, where: str) -> int:
    m = _SIZE.match(text)
    if m is None:
        raise BufferParseError(f"{where}: {text!r} is not a size (N Bytes|KB|MB|GB)")
    return round(float(m[1]) * _UNITS[m[2]])


def _columns(rule: str) -> list[tuple[int, int]]:
    """Each column's [start, end) from the rule's runs; a column runs up to where the next one starts."""
    starts = [m.start() for m in re.finditer(r"\S+", rule)]
    return [(s, starts[i + 1] if i + 1 < len(starts) else 10**6) for i, s in enumerate(starts)]


def _find(names: list[str], wanted: str, where: str) -> int:
    """The column whose (joined, maybe cut) header is ``wanted`` or a cut prefix of it ending ``…``."""
    for i, name in enumerate(names):
        if name == wanted or (name.endswith("…") and wanted.startswith(name[:-1])) or wanted == f"{name} Usage":
            return i
    raise BufferParseError(f"{where}: no {wanted!r} column in {names}")


def parse_ingress_pg(text: str, unmodelled: dict[str, int] | None = None) -> BufferWatermarks:
    """One port's priority group (0-7) -> shared and headroom watermarks (bytes)."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return BufferWatermarks()
    at = next((i for i, line in enumerate(lines) if _RULE.match(line)), None)
    if at is None or at == 0:
        raise BufferParseError("no header and dash rule")
    spans = _columns(lines[at])
    names = [" ".join(h[s:e].strip() for h in lines[:at] if h[s:e].strip()) for s, e in spans]
    shared, headroom = _find(names, SHARED_MAX, "header"), _find(names, HEADROOM_MAX, "header")
    out = BufferWatermarks()
    for n, row in enumerate(lines[at + 1 :], start=1):
        cells = [row[s:e].strip() for s, e in spans]
        if not cells[0].isdigit():
            raise BufferParseError(f"row {n}: {cells[0]!r} is not a priority group")
        pg = int(cells[0])
        if pg not in CLASSES:
            if unmodelled is not None:
                key = f"qos buffer ingress-priority-group: priority group {pg}"
                unmodelled[key] = unmodelled.get(key, 0) + 1
            continue
        out.pg_shared[pg] = _size(cells[shared], f"row {n} {SHARED_MAX}")
        out.pg_headroom[pg] = _size(cells[headroom], f"row {n} {HEADROOM_MAX}")
    return out
