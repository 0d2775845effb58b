"""InfiniBand as each host sees it (``ibstat`` and ``sminfo`` read on the host over SSH,
``HostObserved.ib_ports`` / ``sm_lid`` / ``sm_state``): every HCA port the intent cables is up at its rate,
and points at the fabric's one master subnet manager. Host HCA ports are matched by the port GUIDs of
``desired.ib_guids.hca_port_guids``, not by device name (``mlx5_0`` on one host, ``mlx5_3`` on another)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from xoff.contracts.observed import HostObserved, IbPortState
from xoff.desired.ib_guids import IB_NETWORK, hca_port_guids
from xoff.desired.models import FabricState
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register

MASTER = "SMINFO_MASTER"


@dataclass(frozen=True)
class _Port:
    host: str
    netdev: str
    guid: str
    speed_mbps: int | None  # the intended link's speed; None: the port is not cabled in the intent


def _cabled(desired: FabricState) -> Iterator[_Port]:
    speeds: dict[tuple[str, str], int] = {}
    for link in desired.links:
        if link.network == IB_NETWORK:
            for end in (link.a, link.b):
                speeds[(end.device, end.port)] = link.speed_mbps
    for (host, netdev), guid in hca_port_guids(desired).items():
        if (host, netdev) in speeds:
            yield _Port(host, netdev, f"0x{int(guid, 16):016x}", speeds[(host, netdev)])


def want_rate(speed_mbps: int) -> int:
    """ibstat's Rate (Gb/s) for an intended link speed: 400G -> 400, 56G (FDR) -> 56."""
    return speed_mbps // 1000


def _observed(ctx: CheckContext) -> dict[str, HostObserved]:
    """Hosts whose ibstat was read."""
    return {name: seen for name, seen in ctx.snapshot.hosts.items() if seen.ib_ports is not None}


@register
class HostPorts(Check):
    """An HCA port the intent cables that is not Active / LinkUp on its host (a pulled or bad cable: Down /
    Polling; no subnet manager: Initializing), that runs below the intended rate (a link trained slower or
    narrower), or whose SM LID is not the fabric's master subnet manager (``sminfo`` answers standby or
    not-active there, or hosts name different masters: two SMs each master of part of the fabric). Judged
    on ``ibstat`` and ``sminfo`` as each host prints them; a host whose ibstat was not read is not judged.
    The rate is not judged on a simulated fabric (the fabric read back has a speed cap): its HCAs show no
    real link rate."""

    id = "infiniband.host_ports"
    tags = ("hosts",)
    title = "Every cabled InfiniBand host port is Active / LinkUp at the intended rate, under the one master SM"
    needs = frozenset({"desired", "observed"})
    hint = (
        "ibstat on the host: Down/Polling is the cable or the switch port (ibportstate on the SM host), "
        "Initializing is no subnet manager; sminfo names the SM the port follows"
    )

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if not any(True for _ in _cabled(ctx.desired)):
            return "no host HCA port cabled to an InfiniBand network in this fabric"
        if not _observed(ctx):
            return "no host's ibstat in the snapshot (InfiniBand host ports not observed)"
        if not any(want.host in _observed(ctx) for want in _cabled(ctx.desired)):
            return "no host with a cabled HCA port had its ibstat read (InfiniBand host ports not observed)"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        hosts = _observed(ctx)
        ib = ctx.snapshot.infiniband
        cap = ib.speed_cap if ib is not None else None
        master = intended_master(ctx.desired, hosts)
        findings: list[Finding] = []
        judged, unread = 0, set()
        for want in _cabled(ctx.desired):
            seen = hosts.get(want.host)
            if seen is None:
                if ctx.selects(want.host):
                    unread.add(want.host)
                continue
            judged += 1
            findings += _port_findings(want, seen, cap, master)
        findings += _master_findings(hosts, master)
        self.note = f"{judged} host HCA port(s) judged" + (
            f"; ibstat not read on {', '.join(sorted(unread))}" if unread else ""
        )
        return findings


def _port_of(seen: HostObserved, guid: str) -> IbPortState | None:
    return next((p for p in seen.ib_ports or [] if p.port_guid == guid), None)


def intended_master(desired: FabricState, hosts: dict[str, HostObserved]) -> int | None:
    """The LID of the master SM the fabric should follow: the base LID of the HCA port of the host the intent
    runs the subnet manager on, as its own ibstat shows it; else the master most hosts' sminfo answers."""
    sm_host = next((d.name for d in desired.devices.values() if d.subnet_manager is not None), None)
    for want in _cabled(desired):
        port = _port_of(hosts[want.host], want.guid) if want.host == sm_host and want.host in hosts else None
        if port is not None and port.state == "Active" and port.base_lid:
            return port.base_lid
    masters = [seen.sm_lid for seen in hosts.values() if seen.sm_state == MASTER and seen.sm_lid is not None]
    return Counter(masters).most_common(1)[0][0] if masters else None


def _port_findings(want: _Port, seen: HostObserved, cap: str | None, master: int | None) -> list[Finding]:
    def finding(problem: str, expected: str, actual: str) -> Finding:
        return Finding(want.host, want.netdev, problem, expected, actual, port=want.netdev)

    port = _port_of(seen, want.guid)
    if port is None:
        return [finding("HCA port not in ibstat", f"port GUID {want.guid}", "absent")]
    name = f"{port.ca} port {port.port}"
    if (port.state, port.physical_state) != ("Active", "LinkUp"):
        # a port that is not up has no rate or SM to judge
        return [finding(f"{name} not up", "Active / LinkUp", f"{port.state} / {port.physical_state}")]
    out = []
    # a simulated fabric (a speed cap) reports no real link rate: ibsim's umad2sim shows 104 for 4X HDR
    rate = want_rate(want.speed_mbps) if want.speed_mbps is not None and cap is None else None
    if rate is not None and port.rate is not None and port.rate < rate:
        out.append(finding(f"{name} below the intended rate", f"{rate} Gb/s", f"{port.rate} Gb/s"))
    follows = master if master is not None else seen.sm_lid
    if follows is not None and port.sm_lid is not None and port.sm_lid != follows:  # None: not printed
        out.append(
            finding(f"{name} SM LID is not the fabric's master SM", f"SM lid {follows}", f"SM lid {port.sm_lid}")
        )
    if seen.sm_state is not None and seen.sm_state != MASTER:
        out.append(finding(f"the SM at LID {seen.sm_lid} is not the master", MASTER, seen.sm_state))
    return out


def _master_findings(hosts: dict[str, HostObserved], master: int | None) -> list[Finding]:
    """Hosts whose sminfo answers a master other than the fabric's (two masters: a split subnet)."""
    return [
        Finding(name, "sminfo", "host follows another master SM", f"SM lid {master}", f"SM lid {seen.sm_lid}")
        for name, seen in sorted(hosts.items())
        if master is not None and seen.sm_state == MASTER and seen.sm_lid is not None and seen.sm_lid != master
    ]
