"""PFC, PFC watchdog and egress-queue counters: text and ``| json``.

The lab has no data plane: no frame is ever queued, paused or dropped in it, so every counter is zero
unless the device's ``<state_dir>/counters.json`` says otherwise. That file is a test hook (the lab's
fault seeds write it, as the ASIC would raise the counters), in EOS's own terms::

    {"pfc":      {"Ethernet1/1": {"3": {"rxFrames": n, "txFrames": n}}},
     "queues":   {"Ethernet1/1": {"3": {"enqueuedPackets": n, "enqueuedBytes": n,
                                        "droppedPackets": n, "droppedBytes": n}}},
     "watchdog": {"Ethernet1/1": {"3": {"stuckCount": n, "recoveryCount": n}}},
     "ecn":      {"Ethernet1/1": {"3": {"ecnMarked": n}}},
     "lanz":     {"Ethernet1/1": {"3": {"queueLength": n}}}}

(and ``fec`` / ``optics`` per port, which ``show_optics`` prints and checks)

keyed by port, then priority (``pfc``) or transmit queue = traffic class (``queues``, ``watchdog``, ``ecn``, ``lanz``: EOS
fixes traffic class N -> tx-queue N). Missing values are zero; anything else in the file is refused. A value may
also be a running counter ``{"total": N, "per_second": R, "since": T}`` (``moving``: resolved when shown).

The ``| json`` models carry EOS's eAPI keys as public sources show them: ``show priority-flow-control
counters`` -> ``interfaceCounters.<port>.{rxFrames,txFrames}`` (ANTA's VerifyInterfacesPFCCounters);
``show interfaces [PORT] priority-flow-control counters detail`` ->
``interfaces.<port>.priorities.<p>.{rxFrames,txFrames}``; ``show priority-flow-control counters
watchdog`` -> ``interfaces.<port>.txQueues.<q>.{stuckCount,recoveryCount}``, with a port listed only
once it has had a watchdog event; ``show interfaces [PORT] counters queue detail`` ->
``egressQueueCounters.interfaces.<port>.{ucastQueues,mcastQueues}.trafficClasses.TC<n>.dropPrecedences.DP0``
with ``enqueuedPackets``/``enqueuedBytes``/``droppedPackets``/``droppedBytes`` (ANTA's
VerifyInterfacesEgressQueueDrops; EOS's counter names); ``show qos interfaces [PORT] ecn counters queue`` ->
``intfQueueCounters.<port>.queueCounters.<q>``, the packets ECN-marked as a string, ``"-"`` for a tx-queue
with no ``random-detect ecn`` configured (ANTA's VerifyInterfacesECNCounters). The TEXT tables are reconstructed and
UNCONFIRMED (no public capture was found; see tests/fixtures/real/eos/README.md): nothing parses them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xoff.lab.emulators.eos import ifnames
from xoff.lab.emulators.eos.grammar import CommandError
from xoff.lab.emulators.eos.model import RunningConfig
from xoff.lab.emulators.eos.moving import snapshot

Json = dict[str, Any]
Shown = tuple[str, Json]
FILE = "counters.json"
CLASSES = 8
FIELDS = {
    "pfc": ("rxFrames", "txFrames"),
    "queues": ("enqueuedPackets", "enqueuedBytes", "droppedPackets", "droppedBytes"),
    "watchdog": ("stuckCount", "recoveryCount"),
    "ecn": ("ecnMarked",),
    "lanz": ("queueLength",),  # bytes in the tx-queue, as LANZ reports it (show_lanz)
}
NO_INTERFACE = "% Interface does not exist"
PHY_TABLES = ("fec", "optics")  # per port, not per priority: their shape is show_optics's


class Counters:
    """The counters one device holds (``counters.json``, checked): ``get(table, port, index)``."""

    def __init__(self, data: Json) -> None:
        self.data = data

    @classmethod
    def load(cls, state_dir: Path) -> Counters:
        path = state_dir / FILE
        if not path.exists():
            return cls({})
        data = snapshot(path)  # running counters and gauges resolved at this instant
        _check(data, path)
        return cls(data)

    def get(self, table: str, port: str, index: int) -> dict[str, int]:
        row = self.data.get(table, {}).get(port, {}).get(str(index), {})
        return {k: int(row.get(k, 0)) for k in FIELDS[table]}

    def indexes(self, table: str, port: str) -> list[int]:
        """The priorities / queues of ``port`` that the file gives a non-zero value."""
        rows = self.data.get(table, {}).get(port, {})
        return sorted(int(i) for i, row in rows.items() if any(row.values()))


def _check(data: Any, path: Path) -> None:
    """The hook file's shape, or ValueError: a wrong file is a broken test, never silently zero."""
    if not isinstance(data, dict) or set(data) - set(FIELDS) - set(PHY_TABLES):
        raise ValueError(f"{path}: top-level keys must be among {sorted(FIELDS) + list(PHY_TABLES)}")
    for table, ports in data.items():
        if table in PHY_TABLES:
            continue  # FEC and optics: show_optics.check
        for port, rows in ports.items():
            ifnames.kind(port)  # ValueError for a name EOS would not print
            for index, row in rows.items():
                if not index.isdigit() or not 0 <= int(index) < CLASSES:
                    raise ValueError(f"{path}: {table}.{port}: {index!r} is not 0-{CLASSES - 1}")
                bad = [k for k, v in row.items() if k not in FIELDS[table] or type(v) is not int or v < 0]
                if bad:
                    raise ValueError(f"{path}: {table}.{port}.{index}: bad {bad} (allowed: {FIELDS[table]})")


def ethernet_ports(cfg: RunningConfig, only: str | None = None) -> list[str]:
    """The Ethernet ports in EOS order, or just ``only`` (``% Interface does not exist`` if it does not)."""
    if only is not None:
        if only not in cfg.interfaces:
            raise CommandError(NO_INTERFACE)
        return [only] if cfg.interfaces[only].kind == "Ethernet" else []
    return ifnames.sort_names([n for n, i in cfg.interfaces.items() if i.kind == "Ethernet"])


def _table(header: list[tuple[str, int]], rows: list[list[object]]) -> str:
    lines = [" ".join(f"{h:<{w}}" for h, w in header).rstrip(), " ".join("-" * w for _, w in header)]
    lines += [" ".join(f"{v!s:<{w}}" for v, (_, w) in zip(row, header, strict=True)).rstrip() for row in rows]
    return "".join(line + "\n" for line in lines)


def pfc_counters(cfg: RunningConfig, counters: Counters) -> Shown:
    """``show priority-flow-control counters``: PFC frames per port, all priorities together."""
    ports: Json = {}
    rows: list[list[object]] = []
    for port in ethernet_ports(cfg):
        rx = sum(counters.get("pfc", port, p)["rxFrames"] for p in range(CLASSES))
        tx = sum(counters.get("pfc", port, p)["txFrames"] for p in range(CLASSES))
        ports[port] = {"rxFrames": rx, "txFrames": tx}
        rows.append([ifnames.short(port), rx, tx])
    return _table([("Port", 11), ("RxPfc", 15), ("TxPfc", 15)], rows), {"interfaceCounters": ports}


def pfc_counters_detail(cfg: RunningConfig, counters: Counters, only: str | None) -> Shown:
    """``show interfaces [PORT] priority-flow-control counters detail``: PFC frames per port and priority."""
    ports: Json = {}
    rows: list[list[object]] = []
    for port in ethernet_ports(cfg, only):
        prios = {str(p): counters.get("pfc", port, p) for p in range(CLASSES)}
        ports[port] = {"priorities": prios}
        rows += [[ifnames.short(port), p, c["rxFrames"], c["txFrames"]] for p, c in prios.items()]
    header = [("Port", 11), ("Priority", 8), ("RxPfc", 15), ("TxPfc", 15)]
    return _table(header, rows), {"interfaces": ports}


def pfc_watchdog_counters(cfg: RunningConfig, counters: Counters) -> Shown:
    """``show priority-flow-control counters watchdog``: storms per port and tx-queue; a port appears
    once its watchdog has fired (EOS leaves the others out)."""
    ports: Json = {}
    rows: list[list[object]] = []
    for port in ethernet_ports(cfg):
        queues = counters.indexes("watchdog", port)
        if not queues:
            continue
        ports[port] = {"txQueues": {str(q): counters.get("watchdog", port, q) for q in queues}}
        for q in queues:
            c = counters.get("watchdog", port, q)
            rows.append([ifnames.short(port), q, c["stuckCount"], c["recoveryCount"]])
    header = [("Port", 11), ("TxQ", 3), ("Stuck", 15), ("Recovered", 15)]
    return _table(header, rows), {"interfaces": ports}


def queue_counters_detail(cfg: RunningConfig, counters: Counters, only: str | None) -> Shown:
    """``show interfaces [PORT] counters queue detail``: per port, unicast and multicast queue (traffic
    class) at drop precedence 0, packets and bytes enqueued and dropped."""
    ports: Json = {}
    rows: list[list[object]] = []
    zero = dict.fromkeys(FIELDS["queues"], 0)
    for port in ethernet_ports(cfg, only):
        ucast = {f"TC{q}": {"dropPrecedences": {"DP0": counters.get("queues", port, q)}} for q in range(CLASSES)}
        mcast = {f"TC{q}": {"dropPrecedences": {"DP0": dict(zero)}} for q in range(CLASSES)}
        ports[port] = {"ucastQueues": {"trafficClasses": ucast}, "mcastQueues": {"trafficClasses": mcast}}
        for kind, classes in (("UC", ucast), ("MC", mcast)):
            for q in range(CLASSES):
                c = classes[f"TC{q}"]["dropPrecedences"]["DP0"]
                row = [c["enqueuedPackets"], c["enqueuedBytes"], c["droppedPackets"], c["droppedBytes"]]
                rows.append([ifnames.short(port), f"{kind}{q}", *row])
    header = [("Port", 11), ("TxQ", 4), ("Counter/pkts", 15), ("Counter/octets", 15)]
    header += [("Drop/pkts", 15), ("Drop/octets", 15)]
    return _table(header, rows), {"egressQueueCounters": {"interfaces": ports}}


def _ecn_queues(cfg: RunningConfig, port: str) -> set[int]:
    """The tx-queues of ``port`` with ``random-detect ecn`` configured (EOS counts marks only there)."""
    queues = getattr(cfg.interfaces[port], "tx_queues", {})
    return {q for q, tx in queues.items() if getattr(tx, "ecn", None) is not None}


def ecn_counters(cfg: RunningConfig, counters: Counters, only: str | None) -> Shown:
    """``show qos interfaces [PORT] ecn counters queue``: packets ECN-marked per port and tx-queue, as strings,
    ``-`` on a queue without ECN marking."""
    ports: Json = {}
    rows: list[list[object]] = []
    for port in ethernet_ports(cfg, only):
        marking = _ecn_queues(cfg, port)
        values = {
            str(q): str(counters.get("ecn", port, q)["ecnMarked"]) if q in marking else "-" for q in range(CLASSES)
        }
        ports[port] = {"queueCounters": values}
        rows += [[ifnames.short(port), q, v] for q, v in values.items()]
    return _table([("Port", 11), ("TxQ", 3), ("ECN Marked", 15)], rows), {"intfQueueCounters": ports}
