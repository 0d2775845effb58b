"""``nv show interface <swp> qos buffer ingress-priority-group``: a port's priority groups and the buffer they hold,
in NVUE's table (no ``-o json`` of this view is published: the emulator prints the table whatever ``-o`` says, as
``show_optics`` does for its views).

From the state dir's ``counters.json`` (the hook file of ``show_counters``), in the table's own terms::

    {"buffer": {"swp1": {"3": {"current-usage": n, "max-usage": n, "hr-pl-usage": n, "hr-pl-max-usage": n}}}}

keyed by port then priority group, bytes, each plain or in the moving form (``moving``). The lab has no data plane,
so a PG the file does not name holds nothing. Rows: PG 0 (the default, lossy), every PG the file names (lossless:
the lab only fills lossless PGs) and PG 9, the control PG NVIDIA's example lists. The layout is that example's
(NVUE command reference, "QoS": the two-line header NVUE cuts with ``…``, one dash run per column), the values ours.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.cumulus.moving import read_counters
from xoff.lab.emulators.cumulus.show import ShowError, interfaces
from xoff.lab.emulators.cumulus.show_counters import FILE, PORT, size
from xoff.lab.emulators.cumulus.tree import Tree

Json = dict[str, Any]
TABLE = "buffer"
FIELDS = ("current-usage", "max-usage", "hr-pl-usage", "hr-pl-max-usage")
PATH = ("qos", "buffer", "ingress-priority-group")
CONTROL_PG = 9
# header (top, bottom), width and whether NVUE cut the name (its dash run then ends in ``…``), per column, as NVIDIA's
# example prints them for a narrow terminal
COLUMNS = (
    ("priori…", "", 7, True),
    ("Pool ID", "", 7, False),
    ("Mode", "", 7, False),
    ("Reserv…", "Size", 7, True),
    ("Current", "Usage", 8, True),
    ("Max", "Usage", 8, True),
    ("Shared", "Max", 8, True),
    ("Lossy/…", "", 8, True),
    ("XON Th", "", 8, False),
    ("XOFF Th", "", 8, False),
    ("HR", "", 8, False),
    ("HR/PL", "Usage", 8, True),
    ("HR/PL Max", "", 9, False),
)


def check(data: Json, path: Path) -> None:
    """The ``buffer`` table's shape, or ValueError (a wrong hook file is a broken test)."""
    for port, groups in data.get(TABLE, {}).items():
        for pg, row in groups.items():
            good = PORT.match(port) and pg.isdigit() and int(pg) < CONTROL_PG and not set(row) - set(FIELDS)
            if not good or not all(type(v) is int and v >= 0 for v in row.values()):
                raise ValueError(f"{path}: {TABLE}.{port}.{pg}: bad {row} (allowed: {FIELDS})")


def _row(pg: int, row: Json | None) -> list[str]:
    """One PG's cells: the control PG and an unfilled PG 0 as NVIDIA's example shows them, a filled PG lossless."""
    reserved = size(10_220)
    if pg == CONTROL_PG:
        return [
            str(pg),
            "1",
            "DYNAMIC",
            reserved,
            "0 Bytes",
            "0 Bytes",
            "ALPHA_8",
            "Lossy",
            *["0 Bytes"] * 2,
            reserved,
            *["0 Bytes"] * 2,
        ]
    used = [size(int((row or {}).get(k, 0))) for k in FIELDS]
    if row is None:
        return [
            str(pg),
            "2",
            "DYNAMIC",
            "0 Bytes",
            *used[:2],
            "ALPHA_8",
            "Lossy",
            "0 Bytes",
            "0 Bytes",
            size(19_436),
            *used[2:],
        ]
    xon = size(18_432)
    return [str(pg), "4", "DYNAMIC", reserved, *used[:2], "ALPHA_2", "Lossless", xon, xon, size(44_011), *used[2:]]


def table(groups: Json) -> str:
    rows = [_row(0, groups.get("0")), *(_row(int(pg), r) for pg, r in sorted(groups.items()) if pg != "0")]
    rows.append(_row(CONTROL_PG, None))
    widths = [max(w, *(len(r[i]) for r in rows)) for i, (_, _, w, _) in enumerate(COLUMNS)]
    rule = ["-" * (w - 1) + "…" if cut else "-" * w for (_, _, _, cut), w in zip(COLUMNS, widths, strict=True)]
    lines = [[c[0] for c in COLUMNS], [c[1] for c in COLUMNS], rule, *rows]
    return "".join("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + "\n" for line in lines)


def lookup(ctx: EmulatorContext, applied: Tree, path: tuple[str, ...]) -> str | None:
    """The table for a port's ingress-priority-group buffer path, None for any other path; ShowError as NVUE."""
    if len(path) != 2 + len(PATH) or path[0] != "interface" or path[2:] != PATH:
        return None
    port = path[1]
    if port not in interfaces(ctx, applied):
        raise ShowError(f"Error: The requested item does not exist: interface {port}")
    data = read_counters(ctx.state_dir / FILE)
    check(data, ctx.state_dir / FILE)
    return table(data.get(TABLE, {}).get(port, {})) if PORT.match(port) else ""
