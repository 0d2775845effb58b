"""IbObservation: what infiniband-diags read from a running InfiniBand fabric, vendor-neutral.

Built by :mod:`xoff.platforms.infiniband.observe` from the parsed diags output, carried by
``Snapshot.infiniband`` and read by the credit-loop analysis (``xoff.deadlock.ib``) and the InfiniBand checks. Nodes are keyed by node GUID
(``0x%016x``); a switch's routes and tables by its node GUID and port numbers; LIDs are what the SM
assigned. Maps keyed by integers serialise with string keys and read back as integers, so
``IbObservation.model_validate_json(obs.model_dump_json()) == obs``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

NUM_SLS = 16
VL15 = 15  # the management VL: an SL mapped to it is dropped on data paths (IBA 7.6.6)
GENERATIONS = ("SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR")  # slowest first
# Per-lane data rate (Mb/s) of each generation a 4x link is named by, fastest first.
_LANE_MBPS = (
    (200_000, "XDR"),
    (100_000, "NDR"),
    (50_000, "HDR"),
    (25_000, "EDR"),
    (14_000, "FDR"),
    (10_000, "QDR"),
    (5_000, "DDR"),
)


def link_width_speed(speed_mbps: int) -> tuple[str, str]:
    """The width and generation an intended link speed means on a 4x port: 400G -> ("4X", "NDR")."""
    lane = speed_mbps // 4
    return "4X", next((name for rate, name in _LANE_MBPS if lane >= rate), "SDR")


class Obs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PortRef(Obs):
    guid: str  # node GUID
    port: int


class IbPort(Obs):
    """One port as iblinkinfo/ibnetdiscover show it. ``lid`` is the port's own LID (CA ports; a
    switch's LID is the node's, on port 0). ``width``/``speed`` only while the link is up."""

    number: int
    guid: str | None = None  # port GUID (CA ports)
    lid: int | None = None
    state: str | None = None  # Active, Armed, Init, Down
    phys_state: str | None = None  # LinkUp, Polling, Disabled, ...
    width: str | None = None  # "4X"
    speed: str | None = None  # the generation: SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR
    peer: PortRef | None = None


class IbNode(Obs):
    kind: Literal["switch", "ca", "router"]
    guid: str
    description: str
    lid: int | None = None  # switches: the LID of port 0
    ports: dict[int, IbPort] = Field(default_factory=dict)


class Sl2Vl(Obs):
    """One SL to VL table: ``vls[sl]`` for packets entering ``in_port`` and leaving ``out_port``
    (a CA port's single table is stored as in 0, out <the CA port>)."""

    in_port: int
    out_port: int
    vls: list[int] = Field(min_length=NUM_SLS, max_length=NUM_SLS)


class VlArb(Obs):
    """A port's VL arbitration tables: (VL, weight) entries as programmed, in table order."""

    low: list[tuple[int, int]]
    high: list[tuple[int, int]]
    low_cap: int
    high_cap: int

    def weight(self, vl: int) -> int:
        """The VL's total weight over both tables (0: the VL never gets a transmit slot)."""
        return sum(w for v, w in (*self.low, *self.high) if v == vl)


class IbObservation(Obs):
    """The fabric as read back: topology, LFTs, SL2VL, VL arbitration, PKeys, port states."""

    source: str  # where it was read ("lab ib1, sm01", "dump /path")
    nodes: dict[str, IbNode]
    lfts: dict[str, dict[int, int]] = Field(default_factory=dict)  # switch GUID -> {dest LID: out port}
    sl2vl: dict[str, list[Sl2Vl]] = Field(default_factory=dict)  # node GUID -> tables
    vlarb: dict[str, dict[int, VlArb]] = Field(default_factory=dict)  # node GUID -> {port: tables}
    # node GUID -> {port: non-zero PKeys}: CA ports and switch ports (a switch port's table is what it
    # enforces, OpenSM copies the facing CA port's into it)
    pkeys: dict[str, dict[int, list[int]]] = Field(default_factory=dict)
    # How the PKey tables were read: "saquery" (PKeyTableRecords from the SA, trusted with its SA key),
    # "smpquery" (each port's PKeyTable through the SMP: the fallback when the SA refuses), None: not read
    pkey_source: Literal["saquery", "smpquery"] | None = None
    # OpenSM's part_enforce for switch ports facing CAs (both, in, out, off) from the running OpenSM's
    # config; None: not read (OpenSM's default is both)
    partition_enforcement: Literal["both", "in", "out", "off"] | None = None
    notes: list[str] = Field(default_factory=list)  # how the collector read what it read (fallbacks)
    routing_engine: str | None = None  # the engine OpenSM last configured the switches with (its log)
    failed_engines: list[str] = Field(default_factory=list)  # engines OpenSM could not set up (its log)
    # The fastest link generation the fabric can show: the lab's ibsim models up to HDR, so an NDR
    # link reads HDR there (the platform's declared tolerance, as ASIC cell rounding is for buffers).
    speed_cap: str | None = None

    def lid_owner(self) -> dict[int, PortRef]:
        """LID -> the port that has it (port 0 for a switch)."""
        out: dict[int, PortRef] = {}
        for node in self.nodes.values():
            if node.kind == "switch" and node.lid is not None:
                out[node.lid] = PortRef(guid=node.guid, port=0)
            for port in node.ports.values():
                if node.kind != "switch" and port.lid is not None:
                    out[port.lid] = PortRef(guid=node.guid, port=port.number)
        return out

    def port_by_guid(self) -> dict[str, PortRef]:
        """CA port GUID -> (node GUID, port)."""
        return {
            p.guid: PortRef(guid=n.guid, port=p.number)
            for n in self.nodes.values()
            for p in n.ports.values()
            if p.guid is not None and n.kind != "switch"
        }

    def sl2vl_table(self, guid: str) -> dict[tuple[int, int], list[int]]:
        return {(t.in_port, t.out_port): t.vls for t in self.sl2vl.get(guid, [])}
