"""The ``fib-bounce`` fault: two leaves each get a static host route for one of their own hosts pointing
up to a spine (a typo'd /32), typed into FRR with ``vtysh`` as an operator would on SONiC or Cumulus.

The /32 beats the connected /31, so traffic for that host arriving from a spine goes back up (a
down -> up turn); with one such route per leaf towards different spines the buffers close
leaf1 -> spine1 -> leaf2 -> spine2 -> leaf1 (the static-bounce test intent, deadlock.md §3.4).

Static routes are staticd's: real SONiC (bgp container) and Cumulus run it beside zebra and bgpd; the
lab's FRR has zebra and bgpd only, so the seed starts the device's staticd (its own pid, log and vty
socket in the device's FRR directory, the device's zserv socket) and the undo stops it by PID.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.lab import daemons, processes
from xoff.lab.processes import ProcessSpec

if TYPE_CHECKING:
    from xoff.lab.seed import Lab, Target

STATICD = "/usr/lib/frr/staticd"
READY_S = 10.0
MARK = "staticd.xoff-fault"  # (pid, start ticks) of the staticd the seed started


def _error(message: str) -> Exception:
    from xoff.lab.seed import SeedError  # noqa: PLC0415 - seed imports this module

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


def _frr_dir(lab: Lab, device: str) -> Path:
    return daemons.frr_dir(lab.state.dir, device)


def start_staticd(lab: Lab, device: str) -> None:
    d = _frr_dir(lab, device)
    if (d / MARK).exists():
        return
    conf = d / "staticd.conf"
    conf.write_text(f"hostname {device}\n", encoding="utf-8")
    conf.chmod(0o644)
    spec = ProcessSpec(
        key=f"{device}/staticd",
        role="staticd",
        device=device,
        netns=lab.netns(device),
        argv=[STATICD, "-f", str(conf), "-i", str(d / "staticd.pid"), "-P", "0", "-z", str(d / "zserv.api"),
              "--vty_socket", str(d), "--log", f"file:{d / 'staticd.log'}"],
        log=d / "staticd.out",
        ready_file=d / "staticd.vty",
        stale=(d / "staticd.vty", d / "staticd.pid"),
    )  # fmt: skip
    record = processes.start(spec)
    (d / MARK).write_text(json.dumps([record.pid, record.start_ticks]), encoding="utf-8")
    processes.wait_for(f"{device}/staticd", lambda: processes.is_ready(spec, 0), READY_S, [record])


def stop_staticd(lab: Lab, device: str) -> None:
    mark = _frr_dir(lab, device) / MARK
    if not mark.exists():
        return
    pid, ticks = json.loads(mark.read_text(encoding="utf-8"))
    left = processes.stop_pids([(int(pid), int(ticks))])
    if left:
        raise _error(f"{device}: staticd (PID {pid}) did not stop")
    mark.unlink()


def seed(lab: Lab, t: Target) -> None:
    for leaf, prefix, hop in routes(lab, t):
        start_staticd(lab, leaf)
        _vtysh(lab, leaf, f"ip route {prefix} {hop}")


def undo(lab: Lab, t: Target) -> None:
    for leaf, prefix, hop in routes(lab, t):
        if (_frr_dir(lab, leaf) / MARK).exists():
            _vtysh(lab, leaf, f"no ip route {prefix} {hop}")
        stop_staticd(lab, leaf)
