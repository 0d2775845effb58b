"""``lab down``: remove a lab completely, and ``down --all``: every lab and any leftover.

``down`` ends the lab's processes by PID (clients before their servers) and then whatever still
runs inside its namespaces (SSH sessions, lldpd's privilege-separated child), deletes the
root-side interfaces and the namespaces by name, checks that nothing is left, and removes the lab
directory. Nothing is ever found by process name: a process belongs to a lab because ``lab.json``
records its PID and start time, or because it runs inside one of the lab's namespaces.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from xoff.lab import names, netns, processes, tenant_vrfs
from xoff.lab.lab import LabError, labs, locked, resolve
from xoff.lab.state import LabState, load
from xoff.progress import ProgressHook, no_progress, stage

BRIDGE_DRAIN_S = 3.0  # a deleted namespace's veths leave its lab's bridge asynchronously
VETH_DRAIN_S = 5.0  # ... and vanish from the root namespace


# Stopped in this order (a role in no group goes with the last, empty, group).
STOP_ORDER: tuple[tuple[str, ...], ...] = (
    ("opensm",),
    ("bgpd", "staticd", "lldpd", "sshd", "switch-ssh"),
    ("zebra", "ibsim"),
    (),
)


def _ordered(role: str) -> bool:
    return any(role in group for group in STOP_ORDER)


@dataclass
class DownReport:
    lab: str
    stopped: int = 0
    namespaces: int = 0
    interfaces: int = 0
    seconds: float = 0.0


def down(name: str | None = None, root: Path | None = None, progress: ProgressHook = no_progress) -> DownReport:
    """Remove the lab: processes (by PID), namespaces, bridge and veths, then its directory. ``progress`` hears the
    stages ``processes`` (a step per group stopped), ``namespaces`` (what still ran inside them stopped, then the batch
    that deletes them) and ``interfaces`` (the root side, then the check that nothing is left)."""
    t0 = time.perf_counter()
    if name is not None and load(names.lab_dir(names.check_lab_name(name), root)) is None:
        swept = sweep(names.namespace_prefix(name), lab=name, root=root)  # a crash before lab.json existed
        if not swept:
            raise LabError(f"no lab named {name!r} (labs up: {', '.join(labs(root)) or 'none'})")
        shutil.rmtree(names.lab_dir(name, root), ignore_errors=True)
        return DownReport(
            name, namespaces=sum(s.startswith("namespace") for s in swept), seconds=time.perf_counter() - t0
        )
    state = resolve(name, root)
    with locked(state.name, root, remove=True):
        report = _down(state, progress)
        shutil.rmtree(state.dir, ignore_errors=True)
    report.seconds = time.perf_counter() - t0
    return report


def _down(state: LabState, progress: ProgressHook = no_progress) -> DownReport:
    report = DownReport(state.name)
    records = list(state.processes.values())
    report.stopped = sum(processes.alive(r) for r in records)
    left: list[int] = []
    with stage(progress, "processes", len(STOP_ORDER)) as steps:
        for group in STOP_ORDER:  # clients before their servers: OpenSM waits for ibsim when it exits
            chosen = [r for r in records if r.role in group or (not group and not _ordered(r.role))]
            left += processes.stop(chosen)
            steps.step(", ".join(group) or "the rest", f"{len(chosen)} stopped")
    namespaces = [dr.netns for dr in state.devices.values() if netns.exists(dr.netns)]
    namespaces += [ns for dr in state.devices.values() for ns in tenant_vrfs.namespaces(dr.netns)]
    with stage(progress, "namespaces", 2) as steps:
        inside = [pid for pids in netns.pids_by_namespace(namespaces).values() for pid in pids]
        left += processes.stop_pids([(pid, processes.start_ticks(pid)) for pid in inside])  # all at once: one wait
        steps.step(f"{len(inside)} processes inside stopped")
        root_links = netns.links(None)
        veths = [dr.root_veth for dr in state.devices.values() if dr.root_veth in root_links]
        # Deleting a namespace (nothing runs in it any more) destroys its veths, the root-side ends
        # included, in one batch in the kernel: much faster than deleting them one by one.
        netns.ip_batch([f"netns del {ns}" for ns in namespaces], force=True)
        steps.step(f"{len(namespaces)} deleted")
    with stage(progress, "interfaces", 2) as steps:
        _drain(veths)
        left_ifaces = [i for i in veths if i in netns.links(None)]
        bridge = [state.bridge] if state.bridge in root_links else []
        netns.ip_batch([f"link del {i}" for i in left_ifaces + bridge], force=True)
        steps.step(f"{len(left_ifaces) + len(bridge)} removed")
        report.namespaces, report.interfaces = len(namespaces), len(veths) + len(bridge)
        leftovers = leftovers_of(state)
        steps.step("nothing left" if not leftovers and not left else "leftovers")
    if left:
        leftovers.append(f"processes {sorted(left)}")
    if leftovers:
        raise LabError(f"lab {state.name}: down left {'; '.join(leftovers)}")
    return report


def _drain(veths: list[str]) -> None:
    """Wait (a bounded while) until the root-side veths of deleted namespaces are gone."""
    deadline = time.monotonic() + VETH_DRAIN_S
    while time.monotonic() < deadline and set(veths) & netns.links(None):
        time.sleep(0.02)


def leftovers_of(state: LabState) -> list[str]:
    """What of the lab still exists: namespaces, root-side interfaces, live recorded processes."""
    out: list[str] = []
    ns_left = [dr.netns for dr in state.devices.values() if netns.exists(dr.netns)]
    root_links = netns.links(None)
    if_left = [i for i in [state.bridge, *(dr.root_veth for dr in state.devices.values())] if i in root_links]
    pids = [r.pid for r in state.processes.values() if processes.alive(r)]
    if ns_left:
        out.append(f"namespaces {ns_left}")
    if if_left:
        out.append(f"interfaces {if_left}")
    if pids:
        out.append(f"processes {pids}")
    return out


def down_all(root: Path | None = None, progress: ProgressHook = no_progress) -> list[str]:
    """Every lab under the labs directory, then anything else carrying the project's prefixes:
    namespaces ``xl-*`` (their processes first), root interfaces ``xlb<hash6>`` and ``xv<hash12>``."""
    done: list[str] = []
    for lab in labs(root):
        report = down(lab, root, progress)
        done.append(f"lab {report.lab}: {report.stopped} processes, {report.namespaces} namespaces")
    done += sweep(names.PREFIX)
    base = root or names.labs_root()
    if base.is_dir():
        for entry in base.iterdir():
            if entry.is_dir() and not (entry / "lab.json").exists():
                shutil.rmtree(entry, ignore_errors=True)
                done.append(f"directory {entry}")
    return done


def _bridge_ports(bridge: str) -> int:
    return len(netns.ip(["-o", "link", "show", "master", bridge], check=False).stdout.splitlines())


def sweep(prefix: str, lab: str | None = None, root: Path | None = None) -> list[str]:
    """Remove namespaces starting with ``prefix`` (ending their processes by PID first), except those
    of labs that are up under other names; their veths go with them. Then the bridges: for ``lab``,
    its own; for the project's prefix, every ``xlb<hash6>`` left without ports (a bridge with ports
    belongs to a lab that still has namespaces)."""
    others = {dr.netns for other in labs(root) if other != lab for dr in resolve(other, root).devices.values()}
    found = [ns for ns in netns.names(prefix) if ns not in others]
    done: list[str] = []
    for ns in found:
        processes.stop_namespace(ns)
        holders = netns.socket_pids(ns)  # e.g. the switch SSH server of a lab whose lab.json is lost
        processes.stop_pids([(pid, processes.start_ticks(pid)) for pid in holders])
        netns.ip(["netns", "del", ns], check=False)
        done.append(f"namespace {ns}")
    root_links = netns.links(None)
    if lab is not None:
        mine = {names.bridge(lab), *(names.root_veth(lab, ns[len(prefix) :]) for ns in found)}
        doomed = sorted(mine & root_links)
    elif prefix == names.PREFIX:
        bridges = [i for i in root_links if names.BRIDGE_RE.match(i)]
        deadline = time.monotonic() + BRIDGE_DRAIN_S
        while any(_bridge_ports(b) for b in bridges) and time.monotonic() < deadline:
            time.sleep(0.05)
        doomed = sorted(b for b in bridges if not _bridge_ports(b))
    else:
        doomed = []
    for ifname in doomed:
        netns.ip(["link", "del", ifname], check=False)
        done.append(f"interface {ifname}")
    return done
