"""Cumulus Linux's gNMI server (``nv set system gnmi-server``): the OpenConfig QoS leaves it streams.

Source: NVIDIA's Cumulus Linux 5.16 user guide, "gNMI Streaming" (CumulusNetworks/docs
``content/cumulus-linux-516/Monitoring-and-Troubleshooting/gNMI Streaming.md``): the server listens on port
9339 with a self-signed certificate; it supports Capabilities and Subscribe STREAM (sample_interval,
updates_only, heartbeat_interval) and ON_CHANGE, and not Get or Set; encodings JSON, JSON_IETF and PROTO
(its capabilities example, gNMI 0.10.0); wildcard keys
(``[interface-id=*]``, ``queue[*]``); a notification's prefix is the list entry and its updates the leaves
under it (its subscription response example). The QoS metrics table gives the leaves served here:

- ``/qos/interfaces/interface[interface-id]/switch-priority[priority]/state/counters/in-pause-pkts`` and
  ``out-pause-pkts``; ``.../switch-priority[priority]/state/in-pause-duration`` and ``out-pause-duration``
  (microseconds);
- ``/qos/interfaces/interface[interface-id]/output/queues/queue[name]/state/transmit-pkts``,
  ``transmit-octets``, ``no-buffer-uc-dropped-pkts``, ``wred-dropped-pkts``, ``ecn-marked-pkts``;
- ``/qos/interfaces/interface[interface-id]/input/priority-group[pg-id]/state/shared-buffer/data/max-occupancy``
  (bytes, the PG's peak since the last watermark reset).

The values come from the NVUE emulator's ``counters.json`` (its ``pfc``, ``queues`` and ``buffer`` tables: see
``xoff.lab.emulators.cumulus.show_counters`` and ``show_buffers``; a PG's peak is the table's ``max-usage``), for
every swp port of the applied configuration; the PFC watchdog has no documented gNMI leaf and is not served.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xoff.lab.emulators.sonic.moving import read_counters as load

CLASSES = 8
_PORT = re.compile(r"^swp\d+(s\d+)?$")
PRIORITY_LEAVES = (  # counters.json pfc field -> (path under switch-priority[priority], leaf)
    ("rx-pause-frames", ("state", "counters", "in-pause-pkts")),
    ("tx-pause-frames", ("state", "counters", "out-pause-pkts")),
    ("rx-pause-duration", ("state", "in-pause-duration")),
    ("tx-pause-duration", ("state", "out-pause-duration")),
)
QUEUE_LEAVES = (  # counters.json queues field -> leaf under queue[name]/state
    ("tx-frames", "transmit-pkts"),
    ("tx-bytes", "transmit-octets"),
    ("tx-uc-buffer-discards", "no-buffer-uc-dropped-pkts"),
    ("wred-discards", "wred-dropped-pkts"),
    ("ecn-marked-frames", "ecn-marked-pkts"),
)
Elem = tuple[str, tuple[tuple[str, str], ...]]  # name, sorted keys


@dataclass(frozen=True)
class Leaf:
    elems: tuple[Elem, ...]
    value: int
    split: int  # elems[:split] is the list entry (the notification's prefix), the rest the leaf under it


def _ports(state_dir: Path, counters: dict[str, Any]) -> list[str]:
    names = {p for table in ("pfc", "queues", "buffer") for p in counters.get(table, {})}
    path = state_dir / "nvue.json"
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        tree = data["revisions"][str(data["applied"])]["tree"]
        names |= set(tree.get("interface", {}) or {})
    return sorted((p for p in names if _PORT.match(p)), key=lambda p: [int(n) for n in re.findall(r"\d+", p)])


def leaves(state_dir: Path, now: float) -> Iterator[Leaf]:
    counters = load(state_dir / "counters.json", now)
    for port in _ports(state_dir, counters):
        iface: tuple[Elem, ...] = (("qos", ()), ("interfaces", ()), ("interface", (("interface-id", port),)))
        for prio in range(CLASSES):
            row = counters.get("pfc", {}).get(port, {}).get(str(prio), {})
            base = (*iface, ("switch-priority", (("priority", str(prio)),)))
            for field, tail in PRIORITY_LEAVES:
                yield Leaf((*base, *((t, ()) for t in tail)), int(row.get(field, 0)), len(base))
        for tc in range(CLASSES):
            row = counters.get("queues", {}).get(port, {}).get(str(tc), {})
            base = (*iface, ("output", ()), ("queues", ()), ("queue", (("name", str(tc)),)))
            for field, leaf in QUEUE_LEAVES:
                yield Leaf((*base, ("state", ()), (leaf, ())), int(row.get(field, 0)), len(base))
        for pg in range(CLASSES):
            row = counters.get("buffer", {}).get(port, {}).get(str(pg), {})
            base = (*iface, ("input", ()), ("priority-group", (("pg-id", str(pg)),)))
            peak = ("state", "shared-buffer", "data", "max-occupancy")
            yield Leaf((*base, *((t, ()) for t in peak)), int(row.get("max-usage", 0)), len(base))


def matches(pattern: tuple[Elem, ...], leaf: tuple[Elem, ...]) -> bool:
    """A subscription path covers a leaf: every element named alike, every key it gives equal or ``*``
    (a key it leaves out is a wildcard too), and the leaf at or under it."""
    if len(pattern) > len(leaf):
        return False
    for (name, keys), (leaf_name, leaf_keys) in zip(pattern, leaf, strict=False):
        if name != leaf_name:
            return False
        have = dict(leaf_keys)
        if any(v != "*" and have.get(k) != v for k, v in keys if k != "*"):
            return False
    return True
