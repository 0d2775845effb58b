"""``nv show interface <swp> counters qos [egress-queue-stats|pfc-stats|ingress-buffer-stats]`` and ``nv
show interface <swp> qos pfc-watchdog [status [<tc>]]``: a port's QoS counters and PFC watchdog, as
JSON (``-o json``), YAML or NVUE's tables.

The lab has no data plane: no frame is ever queued, paused or dropped in it, so every counter is zero
unless the device's ``<state_dir>/counters.json`` says otherwise. That file is a test hook (the lab's
fault seeds write it, as the ASIC would raise the counters), in NVUE's own terms::

    {"pfc":      {"swp1": {"4": {"rx-pause-frames": n, "rx-pause-duration": n,
                                 "tx-pause-frames": n, "tx-pause-duration": n}}},
     "queues":   {"swp1": {"4": {"tx-frames": n, "tx-bytes": n, "tx-uc-buffer-discards": n,
                                 "wred-discards": n, "ecn-marked-frames": n}}},
     "watchdog": {"swp1": {"4": {"deadlock-count": n, "status": "OK" | "DEADLOCK"}}}}

(and ``fec`` / ``optics`` per port, which ``show_optics`` prints and checks, and ``buffer`` per port and priority
group, which ``show_buffers`` prints and checks)

keyed by port, then switch priority (``pfc``) or traffic class = egress queue (``queues``, ``watchdog``).
Missing values are zero (``OK``); anything else in the file is refused. A value may also be a running counter
``{"total": N, "per_second": R, "since": T}`` (``moving``: resolved when shown).

Formats (sources: tests/fixtures/real/cumulus/README.md). CONFIRMED: the tables of ``counters qos`` and
its three groups and of ``qos pfc-watchdog`` (NVIDIA's user guide and NVUE command reference print them);
the ``-o json`` keys of ``counters qos``: ``egress-queue-stats.<tc>`` with ``tx-frames``, ``tx-bytes``,
``tx-uc-buffer-discards`` (a frame count: the table prints it with a byte unit), ``ecn-marked-frames``,
``wred-discards`` and ``pfc-stats.<sp>`` with ``rx-pause-frames``, ``tx-pause-frames`` (public scripts
reading a Spectrum switch's JSON). INFERRED, not confirmed by a public ``-o json`` capture: the pause
durations' and ``ingress-buffer-stats``' JSON keys (the tables' column names, as NVUE's tables name JSON
keys) and the watchdog's JSON, ``{"state": "enabled"|"disabled", "status": {"<tc>": {"status": ...,
"deadlock-count": n}}}`` (the object model's ``status <qos-tc-id>`` path and the table's columns); a port
whose watchdog is off shows its state only. ``port-stats`` has no confirmed JSON shape, so ``-o json``
leaves it out (its table is printed). A port that does not exist is NVUE's "requested item does not
exist"; ports other than swp have no QoS counters (an empty object).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.cumulus.moving import read_counters
from xoff.lab.emulators.cumulus.show import ShowError, interfaces
from xoff.lab.emulators.cumulus.tree import Tree, get_path, yaml_block

Json = dict[str, Any]
FILE = "counters.json"
CLASSES = 8
FIELDS = {
    "pfc": ("rx-pause-frames", "rx-pause-duration", "tx-pause-frames", "tx-pause-duration"),
    "queues": ("tx-frames", "tx-bytes", "tx-uc-buffer-discards", "wred-discards", "ecn-marked-frames"),
    "watchdog": ("deadlock-count", "status"),
}
PHY_TABLES = ("fec", "optics", "buffer")  # per port, not per class: the PHY and module (show_optics), the PGs' buffer
# use (show_buffers)
INGRESS = ("rx-frames", "rx-buffer-discards", "rx-shared-buffer-discards")
STATES = ("OK", "DEADLOCK")
PORT = re.compile(r"^swp\d+(s\d+)?$")
GROUPS = {"egress-queue-stats", "pfc-stats", "ingress-buffer-stats"}
BYTE_COLUMNS = {"tx-bytes", "tx-uc-buffer-discards", "rx-buffer-discards", "rx-shared-buffer-discards"}


class Counters:
    """The counters one device holds (``counters.json``, checked): ``get(table, port, index)``."""

    def __init__(self, data: Json) -> None:
        self.data = data

    @classmethod
    def load(cls, state_dir: Path) -> Counters:
        path = state_dir / FILE
        if not path.exists():
            return cls({})
        data = read_counters(path)  # running counters and gauges resolved at this instant
        _check(data, path)
        return cls(data)

    def get(self, table: str, port: str, index: int) -> dict[str, Any]:
        row = self.data.get(table, {}).get(port, {}).get(str(index), {})
        return {k: row.get(k, "OK" if k == "status" else 0) for k in FIELDS[table]}


def _check(data: Any, path: Path) -> None:
    """The hook file's shape, or ValueError: a wrong file is a broken test, never silently zero."""
    if not isinstance(data, dict) or set(data) - set(FIELDS) - set(PHY_TABLES):
        raise ValueError(f"{path}: top-level keys must be among {sorted(FIELDS) + list(PHY_TABLES)}")
    for table, ports in data.items():
        if table in PHY_TABLES:
            continue  # per port, not per class: show_optics checks them
        for port, rows in ports.items():
            if not PORT.match(port):
                raise ValueError(f"{path}: {table}.{port}: not a switch port name (swpN)")
            for index, row in rows.items():
                if not index.isdigit() or not 0 <= int(index) < CLASSES:
                    raise ValueError(f"{path}: {table}.{port}: {index!r} is not 0-{CLASSES - 1}")
                bad = [k for k, v in row.items() if k not in FIELDS[table] or not _valid(k, v)]
                if bad:
                    raise ValueError(f"{path}: {table}.{port}.{index}: bad {bad} (allowed: {FIELDS[table]})")


def _valid(key: str, value: Any) -> bool:
    return value in STATES if key == "status" else type(value) is int and value >= 0


# --- what is shown -----------------------------------------------------------------------------------


def lookup(ctx: EmulatorContext, applied: Tree, path: tuple[str, ...]) -> tuple[str, Any] | None:
    """``(kind, value)`` for a counters or watchdog path, None for any other path; ShowError as NVUE."""
    if len(path) < 3 or path[0] != "interface":
        return None
    port, rest = path[1], path[2:]
    if rest[0] == "counters" and rest[1:2] == ("qos",) and len(rest) <= 3:
        group = rest[2] if len(rest) == 3 else None
        if group is not None and group not in GROUPS:
            raise ShowError(f"Error: Invalid Command: show {' '.join(path)}")
    elif rest[:2] == ("qos", "pfc-watchdog") and (len(rest) == 2 or (rest[2] == "status" and len(rest) <= 4)):
        group = None
    else:
        return None
    shown = interfaces(ctx, applied)
    if port not in shown:
        raise ShowError(f"Error: The requested item does not exist: interface {port}")
    counters = Counters.load(ctx.state_dir)
    if rest[0] == "counters":
        qos = qos_counters(counters, port) if PORT.match(port) else {}
        return ("qos", qos) if group is None else (group, qos.get(group, {}))
    wd = watchdog(counters, port, _watchdog_on(applied, port))
    if len(rest) == 2:
        return "pfc-watchdog", wd
    status = wd.get("status", {})
    if len(rest) == 3:
        return "wd-status", status
    if rest[3] not in status:
        raise ShowError(f"Error: The requested item does not exist: status {rest[3]}")
    return "wd-class", status[rest[3]]


def _watchdog_on(applied: Tree, port: str) -> bool:
    wd = get_path(applied, ("interface", port, "qos", "pfc-watchdog"))
    return isinstance(wd, dict) and wd.get("state", "enable") == "enable"


def qos_counters(counters: Counters, port: str) -> Json:
    """``counters qos -o json``: the three groups with a confirmed or table-named shape."""
    pfc = {str(p): counters.get("pfc", port, p) for p in range(CLASSES)}
    queues = {str(q): counters.get("queues", port, q) for q in range(CLASSES)}
    ingress = {str(pg): dict.fromkeys(INGRESS, 0) for pg in range(CLASSES)}
    return {"egress-queue-stats": queues, "ingress-buffer-stats": ingress, "pfc-stats": pfc}


def watchdog(counters: Counters, port: str, on: bool) -> Json:
    if not on:
        return {"state": "disabled"}
    return {"state": "enabled", "status": {str(q): counters.get("watchdog", port, q) for q in range(CLASSES)}}


# --- how it is printed ---------------------------------------------------------------------------------

TITLES = {  # group -> (section title, first column)
    "ingress-buffer-stats": ("Ingress Buffer Statistics", "priority-group"),
    "egress-queue-stats": ("Egress Queue Statistics", "traffic-class"),
    "pfc-stats": ("PFC Statistics", "switch-priority"),
}
COLUMNS = {
    "ingress-buffer-stats": INGRESS,
    "egress-queue-stats": ("tx-frames", "tx-bytes", "tx-uc-buffer-discards", "wred-discards"),
    "pfc-stats": FIELDS["pfc"],
}
WD_COLUMNS = ("status", "deadlock-count")
PORT_STATS = [["ecn-marked-packets", "n/a", "0"], ["mc-buffer-discards", "n/a", "0"], ["pause-frames", "0", "0"]]


def size(value: int) -> str:
    """NVUE's byte unit: ``288 Bytes``, ``9.98 KB``, ``25.14 MB`` (binary multiples)."""
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if value >= scale:
            return f"{value / scale:.2f} {unit}"
    return f"{value} Bytes"


def _table(header: list[str], rows: list[list[str]], indent: str = "") -> str:
    widths = [max(len(c) for c in col) for col in zip(header, *rows, strict=True)]
    lines = [header, ["-" * w for w in widths], *rows]
    return "".join(indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + "\n" for r in lines)


def _group_table(group: str, rows: Json, indent: str = "") -> str:
    cols = COLUMNS[group]
    body = [[k, *(size(r[c]) if c in BYTE_COLUMNS else str(r[c]) for c in cols)] for k, r in rows.items()]
    return _table([TITLES[group][1], *cols], body, indent)


def _section(title: str, table: str) -> str:
    return f"{title}\n{'=' * (len(title) + 3)}\n{table}"


def _wd_status(status: Json, indent: str = "") -> str:
    body = [[tc, *(str(row[c]) for c in WD_COLUMNS)] for tc, row in status.items()]
    return _table(["traffic-class", *WD_COLUMNS], body, indent)


def text(kind: str, value: Any) -> str:
    """NVUE's default (table) view of what ``lookup`` found."""
    if kind == "qos":
        if not value:
            return ""
        parts = [_section(TITLES[g][0], _group_table(g, value[g], "    ")) for g in TITLES]
        parts.append(_section("Qos Port Statistics", _table(["Counter", "Receive", "Transmit"], PORT_STATS, "    ")))
        return "\n".join(parts)
    if kind in COLUMNS:
        return _group_table(kind, value) if value else ""
    if kind == "pfc-watchdog":
        head = _table(["", "operational", "applied"], [["state", value["state"], value["state"]]])
        return head + (
            "\n" + _section("PFC WD Status", _wd_status(value["status"], "    ")) if "status" in value else ""
        )
    if kind == "wd-status":
        return _wd_status(value) if value else ""
    return _table(["", "operational"], [[k, str(v)] for k, v in value.items()])


def render(kind: str, value: Any, output: str) -> str:
    if output == "json":
        return json.dumps(value, indent=2) + "\n"
    if output == "yaml":
        return "".join(f"{line}\n" for line in yaml_block(value, 0))
    return text(kind, value)
