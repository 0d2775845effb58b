"""SONiC counters and buffer watermarks, as sonic-utilities prints them (``tabulate``, "simple" format), into
``PortCounters`` and the device's buffer-pool watermarks.

- ``show pfc counters`` (scripts/pfcstat): PFC frames received and sent per port and priority;
- ``show queue counters`` (scripts/queuestat): packets and bytes sent and dropped per egress queue. ``UC<n>`` is
  unicast queue n (UC0-9 on current images), ``MC<n>`` multicast and ``ALL<n>`` the ASIC's combined queues: only
  unicast queues carry lossless traffic, so only they are read;
- ``show pfcwd stats`` (pfcwd/main.py): watchdog storms per ``<port>:<queue>`` (queues whose counters are all zero
  are left out: a port it does not list had none);
- ``show priority-group watermark headroom|shared`` and ``show buffer_pool watermark``, ``show headroom-pool
  watermark`` (scripts/watermarkstat): peak bytes used per priority group and per pool.

The first three go through this package's TextFSM templates (``textfsm/``); the watermark tables have as many PG
columns as the ASIC has priority groups, and are read by their header here. Every cell ``N/A`` (COUNTERS_DB has no
value: a backplane port, a queue the ASIC does not have) is "not observed": a queue counter None, a PFC priority or
PG left out, never 0. Multi-ASIC output (``For namespace asic0:``, ``(Namespace asic1)`` titles) is read as one
switch: SONiC's port names are unique across ASICs. Each command is parsed on its own: one unreadable output is one
parse error for that command, the others are still read. Formats and sources: tests/fixtures/real/sonic/README.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from xoff.collect.textfsm import parse_text
from xoff.contracts.collect import Command, read
from xoff.contracts.observed import (
    BufferWatermarks,
    CollectError,
    PfcCounters,
    PortCounters,
    QueueCounters,
    WatchdogCounters,
)

TEXTFSM = Path(__file__).parent / "textfsm"
PFC_COUNTERS = Command("show pfc counters")
QUEUE_COUNTERS = Command("show queue counters")
PFCWD_STATS = Command("show pfcwd stats")  # the watchdog's storms per <port>:<queue> (non-zero rows only)
PG_HEADROOM = Command("show priority-group watermark headroom")
PG_SHARED = Command("show priority-group watermark shared")
POOL_WATERMARK = Command("show buffer_pool watermark")
HEADROOM_POOL_WATERMARK = Command("show headroom-pool watermark")  # shared headroom pool (202012 and later)
COMMANDS = (
    PFC_COUNTERS,
    QUEUE_COUNTERS,
    PFCWD_STATS,
    PG_HEADROOM,
    PG_SHARED,
    POOL_WATERMARK,
    HEADROOM_POOL_WATERMARK,
)
HEADROOM_POOL_SUFFIX = ":headroom"  # buffer_pool_watermarks key of a pool's shared headroom: <pool>:headroom
NA = "N/A"


class CounterParseError(ValueError):
    """Counter or watermark output in a format this module does not know (one line)."""


def count(value: str | list[str]) -> int | None:
    """A counter cell: ``1,200`` -> 1200; ``N/A`` -> None (not observed)."""
    text = value if isinstance(value, str) else "".join(value)
    return None if text.strip() == NA else int(text.replace(",", ""))


def parse_pfc(text: str) -> dict[str, PfcCounters]:
    """Port -> PFC frames received and sent per priority (a priority printed N/A is left out)."""
    rows: dict[str, dict[str, dict[int, int]]] = {}
    for row in parse_text(TEXTFSM, "sonic", PFC_COUNTERS.text, text):
        side = rows.setdefault(str(row["port"]), {}).setdefault(
            "rx_pause" if row["direction"] == "Rx" else "tx_pause", {}
        )
        for p in range(8):
            value = count(row[f"pfc{p}"])
            if value is not None:
                side[p] = value
    return {port: PfcCounters(**sides) for port, sides in rows.items()}


def parse_queues(text: str, unmodelled: dict[str, int] | None = None) -> dict[str, dict[int, QueueCounters]]:
    """Port -> unicast queue -> packets and bytes sent and dropped (None where printed N/A). Columns after
    ``Drop/bytes`` (a newer release's) are counted in ``unmodelled`` as ``show queue counters: <column>``."""
    out: dict[str, dict[int, QueueCounters]] = {}
    for row in parse_text(TEXTFSM, "sonic", QUEUE_COUNTERS.text, text):
        if unmodelled is not None:
            for column in str(row["extra"]).split():
                key = f"{QUEUE_COUNTERS.text}: {column}"
                unmodelled[key] = unmodelled.get(key, 0) + 1
        queue = str(row["queue"])
        if not queue.startswith("UC"):  # multicast and ALL queues carry no lossless traffic
            continue
        out.setdefault(str(row["port"]), {})[int(queue[2:])] = QueueCounters(
            packets=count(row["packets"]),
            bytes=count(row["bytes"]),
            dropped_packets=count(row["drop_packets"]),
            dropped_bytes=count(row["drop_bytes"]),
        )
    return out


def parse_watchdog(text: str) -> dict[str, dict[int, WatchdogCounters]]:
    """Port -> queue -> storms the PFC watchdog detected and restored (None where a count is N/A)."""
    out: dict[str, dict[int, WatchdogCounters]] = {}
    for row in parse_text(TEXTFSM, "sonic", PFCWD_STATS.text, text):
        out.setdefault(str(row["port"]), {})[int(str(row["queue"]))] = WatchdogCounters(
            storms_detected=count(row["detected"]), storms_restored=count(row["restored"])
        )
    return out


# --- watermarkstat tables ------------------------------------------------------------------------------------------

_TITLE = re.compile(r"^(?P<title>[A-Za-z][A-Za-z ]*[A-Za-z]):(?: \(Namespace (?P<ns>\S+)\))?\s*$")
_RULE = re.compile(r"^\s*-+(\s+-+)+\s*$")
_PG = re.compile(r"^PG(\d+)$")
PG_TITLES = {PG_HEADROOM.text: "Ingress headroom per PG", PG_SHARED.text: "Ingress shared pool occupancy per PG"}
POOL_TITLES = {
    POOL_WATERMARK.text: "Shared pool maximum occupancy",
    HEADROOM_POOL_WATERMARK.text: "Headroom pool maximum occupancy",
}


def _tables(text: str, command: str, title: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each table of a watermarkstat output: its header cells and its rows' cells, under ``title:`` lines
    (``title: (Namespace asic0)`` per ASIC)."""
    tables: list[tuple[list[str], list[list[str]]]] = []
    state = "title"
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = _TITLE.match(line)
        if match is not None and match["title"] == title:
            state = "header"
        elif state == "header" and not _RULE.match(line):
            tables.append((line.split(), []))
            state = "rule"
        elif state == "rule" and _RULE.match(line):
            state = "rows"
        elif state == "rows" and not _RULE.match(line) and len(line.split()) == len(tables[-1][0]):
            tables[-1][1].append(line.split())
        else:
            raise CounterParseError(f"{command!r}: unexpected line {number}: {line.strip()[:80]!r}")
    if state in {"header", "rule"}:
        raise CounterParseError(f"{command!r}: a table without its header or dash rule")
    return tables


def parse_pg_watermarks(text: str, command: str) -> dict[str, dict[int, int]]:
    """Port -> priority group -> peak bytes (``show priority-group watermark headroom|shared``); a PG printed N/A
    is left out."""
    out: dict[str, dict[int, int]] = {}
    for header, rows in _tables(text, command, PG_TITLES[command]):
        pgs = [_PG.match(cell) for cell in header[1:]]
        if header[0] != "Port" or not all(pgs):
            raise CounterParseError(f"{command!r}: header {' '.join(header)!r} is not Port PG0 PG1 ...")
        for port, *cells in rows:
            values = out.setdefault(port, {})
            for pg, cell in zip(pgs, cells, strict=True):
                value = _cell(cell, command)
                if pg is not None and value is not None:
                    values[int(pg[1])] = value
    return out


def parse_pool_watermarks(text: str, command: str) -> dict[str, int]:
    """Pool -> peak bytes (``show buffer_pool watermark``, ``show headroom-pool watermark``); N/A left out. A
    multi-ASIC switch prints each ASIC's pools under the same names: the highest (the fullest ASIC's) is kept."""
    out: dict[str, int] = {}
    for header, rows in _tables(text, command, POOL_TITLES[command]):
        if header != ["Pool", "Bytes"]:
            raise CounterParseError(f"{command!r}: header {' '.join(header)!r} is not Pool Bytes")
        for pool, cell in rows:
            value = _cell(cell, command)
            if value is not None:
                out[pool] = max(value, out.get(pool, value))
    return out


def _cell(cell: str, command: str) -> int | None:
    if cell == NA:
        return None
    if not cell.replace(",", "").isdigit():
        raise CounterParseError(f"{command!r}: {cell!r} is not a byte count or N/A")
    return int(cell.replace(",", ""))


# --- the collector's side ------------------------------------------------------------------------------------------


def _pool_watermarks(outputs: Mapping[str, str], device: str, errors: list[CollectError]) -> dict[str, int] | None:
    pools = read(outputs, POOL_WATERMARK, lambda t: parse_pool_watermarks(t, POOL_WATERMARK.text), device, errors)
    headroom = read(
        outputs,
        HEADROOM_POOL_WATERMARK,
        lambda t: parse_pool_watermarks(t, HEADROOM_POOL_WATERMARK.text),
        device,
        errors,
    )
    if pools is None and headroom is None:
        return None
    out = dict(pools or {})
    out.update({f"{pool}{HEADROOM_POOL_SUFFIX}": value for pool, value in (headroom or {}).items()})
    return out


def read_counters(
    outputs: Mapping[str, str], device: str, errors: list[CollectError], unmodelled: dict[str, int]
) -> tuple[dict[str, PortCounters], dict[str, int] | None]:
    """Port -> counters and watermarks, and pool -> watermark (None: no pool watermark was read), from whichever
    of ``COMMANDS`` ran; a command whose output cannot be read adds one parse error to ``errors``."""
    pfc = read(outputs, PFC_COUNTERS, parse_pfc, device, errors) or {}
    queues = read(outputs, QUEUE_COUNTERS, lambda t: parse_queues(t, unmodelled), device, errors) or {}
    watchdog = read(outputs, PFCWD_STATS, parse_watchdog, device, errors) or {}
    headroom = read(outputs, PG_HEADROOM, lambda t: parse_pg_watermarks(t, PG_HEADROOM.text), device, errors)
    shared = read(outputs, PG_SHARED, lambda t: parse_pg_watermarks(t, PG_SHARED.text), device, errors)
    marked = set(headroom or {}) | set(shared or {})
    counters = {
        port: PortCounters(
            pfc=pfc.get(port, PfcCounters()),
            queues=queues.get(port, {}),
            watchdog=watchdog.get(port, {}),
            watermarks=BufferWatermarks(
                pg_headroom=(headroom or {}).get(port, {}), pg_shared=(shared or {}).get(port, {})
            )
            if port in marked
            else None,
        )
        for port in sorted(set(pfc) | set(queues) | set(watchdog) | marked)
    }
    return counters, _pool_watermarks(outputs, device, errors)
