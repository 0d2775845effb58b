"""EOS counters as eAPI JSON (``| json``): PFC frames per port and priority, egress-queue packets and
drops per traffic class, and PFC watchdog storms per transmit queue, into ``PortCounters``.

The keys are EOS's (see tests/fixtures/real/eos/README.md for the sources):

- ``show interfaces priority-flow-control counters detail``:
  ``interfaces.<port>.priorities.<p>.{rxFrames,txFrames}``;
- ``show interfaces counters queue detail``: ``egressQueueCounters.interfaces.<port>.ucastQueues
  .trafficClasses.TC<n>.dropPrecedences.DP<k>.{enqueuedPackets,enqueuedBytes,droppedPackets,droppedBytes}``
  (summed over drop precedences; ``droppedPackets`` required, the others read where present; multicast
  queues carry no lossless traffic and are not read);
- ``show priority-flow-control counters watchdog``: ``interfaces.<port>.txQueues.<q>.{stuckCount,
  recoveryCount}``; EOS lists a port only once its watchdog has fired, so a port it leaves out had none;
- ``show qos interfaces ecn counters queue``: ``intfQueueCounters.<port>.queueCounters.<q>``, packets
  ECN-marked as a string, ``"-"`` for a queue without ECN marking (ANTA ``VerifyInterfacesECNCounters``).

A counter EOS did not print (``enqueuedPackets`` where a release prints only drops, ``"-"``) is None.

EOS fixes traffic class N -> tx-queue N, so ``TC3`` is queue 3. Parsing is strict: a missing key, a
value of the wrong type or a traffic class EOS cannot have is a ``CounterParseError``; counter fields
beyond those read are allowed (EOS adds some per release and platform).
"""

from __future__ import annotations

import json
import re
from typing import Any

from xoff.collect.json_shape import ShapeError as CounterParseError
from xoff.collect.json_shape import count as _count
from xoff.collect.json_shape import key as _key
from xoff.collect.json_shape import obj as _obj
from xoff.contracts.collect import Command
from xoff.contracts.observed import PfcCounters, PortCounters, QueueCounters, WatchdogCounters

PFC = Command("show interfaces priority-flow-control counters detail | json")
QUEUES = Command("show interfaces counters queue detail | json")
WATCHDOG = Command("show priority-flow-control counters watchdog | json")
ECN = Command("show qos interfaces ecn counters queue | json")
CLASSES = range(8)
_TC = re.compile(r"^TC(\d)$")
_DP = re.compile(r"^DP\d$")
# the drops are what the checks need (ANTA reads ``droppedPackets``); these are read where EOS prints them
OPTIONAL_QUEUE_FIELDS = ("enqueuedPackets", "enqueuedBytes", "droppedBytes")


def _index(key: str, where: str) -> int:
    if not key.isdigit() or int(key) not in CLASSES:
        raise CounterParseError(f"{where}: {key!r} is not a priority or queue 0-7")
    return int(key)


def load_output(text: str, top: str) -> dict[str, Any]:
    """The object under ``top`` of an eAPI ``| json`` output; not JSON, or no such object, is a ``ShapeError``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CounterParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    return _obj(_key(data, top, "output"), top)


def parse_pfc(text: str) -> dict[str, PfcCounters]:
    """Port -> PFC frames received and sent per priority."""
    out = {}
    for port, data in load_output(text, "interfaces").items():
        where = f"interfaces.{port}.priorities"
        prios = _obj(_key(data, "priorities", f"interfaces.{port}"), where)
        rx, tx = {}, {}
        for key, row in prios.items():
            p = _index(key, where)
            rx[p] = _count(row, "rxFrames", f"{where}.{key}")
            tx[p] = _count(row, "txFrames", f"{where}.{key}")
        out[port] = PfcCounters(rx_pause=dict(sorted(rx.items())), tx_pause=dict(sorted(tx.items())))
    return out


def parse_queues(text: str) -> dict[str, dict[int, QueueCounters]]:
    """Port -> unicast queue (= traffic class) -> packets and bytes sent and dropped."""
    top = _key(load_output(text, "egressQueueCounters"), "interfaces", "egressQueueCounters")
    out = {}
    for port, data in _obj(top, "egressQueueCounters.interfaces").items():
        where = f"egressQueueCounters.interfaces.{port}.ucastQueues.trafficClasses"
        classes = _obj(_key(_key(data, "ucastQueues", port), "trafficClasses", where), where)
        queues = {}
        for tc, row in classes.items():
            m = _TC.match(tc)
            if m is None or int(m[1]) not in CLASSES:
                raise CounterParseError(f"{where}: {tc!r} is not a traffic class TC0-TC7")
            precedences = _obj(_key(row, "dropPrecedences", f"{where}.{tc}"), f"{where}.{tc}.dropPrecedences")
            sums = _sums(precedences, f"{where}.{tc}.dropPrecedences")
            queues[int(m[1])] = QueueCounters(
                packets=sums["enqueuedPackets"],
                bytes=sums["enqueuedBytes"],
                dropped_packets=sums["droppedPackets"],
                dropped_bytes=sums["droppedBytes"],
            )
        out[port] = dict(sorted(queues.items()))
    return out


def _sums(precedences: dict[str, Any], where: str) -> dict[str, int | None]:
    """Counters summed over drop precedences; a counter no precedence printed is None (not observed)."""
    sums: dict[str, int | None] = {"droppedPackets": 0}
    for dp, counts in precedences.items():
        at = f"{where}.{dp}"
        if not _DP.match(dp):
            raise CounterParseError(f"{at}: not a drop precedence DP<n>")
        sums["droppedPackets"] = (sums["droppedPackets"] or 0) + _count(counts, "droppedPackets", at)
        for name in OPTIONAL_QUEUE_FIELDS:
            if name in _obj(counts, at):
                sums[name] = (sums.get(name) or 0) + _count(counts, name, at)
    return {name: sums.get(name) for name in ("droppedPackets", *OPTIONAL_QUEUE_FIELDS)}


def parse_ecn(text: str) -> dict[str, dict[int, int | None]]:
    """Port -> queue -> packets ECN-marked; EOS prints the counts as strings and "-" where the queue has
    no ECN marking configured (None: not observed, never 0)."""
    out = {}
    for port, data in load_output(text, "intfQueueCounters").items():
        where = f"intfQueueCounters.{port}.queueCounters"
        queues = _obj(_key(data, "queueCounters", f"intfQueueCounters.{port}"), where)
        counts: dict[int, int | None] = {}
        for q, value in queues.items():
            if not isinstance(value, str) or not (value == "-" or value.isdigit()):
                raise CounterParseError(f"{where}.{q}: {value!r} is not a count as a string or '-'")
            counts[_index(q, where)] = None if value == "-" else int(value)
        out[port] = dict(sorted(counts.items()))
    return out


def parse_watchdog(text: str) -> dict[str, dict[int, WatchdogCounters]]:
    """Port -> transmit queue -> storms detected (``stuckCount``) and restored (``recoveryCount``)."""
    out = {}
    for port, data in load_output(text, "interfaces").items():
        where = f"interfaces.{port}.txQueues"
        queues = _obj(_key(data, "txQueues", f"interfaces.{port}"), where)
        out[port] = {
            _index(q, where): WatchdogCounters(
                storms_detected=_count(row, "stuckCount", f"{where}.{q}"),
                storms_restored=_count(row, "recoveryCount", f"{where}.{q}"),
            )
            for q, row in sorted(queues.items())
        }
    return out


def _with_ecn(queues: dict[int, QueueCounters], ecn: dict[int, int | None]) -> dict[int, QueueCounters]:
    out = dict(queues)
    for q, marked in ecn.items():
        out[q] = out.get(q, QueueCounters()).model_copy(update={"ecn_marked_packets": marked})
    return dict(sorted(out.items()))


def port_counters(
    pfc: dict[str, PfcCounters] | None,
    queues: dict[str, dict[int, QueueCounters]] | None,
    watchdog: dict[str, dict[int, WatchdogCounters]] | None,
    order: list[str],
    ecn: dict[str, dict[int, int | None]] | None = None,
) -> dict[str, PortCounters]:
    """Every port any of the four showed (EOS's names are the intent's), in intent order then EOS's."""
    pfc, queues, watchdog, ecn = pfc or {}, queues or {}, watchdog or {}, ecn or {}
    seen = set(pfc) | set(queues) | set(watchdog) | set(ecn)
    ports = [p for p in order if p in seen] + sorted(seen - set(order))
    return {
        p: PortCounters(
            pfc=pfc.get(p, PfcCounters()),
            queues=_with_ecn(queues.get(p, {}), ecn.get(p, {})),
            watchdog=watchdog.get(p, {}),
        )
        for p in ports
    }
