"""Routing and cabling fault classes: a cable swapped or pulled (the switch's veth ends), a BGP session shut
down or given the wrong ASN (FRR ``vtysh``), static host routes that bounce (``fib_bounce``). The steps
first, then the fault records that name them.
"""

from __future__ import annotations

import shlex
import time

from xoff.lab import netns, observe
from xoff.lab.faults import fib_bounce
from xoff.lab.faults.errors import SeedError
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import Concern, Fault, Step, Steps, Target, port_of

_SN = "sonic"


# --- FRR: BGP ----------------------------------------------------------------------------------------


def _neighbour(lab: Lab, t: Target) -> tuple[int, str]:
    bgp = lab.connection.fabric.devices[t.device].bgp
    if bgp is None:
        raise SeedError(f"{t.device}: no BGP in the intent")
    nb = next((n for n in bgp.neighbors if t.port in (None, n.interface)), None)
    if nb is None:
        raise SeedError(f"{t.device}: no BGP neighbour on {t.port}")
    return bgp.asn, nb.address


def _vtysh(lab: Lab, device: str, *lines: str) -> None:
    lab.run(device, "vtysh " + " ".join(f"-c {shlex.quote(ln)}" for ln in ("configure terminal", *lines)))


def _bgp_shutdown(no: bool) -> Step:
    def step(lab: Lab, t: Target) -> None:
        asn, address = _neighbour(lab, t)
        _vtysh(lab, t.device, f"router bgp {asn}", f"{'no ' if no else ''}neighbor {address} shutdown")
        if no:
            _reestablish(lab, t, address)

    return step


def _bgp_asn(wrong: bool) -> Step:
    def step(lab: Lab, t: Target) -> None:
        asn, address = _neighbour(lab, t)
        bgp = lab.connection.fabric.devices[t.device].bgp
        assert bgp is not None
        right = next(n.remote_asn for n in bgp.neighbors if n.address == address)
        _vtysh(lab, t.device, f"router bgp {asn}", f"neighbor {address} remote-as {65999 if wrong else right}")
        if not wrong:
            _reestablish(lab, t, address)

    return step


def _reestablish(lab: Lab, t: Target, address: str, timeout_s: float = 30.0) -> None:
    """After the fix, what an operator does: ``clear bgp`` at the far end (its idle back-off), then wait
    for Established at both ends."""
    fabric = lab.connection.fabric
    nb = next(n for n in fabric.devices[t.device].bgp.neighbors if n.address == address)  # type: ignore[union-attr]
    far = fabric.devices[nb.peer]
    back = next((n.address for n in (far.bgp.neighbors if far.bgp else []) if n.peer == t.device), None)
    if back is not None:
        lab.run(far.name, f"vtysh -c {shlex.quote(f'clear bgp {back}')}")
    deadline = time.monotonic() + timeout_s
    while True:
        states = {s.neighbor: s.state for s in observe.bgp_sessions(lab.state, t.device)}
        if back is not None:
            states.update({f"far:{s.neighbor}": s.state for s in observe.bgp_sessions(lab.state, far.name)})
        if states.get(address) == "Established" and (back is None or states.get(f"far:{back}") == "Established"):
            return
        if time.monotonic() > deadline:
            raise SeedError(f"{t.device}: BGP with {address} not Established again in {timeout_s:.0f} s: {states}")
        time.sleep(0.3)


# --- cabling ---------------------------------------------------------------------------------------


def _swap(back: bool) -> Step:
    def step(lab: Lab, t: Target) -> None:
        _swap_cables(lab, t, back)

    return step


def _swap_cables(lab: Lab, t: Target, back: bool) -> None:
    """Two cables re-plugged into each other's ports: the two veth ends swap names in the switch."""
    a, b = port_of(t), _swap_partner(lab, t)
    ns, ia, ib = lab.netns(t.device), lab.ifname(t.device, a), lab.ifname(t.device, b)
    netns.ip_batch(
        [
            f"link set {ia} down",
            f"link set {ib} down",
            f"link set {ia} name xoffswap",
            f"link set {ib} name {ia}",
            f"link set xoffswap name {ib}",
            f"link set {ia} up",
            f"link set {ib} up",
        ],
        netns=ns,
    )
    # the far ends' LLDP now arrives on the other port (and, undone, on its own again)
    want = {a: {_peer_of(lab, t.device, a if back else b)}, b: {_peer_of(lab, t.device, b if back else a)}}
    _wait_lldp(lab, t.device, want)


def _swap_partner(lab: Lab, t: Target) -> str:
    dev = lab.connection.fabric.devices[t.device]
    port = dev.interfaces[port_of(t)]
    return next(
        i.name
        for i in dev.interfaces.values()
        if i.peer is not None and i.name != port.name and i.link_role == port.link_role and i.mtu == port.mtu
    )


def _peer_of(lab: Lab, device: str, port: str) -> str:
    peer = lab.connection.fabric.devices[device].interfaces[port].peer
    return f"{peer.device}:{peer.port}" if peer is not None else ""


def _lldp(lab: Lab, device: str) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for n in observe.lldp_neighbors(lab.state, device):
        seen.setdefault(n.port, set()).add(f"{n.remote}:{n.remote_port}")
    return seen


def _wait_lldp(lab: Lab, device: str, want: dict[str, set[str]], timeout_s: float = 15.0) -> None:
    """Until the ports' LLDP neighbours are ``want`` (a cable change shows after a TTL at most)."""
    deadline = time.monotonic() + timeout_s
    while True:
        seen = _lldp(lab, device)
        if all(seen.get(port, set()) == peers for port, peers in want.items()):
            return
        if time.monotonic() > deadline:
            raise SeedError(f"{device}: LLDP neighbours {seen} did not become {want} in {timeout_s:.0f} s")
        time.sleep(0.3)


def _link(up: bool) -> Step:
    def step(lab: Lab, t: Target) -> None:
        port = port_of(t)
        netns.ip(["link", "set", lab.ifname(t.device, port), "up" if up else "down"], netns=lab.netns(t.device))
        _wait_lldp(lab, t.device, {port: {_peer_of(lab, t.device, port)} if up else set()})

    return step


# --- the fault records (catalogue.py orders them) -----------------------------------------------------


FAULTS: tuple[Fault, ...] = (
    Fault(
        name="cable-swap",
        title="Cabling swapped",
        how="two cables re-plugged into each other's ports (the veth ends in the switch swap names)",
        check="cabling.lldp",
        concern=Concern.CABLING_BGP,
        target=Target("leaf2", "Ethernet0"),
        platform=_SN,
        steps=Steps(seed=_swap(False), undo=_swap(True)),
        names=("device", "port"),
    ),
    Fault(
        name="link-down",
        title="Link down",
        how="a cable pulled (`ip link set <port> down` on the switch's veth end)",
        check="cabling.lldp",
        concern=Concern.CABLING_BGP,
        target=Target("leaf2", "Ethernet24"),
        platform=_SN,
        steps=Steps(seed=_link(False), undo=_link(True)),
        names=("device", "port"),
    ),
    Fault(
        name="bgp-shutdown",
        title="BGP session down",
        how="FRR `vtysh`: `neighbor <spine> shutdown`",
        check="bgp.sessions",
        concern=Concern.CABLING_BGP,
        target=Target("leaf1", "Ethernet40"),
        platform=_SN,
        steps=Steps(seed=_bgp_shutdown(False), undo=_bgp_shutdown(True)),
        names=("device", "port"),
        peers=("spine2",),
    ),
    Fault(
        name="bgp-wrong-asn",
        title="BGP neighbour with the wrong ASN",
        how="FRR `vtysh`: `neighbor <spine> remote-as 65999`",
        check="bgp.sessions",
        concern=Concern.CABLING_BGP,
        target=Target("leaf2", "Ethernet32"),
        platform=_SN,
        steps=Steps(seed=_bgp_asn(True), undo=_bgp_asn(False)),
        names=("device", "port"),
        peers=("spine1",),
    ),
    Fault(
        name="fib-bounce",
        title="Static host routes that bounce (PFC deadlock risk)",
        how="FRR `vtysh`: `ip route <own host>/32 <spine>` on two leaves, towards different spines",
        check="deadlock.cbd",
        concern=Concern.FORWARDING,
        target=Target("leaf1", None, 3),
        platform=_SN,
        steps=Steps(seed=fib_bounce.seed, undo=fib_bounce.undo),
        names=("device", "priority"),
        peers=("leaf2",),
    ),
)
