"""The ``fib-bounce`` fault: two leaves each get a static host route for one of their own hosts pointing
up to a spine (a typo'd /32), typed into FRR with ``vtysh`` as an operator would on SONiC or Cumulus.

The /32 beats the connected /31, so traffic for that host arriving from a spine goes back up (a
down -> up turn); with one such route per leaf towards different spines the buffers close
leaf1 -> spine1 -> leaf2 -> spine2 -> leaf1 (the static-bounce test intent, deadlock.md §3.4).

Static routes are staticd's: real SONiC (bgp container) and Cumulus run it beside zebra and bgpd, and so
does the lab (``daemons.frr_specs``); the seed types the routes into it and the undo removes them.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xoff.lab.faults.reach import Lab
    from xoff.lab.faults.record import Target


def _error(message: str) -> Exception:
    from xoff.lab.faults.errors import SeedError  # noqa: PLC0415 - lazily, as the steps are only needed when seeding

    return SeedError(message)


def routes(lab: Lab, t: Target) -> list[tuple[str, str, str]]:
    """(leaf, host /32, next hop): the target leaf and the next leaf of its network, each with the
    first host endpoint it serves, towards its first and second spine respectively."""
    fabric = lab.connection.fabric
    me = fabric.devices.get(t.device)
    if me is None or me.role != "leaf":
        raise _error(f"{t.device}: fib-bounce is seeded on a leaf")
    leaves = sorted(d.name for d in fabric.devices.values() if d.role == "leaf" and d.network == me.network)
    pair = [t.device, next((x for x in leaves if x != t.device), "")]
    if not pair[1]:
        raise _error(f"{t.device}: fib-bounce needs a second leaf in network {me.network}")
    out = []
    for index, leaf in enumerate(pair):
        dev = fabric.devices[leaf]
        spines = sorted(
            (i.peer.device, n) for n, i in dev.interfaces.items() if i.peer and i.peer.device in _spines(lab)
        )
        hosts = sorted(
            (i.peer.device, i.peer.port) for i in dev.interfaces.values() if i.peer and _is_host(lab, i.peer.device)
        )
        if len(spines) < 2 or not hosts:
            raise _error(f"{leaf}: fib-bounce needs two spines and a host on the leaf")
        spine, port = spines[index % len(spines)]
        peer = dev.interfaces[port].peer
        assert peer is not None
        hop = fabric.devices[spine].interfaces[peer.port].addresses[0].split("/")[0]
        host, netdev = hosts[0]
        nic = fabric.devices[host].host.nics[netdev]  # type: ignore[union-attr]
        if nic.address is None:
            raise _error(f"{host}:{netdev}: no address to route")
        out.append((leaf, nic.address.split("/")[0] + "/32", hop))
    return out


def _spines(lab: Lab) -> set[str]:
    return {d.name for d in lab.connection.fabric.devices.values() if d.role == "spine"}


def _is_host(lab: Lab, name: str) -> bool:
    return lab.connection.fabric.devices[name].kind == "host"


def _vtysh(lab: Lab, device: str, *lines: str) -> None:
    lab.run(device, "vtysh " + " ".join(f"-c {shlex.quote(ln)}" for ln in ("configure terminal", *lines)))


def seed(lab: Lab, t: Target) -> None:
    for leaf, prefix, hop in routes(lab, t):
        _vtysh(lab, leaf, f"ip route {prefix} {hop}")


def undo(lab: Lab, t: Target) -> None:
    for leaf, prefix, hop in routes(lab, t):
        _vtysh(lab, leaf, f"no ip route {prefix} {hop}")
