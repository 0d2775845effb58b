"""Parsers for infiniband-diags output: the TextFSM templates in ``textfsm/`` (ntc-templates layout,
looked up through ``textfsm/index`` by command), then strict conversion of their rows to values.

A line no template rule knows, or a value that does not convert, raises :class:`IbParseError`
naming the command and what was wrong: a parse failure is an error, never a raw string.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xoff.collect.textfsm import TextParseError, parse_text
from xoff.contracts.infiniband import NUM_SLS, IbNode, IbPort, PortRef, Sl2Vl, VlArb

TEMPLATES = Path(__file__).with_name("textfsm")
PLATFORM = "infiniband"

# iblinkinfo prints the per-lane signalling rate; the generation it belongs to (IBA 14.2.5.6).
_LANE_GBPS = {
    2.5: "SDR",
    5.0: "DDR",
    10.0: "QDR",
    10.3125: "FDR10",
    14.0625: "FDR",
    25.78125: "EDR",
    53.125: "HDR",
    106.25: "NDR",
    212.5: "XDR",
}
_KINDS = {"Switch": "switch", "Ca": "ca", "CA": "ca", "Rt": "router", "Router": "router"}


class IbParseError(ValueError):
    """infiniband-diags output that does not parse: the command and what was wrong."""


@dataclass(frozen=True)
class Row:
    """One TextFSM record, values by lower-case name."""

    command: str
    values: dict[str, Any]

    def __getitem__(self, key: str) -> str:
        value = self.values[key]
        return value if isinstance(value, str) else str(value)

    def int(self, key: str, base: int = 10) -> int:
        try:
            return int(self[key], base)
        except ValueError:
            raise IbParseError(f"{self.command}: {key} {self[key]!r} is not a number") from None


def parse_rows(command: str, text: str) -> list[Row]:
    """The rows of ``command``'s template for ``text`` (the shared ntc-templates-style driver)."""
    try:
        rows = parse_text(TEMPLATES, PLATFORM, command, text)
    except TextParseError as exc:
        raise IbParseError(str(exc)) from None
    return [Row(command, dict(r)) for r in rows]


def guid(text: str) -> str:
    """A GUID in the one spelling xoff uses: ``0x`` and 16 lower-case hex digits."""
    try:
        return f"0x{int(text, 16):016x}"
    except ValueError:
        raise IbParseError(f"{text!r} is not a GUID") from None


def _guid_of_id(node_id: str) -> str:
    # ibnetdiscover names a node "S-<node GUID>" (switch), "H-<GUID>" (CA), "R-<GUID>" (router)
    kind, _, hexpart = node_id.partition("-")
    if kind not in {"S", "H", "R"} or not hexpart:
        raise IbParseError(f"ibnetdiscover: node id {node_id!r} is not S-/H-/R-<GUID>")
    return guid(hexpart)


def lane_generation(gbps: str) -> str:
    """iblinkinfo's per-lane rate (``53.125``) -> its generation (``HDR``)."""
    try:
        return _LANE_GBPS[float(gbps)]
    except (KeyError, ValueError):
        raise IbParseError(f"iblinkinfo: unknown lane speed {gbps!r} Gbps (known: {sorted(_LANE_GBPS)})") from None


def ibnetdiscover(text: str) -> dict[str, IbNode]:
    """Nodes with their cabled ports: peer, width, speed, and each CA port's GUID and LID."""
    rows = parse_rows("ibnetdiscover", text)
    if not rows:
        raise IbParseError("ibnetdiscover: no node with a cabled port")
    nodes: dict[str, dict[str, Any]] = {}
    for r in rows:
        g = guid(r["node_guid"])
        if _guid_of_id(r["node_id"]) != g:
            raise IbParseError(f"ibnetdiscover: node {r['node_id']} follows the GUID line of {g}")
        node = nodes.setdefault(
            g,
            {
                "kind": _KINDS[r["node_type"]],
                "guid": g,
                "description": r["node_desc"],
                "lid": r.int("switch_lid") if r["switch_lid"] else None,
                "ports": {},
            },
        )
        number = r.int("port")
        if number in node["ports"]:
            raise IbParseError(f"ibnetdiscover: {node['description']} port {number} listed twice")
        node["ports"][number] = IbPort(
            number=number,
            guid=guid(r["port_guid"]) if r["port_guid"] else None,
            lid=r.int("port_lid") if r["port_lid"] else None,
            width=r["width"].upper(),
            speed=r["speed"],
            peer=PortRef(guid=_guid_of_id(r["remote_id"]), port=r.int("remote_port")),
        )
    return {g: IbNode.model_validate(n) for g, n in nodes.items()}


def dump_fts(text: str, command: str = "dump_fts") -> dict[str, dict[int, int]]:
    """Switch node GUID -> {destination LID: out port} (``ibroute`` prints the same blocks)."""
    out: dict[str, dict[int, int]] = {}
    for r in parse_rows(command, text):
        if not r["switch_guid"]:
            raise IbParseError(f"{command}: LFT entry {r['lid']} before any switch header")
        table = out.setdefault(guid(r["switch_guid"]), {})
        lid = r.int("lid", 16)
        if lid in table:
            raise IbParseError(f"{command}: {r['switch_desc']}: LID {lid} listed twice")
        table[lid] = r.int("port")
    return out


def _cells(text: str, command: str, base: int = 10) -> list[int]:
    try:
        return [int(c.strip(), base) for c in text.split("|") if c.strip()]
    except ValueError:
        raise IbParseError(f"{command}: {text!r} is not a row of numbers") from None


def smpquery_sl2vl(text: str) -> tuple[int, list[Sl2Vl]]:
    """(LID queried, its tables) from ``smpquery sl2vl LID [OUT_PORT]``."""
    rows = parse_rows("smpquery sl2vl", text)
    if not rows:
        raise IbParseError("smpquery sl2vl: no table")
    lids = {r.int("lid") for r in rows}
    if len(lids) != 1:
        raise IbParseError(f"smpquery sl2vl: tables of several LIDs in one output ({sorted(lids)})")
    tables = []
    for r in rows:
        vls = _cells(r["vls"], "smpquery sl2vl")
        if len(vls) != NUM_SLS or any(not 0 <= v <= 15 for v in vls):
            raise IbParseError(f"smpquery sl2vl: {r['vls']!r} is not 16 VLs in 0..15")
        tables.append(Sl2Vl(in_port=r.int("in_port"), out_port=r.int("out_port"), vls=vls))
    return lids.pop(), tables


def smpquery_vlarb(text: str) -> tuple[int, int, VlArb]:
    """(LID, port, tables) from ``smpquery vlarb LID PORT``."""
    rows = parse_rows("smpquery vlarb", text)
    if not rows:
        raise IbParseError("smpquery vlarb: no table")
    first = rows[0]
    entries: dict[str, list[tuple[int, int]]] = {"Low": [], "High": []}
    for r in rows:
        if (r["lid"], r["port"]) != (first["lid"], first["port"]):
            raise IbParseError("smpquery vlarb: tables of several ports in one output")
        if r["table"] not in entries:
            raise IbParseError(f"smpquery vlarb: a VL row of LID {r['lid']} port {r['port']} outside a table")
        vls, weights = _cells(r["vls"], "smpquery vlarb", 16), _cells(r["weights"], "smpquery vlarb", 16)
        if len(vls) != len(weights):
            raise IbParseError(f"smpquery vlarb: {len(vls)} VLs but {len(weights)} weights")
        entries[r["table"]] += list(zip(vls, weights, strict=True))
    arb = VlArb(low=entries["Low"], high=entries["High"], low_cap=first.int("low_cap"), high_cap=first.int("high_cap"))
    return first.int("lid"), first.int("port"), arb


def smpquery_pkeys(text: str) -> list[int]:
    """The non-zero PKeys of ``smpquery pkeys LID PORT``, membership bit (0x8000 = full) included."""
    rows = parse_rows("smpquery pkeys", text)
    entries: list[int] = []
    capacity = None
    for r in rows:
        if r["capacity"]:
            capacity = r.int("capacity")
            continue
        if r.int("index") != len(entries):
            raise IbParseError(f"smpquery pkeys: row {r['index']} where row {len(entries)} was expected")
        entries += _cells(r["pkeys"].replace(" ", "|"), "smpquery pkeys", 16)
    if capacity is None or capacity != len(entries):
        raise IbParseError(f"smpquery pkeys: {len(entries)} entries but capacity {capacity}")
    return [p for p in entries if p & 0x7FFF]


PKEYS_PER_BLOCK = 32  # a PKeyTableRecord (IBA 15.2.5.11) carries one block of the port's table


@dataclass(frozen=True)
class PKeyBlock:
    """One PKeyTableRecord: block ``block`` (PKeys 32*block .. 32*block+31) of (``lid``, ``port``)'s table."""

    lid: int
    port: int
    block: int
    pkeys: tuple[int, ...]


def saquery_pkey_records(text: str) -> list[PKeyBlock]:
    """Every record of ``saquery PKeyTableRecord [LID[/PORT]]``, each block's 32 entries as printed
    (zeros included: the caller joins a port's blocks in order)."""
    out: list[PKeyBlock] = []
    for r in parse_rows("saquery PKeyTableRecord", text):
        if not (r["port"] and r["block"]):
            raise IbParseError(f"saquery PKeyTableRecord: record of LID {r['lid']} without its port or block")
        lines = r.values["pkeys"]
        pkeys = tuple(_cells("|".join(str(line).replace(" ", "|") for line in lines), "saquery PKeyTableRecord", 16))
        if len(pkeys) != PKEYS_PER_BLOCK:
            raise IbParseError(
                f"saquery PKeyTableRecord: LID {r['lid']} port {r['port']} block {r['block']}: "
                f"{len(pkeys)} PKeys, not {PKEYS_PER_BLOCK}"
            )
        out.append(PKeyBlock(lid=r.int("lid"), port=r.int("port"), block=r.int("block"), pkeys=pkeys))
    return out


@dataclass(frozen=True)
class LinkState:
    """One iblinkinfo port line; ``node`` is the switch's node GUID or, for a CA, its port GUID."""

    node_kind: str
    node: str
    description: str
    lid: int
    port: int
    state: str
    phys_state: str
    width: str | None
    speed: str | None
    remote_lid: int | None
    remote_port: int | None


def _link_speed(r: Row) -> str | None:
    """The generation of a port line's speed: FDR10 says so (its lanes run at QDR's 10.0 Gb/s)."""
    if not r["speed"]:
        return None
    return "FDR10" if r["fdr10"] else lane_generation(r["speed"])


def iblinkinfo(text: str) -> list[LinkState]:
    out = []
    for r in parse_rows("iblinkinfo", text):
        kind = _KINDS[r["node_type"]]
        key = r["node_guid"] if kind == "switch" else r["port_guid"]
        if not key:
            raise IbParseError(f"iblinkinfo: {r['node_desc']} port {r['port']} without a GUID")
        out.append(
            LinkState(
                node_kind=kind,
                node=guid(key),
                description=r["node_desc"],
                lid=r.int("lid"),
                port=r.int("port"),
                state=r["state"],
                phys_state=r["phys_state"],
                width=r["width"] or None,
                speed=_link_speed(r),
                remote_lid=r.int("remote_lid") if r["remote_lid"] else None,
                remote_port=r.int("remote_port") if r["remote_port"] else None,
            )
        )
    return out


def opensm_log(text: str) -> tuple[str | None, list[str]]:
    """(the last engine that configured the switches, engines OpenSM failed to set up)."""
    configured: str | None = None
    failed: list[str] = []
    for r in parse_rows("opensm log", text):
        if r["configured"]:
            configured = r["configured"]
        if r["failed"] and r["failed"] not in failed:
            failed.append(r["failed"])
    return configured, failed
