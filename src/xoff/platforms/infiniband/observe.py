"""Raw infiniband-diags captures -> :class:`IbObservation`.

Captures are keyed by their file name in a dump directory (``xoff deadlock --ib-dump DIR`` reads the
same layout ``save_captures`` writes), each the untouched output of one command:

    ibnetdiscover.txt          ibnetdiscover
    dump_fts.txt               dump_fts (every switch's LFT)
    iblinkinfo.txt             iblinkinfo (port state, width, speed)
    sl2vl/<lid>_<port>.txt     smpquery sl2vl <lid> <port>   (a switch: every in port for that out port)
    vlarb/<lid>_<port>.txt     smpquery vlarb <lid> <port>
    saquery_pkeys/<lid>_<port>.txt   saquery PKeyTableRecord <lid>/<port>  (CA and switch ports; the SA key
                               is in the command, never in a capture)
    pkeys/<lid>_<port>.txt     smpquery pkeys <lid> <port>   (the fallback when the SA refuses the query)
    opensm.log                 OpenSM's log (optional: the routing engine it used)
    meta.json                  optional: {"source": ..., "speed_cap": ..., "partition_enforcement": ..., "notes": [...]}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xoff.contracts.infiniband import IbNode, IbObservation, IbPort, PortRef, Sl2Vl, VlArb
from xoff.platforms.infiniband import parse
from xoff.platforms.infiniband.parse import IbParseError

IBNETDISCOVER = "ibnetdiscover.txt"
DUMP_FTS = "dump_fts.txt"
IBLINKINFO = "iblinkinfo.txt"
OPENSM_LOG = "opensm.log"
META = "meta.json"
SA_PKEYS = "saquery_pkeys"
PER_PORT = ("sl2vl", "vlarb", "pkeys", SA_PKEYS)  # directories of per-(LID, port) captures
ENFORCEMENT = ("both", "in", "out", "off")

Captures = dict[str, str]  # file name in the dump -> raw output


def per_port_name(kind: str, lid: int, port: int) -> str:
    return f"{kind}/{lid}_{port}.txt"


def _lid_port(name: str) -> tuple[int, int]:
    stem = Path(name).stem
    lid, _, port = stem.partition("_")
    if not (lid.isdigit() and port.isdigit()):
        raise IbParseError(f"{name}: capture name is not <lid>_<port>.txt")
    return int(lid), int(port)


def _with_link_states(nodes: dict[str, IbNode], text: str) -> dict[str, IbNode]:
    """Port state, width and speed from iblinkinfo onto the discovered nodes (and their uncabled ports)."""
    ca_ports = {p.guid: (n.guid, p.number) for n in nodes.values() for p in n.ports.values() if p.guid}
    ports: dict[str, dict[int, dict[str, Any]]] = {
        g: {k: p.model_dump() for k, p in n.ports.items()} for g, n in nodes.items()
    }
    for s in parse.iblinkinfo(text):
        if s.node_kind == "switch":
            if s.node not in nodes:
                raise IbParseError(f"iblinkinfo: switch {s.node} ({s.description}) is not in ibnetdiscover's topology")
            node_guid, number = s.node, s.port
        elif s.node in ca_ports:
            node_guid, number = ca_ports[s.node]
        else:
            continue  # a CA port ibnetdiscover did not reach (link down): nothing routes through it
        port = ports[node_guid].setdefault(number, {"number": number})
        port.update(state=s.state, phys_state=s.phys_state, width=s.width, speed=s.speed)
    return {
        g: n.model_copy(update={"ports": {k: IbPort.model_validate(v) for k, v in sorted(ports[g].items())}})
        for g, n in nodes.items()
    }


def _sa_pkeys(text: str, lid: int, port: int) -> list[int]:
    """The non-zero PKeys of one port from its PKeyTableRecords: every record that port's, blocks 0..n-1."""
    records = parse.saquery_pkey_records(text)
    strays = sorted({(r.lid, r.port) for r in records} - {(lid, port)})
    if strays:
        raise IbParseError(f"records of other ports ({', '.join(f'LID {a} port {b}' for a, b in strays)})")
    blocks = sorted(r.block for r in records)
    if not blocks:
        raise IbParseError("no PKeyTableRecord: the SA has no PKey table for this port")
    if blocks != list(range(len(blocks))):
        raise IbParseError(f"blocks {blocks} of the PKey table, not 0..n-1")
    return [k for r in sorted(records, key=lambda r: r.block) for k in r.pkeys if k & 0x7FFF]


@dataclass
class _PortTables:
    """The per-port tables read so far, by node GUID, and which PKey source(s) they came from."""

    sl2vl: dict[str, list[Sl2Vl]] = field(default_factory=dict)
    vlarb: dict[str, dict[int, VlArb]] = field(default_factory=dict)
    pkeys: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    sources: set[str] = field(default_factory=set)


def _check_inputs(captures: Mapping[str, str], partition_enforcement: str | None) -> None:
    if partition_enforcement is not None and partition_enforcement not in ENFORCEMENT:
        raise IbParseError(f"part_enforce {partition_enforcement!r} (allowed: {', '.join(ENFORCEMENT)})")
    for required in (IBNETDISCOVER, DUMP_FTS, IBLINKINFO):
        if required not in captures:
            raise IbParseError(f"{required}: missing from the captures")


def _read_port_capture(
    tables: _PortTables, kind: str, text: str, lid: int, port: int, owner: PortRef, node_kind: str
) -> None:
    """One ``<kind>/<lid>.<port>`` capture into ``tables``, checked against the port that has the LID."""
    node = owner.guid
    if kind == "sl2vl":
        got, found = parse.smpquery_sl2vl(text)
        if got != lid:
            raise IbParseError(f"tables of LID {got}, not {lid}")
        if node_kind != "switch":  # a CA port's one table prints as in 0, out 0: key it by port
            found = [t.model_copy(update={"in_port": 0, "out_port": port}) for t in found]
        tables.sl2vl.setdefault(node, []).extend(found)
    elif kind == "vlarb":
        got, got_port, arb = parse.smpquery_vlarb(text)
        if (got, got_port) != (lid, port):
            raise IbParseError(f"tables of LID {got} port {got_port}, not {lid} {port}")
        tables.vlarb.setdefault(node, {})[port] = arb
    else:
        if node_kind != "switch" and owner.port != port:
            raise IbParseError(f"LID {lid} is port {owner.port} of its CA, not port {port}")
        table = parse.smpquery_pkeys(text) if kind == "pkeys" else _sa_pkeys(text, lid, port)
        tables.pkeys.setdefault(node, {})[port] = table
        tables.sources.add(kind)


def observation(
    captures: Mapping[str, str],
    source: str,
    speed_cap: str | None = None,
    partition_enforcement: str | None = None,
    notes: Iterable[str] = (),
) -> IbObservation:
    """Parse every capture and join them on GUIDs and LIDs; raises IbParseError naming the capture.
    ``partition_enforcement`` (OpenSM's part_enforce) and ``notes`` are what the collector learnt beside
    the captures."""
    _check_inputs(captures, partition_enforcement)
    nodes = parse.ibnetdiscover(captures[IBNETDISCOVER])
    nodes = _with_link_states(nodes, captures[IBLINKINFO])
    lfts = parse.dump_fts(captures[DUMP_FTS])
    unknown = sorted(set(lfts) - {g for g, n in nodes.items() if n.kind == "switch"})
    if unknown:
        raise IbParseError(f"{DUMP_FTS}: LFTs of switches not in the topology: {', '.join(unknown)}")
    partial = IbObservation(source=source, nodes=nodes, lfts=lfts)
    owner = partial.lid_owner()
    tables = _PortTables()
    for name in sorted(captures):
        kind = name.split("/", 1)[0]
        if kind not in PER_PORT or "/" not in name:
            continue
        lid, port = _lid_port(name)
        if lid not in owner:
            raise IbParseError(f"{name}: no port has LID {lid}")
        try:
            _read_port_capture(tables, kind, captures[name], lid, port, owner[lid], nodes[owner[lid].guid].kind)
        except IbParseError as exc:
            raise IbParseError(f"{name}: {exc}") from None
    sources = tables.sources
    if len(sources) > 1:
        raise IbParseError(f"PKey tables read both by saquery ({SA_PKEYS}/) and by smpquery (pkeys/): one source only")
    pkey_source = ("saquery" if SA_PKEYS in sources else "smpquery") if sources else None
    engine, failed = parse.opensm_log(captures[OPENSM_LOG]) if OPENSM_LOG in captures else (None, [])
    return partial.model_copy(
        update={
            "sl2vl": {g: sorted(t, key=lambda s: (s.out_port, s.in_port)) for g, t in sorted(tables.sl2vl.items())},
            "vlarb": dict(sorted(tables.vlarb.items())),
            "pkeys": dict(sorted(tables.pkeys.items())),
            "routing_engine": engine,
            "failed_engines": failed,
            "speed_cap": speed_cap,
            "pkey_source": pkey_source,
            "partition_enforcement": partition_enforcement,
            "notes": list(notes),
        }
    )


def save_captures(captures: Mapping[str, str], directory: Path, meta: Mapping[str, Any] | None = None) -> None:
    for name, text in captures.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if meta:
        (directory / META).write_text(json.dumps(dict(meta), indent=2) + "\n", encoding="utf-8")


def load_captures(directory: Path) -> tuple[Captures, dict[str, Any]]:
    """Every capture of a dump directory, and its meta.json (empty without one)."""
    if not directory.is_dir():
        raise IbParseError(f"{directory}: not a directory of infiniband-diags captures")
    captures: Captures = {}
    for path in sorted(directory.rglob("*")):
        name = path.relative_to(directory).as_posix()
        if path.is_file() and name != META:
            captures[name] = path.read_text(encoding="utf-8")
    meta_path = directory / META
    meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
    return captures, meta


def observation_from_dump(directory: Path) -> IbObservation:
    captures, meta = load_captures(directory)
    return observation(
        captures,
        str(meta.get("source", f"dump {directory}")),
        meta.get("speed_cap"),
        meta.get("partition_enforcement"),
        meta.get("notes", ()),
    )
