"""``lab up``: make a fabric's lab exist, and say what was done (``teardown.py`` undoes it).

``up`` is a reconciliation: it creates what is missing (namespaces, bridge, veths, processes that
are not alive) and keeps what exists, so a second ``up`` starts nothing and a lab whose daemon died
gets that daemon back. ``lab.json`` is saved before each step acts, so ``down`` can remove exactly
what exists even after a crash half way.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from ipaddress import IPv4Interface, IPv4Network, ip_network
from pathlib import Path

from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.lab import credentials, daemons, names, neighbours, netns, processes, tenant_vrfs
from xoff.lab.gnmi import lab as gnmi_lab
from xoff.lab.processes import ProcessSpec
from xoff.lab.remap import LAB_SAFE_TEXT, Management, remap, unsafe
from xoff.lab.state import FABRIC_FILE, DeviceRecord, IbRecord, LabState, LinkRecord, load, save, write_atomic
from xoff.lab.topology import LabPlan, device_commands, plan, root_commands
from xoff.progress import ProgressHook, Stage, no_progress, stage

LOCK_TIMEOUT_S = 120.0
READY_TIMEOUT_S = 20.0
OPENSM_TIMEOUT_S = 60.0
WORKERS = 8


class LabError(RuntimeError):
    """The lab cannot do what was asked; the message says why and what to do."""


class UnsafeAddressError(LabError):
    """Bad input: the intent's addresses are outside the lab-safe ranges and --remap was not given."""


@dataclass
class UpReport:
    lab: str
    lab_dir: Path
    created: dict[str, int] = field(default_factory=dict)  # what -> how many were made now
    started: list[str] = field(default_factory=list)  # process keys started now
    kept: list[str] = field(default_factory=list)  # process keys already running
    remap: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # seconds per step: plan, topology, shims, processes

    @property
    def changed(self) -> bool:
        return bool(self.started or any(self.created.values()))


# --- locating labs ---------------------------------------------------------------------------------


def labs(root: Path | None = None) -> list[str]:
    base = root or names.labs_root()
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if (p / "lab.json").exists())


def resolve(name: str | None, root: Path | None = None) -> LabState:
    """The lab called ``name``, or the only lab that is up."""
    if name is None:
        found = labs(root)
        if not found:
            raise LabError("no lab is up (xoff lab up INTENT)")
        if len(found) > 1:
            raise LabError(f"several labs are up ({', '.join(found)}): say which with --name")
        name = found[0]
    state = load(names.lab_dir(name, root))
    if state is None:
        raise LabError(f"no lab named {name!r} (labs up: {', '.join(labs(root)) or 'none'})")
    return state


@contextmanager
def locked(lab: str, root: Path | None, remove: bool = False) -> Iterator[None]:
    base = root or names.labs_root()
    base.mkdir(parents=True, exist_ok=True, mode=0o755)
    path = base / f".{lab}.lock"
    with _flocked(path, f"lab {lab}: another xoff lab command holds {path}"):
        yield
        if remove:  # the lab is gone: so is its lock file
            path.unlink(missing_ok=True)


@contextmanager
def addresses_claimed() -> Iterator[None]:
    """Held by a lab coming up from the choice of its addresses until its management bridge has them: the choice
    reads the root namespace's networks, so two labs coming up at once (in different lab directories too) could
    otherwise both find one block free and both take it. Machine-wide, as the root namespace is."""
    base = Path("/run/lock") if Path("/run/lock").is_dir() else Path(tempfile.gettempdir())
    path = base / "xoff-lab-addresses.lock"
    with _flocked(path, f"another xoff lab coming up holds {path} (its addresses not yet on its bridge)"):
        yield


@contextmanager
def _flocked(path: Path, busy: str) -> Iterator[None]:
    with path.open("a") as f:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LabError(busy) from None
                time.sleep(0.1)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


# --- up --------------------------------------------------------------------------------------------


def _root_networks() -> list[tuple[str, IPv4Network]]:
    """(interface, network) of every IPv4 address and route in the root namespace."""
    out: list[tuple[str, IPv4Network]] = []
    for item in json.loads(netns.ip(["-j", "-4", "addr", "show"]).stdout or "[]"):
        for a in item.get("addr_info", []):
            out.append((item["ifname"], IPv4Interface(f"{a['local']}/{a['prefixlen']}").network))
    for r in json.loads(netns.ip(["-j", "-4", "route", "show", "table", "all"]).stdout or "[]"):
        dst = r.get("dst", "")
        if dst and dst != "default" and r.get("type", "unicast") == "unicast":
            net = ip_network(dst if "/" in dst else f"{dst}/32", strict=False)
            if isinstance(net, IPv4Network):
                out.append((r.get("dev", "?"), net))
    return out


def _load_intent(intent: Path) -> tuple[FabricState, Management]:
    loaded = load_intent(intent)
    mgmt = loaded.document.networks.management
    return build_fabric_state(loaded), Management(prefix=mgmt.prefix, gateway=mgmt.gateway)


def _digest(fabric: FabricState) -> str:
    return hashlib.sha256(fabric.model_dump_json().encode()).hexdigest()


def _new_state(lab: str, intent: Path, d: Path, fabric: FabricState, p: LabPlan, digest: str) -> LabState:
    return LabState(
        name=lab,
        fabric=fabric.fabric,
        intent=str(intent.resolve()),
        intent_digest=digest,
        lab_dir=str(d),
        bridge=p.bridge,
        controller_address=p.controller_address,
        mgmt_prefix=str(p.mgmt_prefix),
        created_at=time.time(),
    )


def up(
    intent: Path,
    name: str | None = None,
    *,
    remap_addresses: bool = False,
    root: Path | None = None,
    progress: ProgressHook = no_progress,
) -> UpReport:
    """Bring the lab of ``intent`` up (or complete it); see the module doc. ``progress`` hears the stages ``plan``,
    ``topology`` (a step per device whose namespace and veths were set up), ``shims`` (per host) and ``daemons`` (per
    process ready)."""
    t0 = time.perf_counter()
    fabric, management = _load_intent(intent)
    digest = _digest(fabric)
    lab = names.check_lab_name(name or names.lab_name(fabric.fabric))
    d = names.lab_dir(lab, root)
    _preflight(fabric, d)
    report = UpReport(lab, d)
    with locked(lab, root):
        with ExitStack() as claim:
            claim.enter_context(addresses_claimed())
            with stage(progress, "plan"):
                state, fabric, p = _planned(lab, intent, d, fabric, management, digest, remap_addresses, report)
            t1 = time.perf_counter()
            report.phases["plan"] = t1 - t0
            fresh = _make_topology(p, report, progress, root_done=claim.close)
        for n, dp in p.devices.items():
            if dp.kind == "switch":
                tenant_vrfs.set_up(fabric.devices[n], dp)
        t2 = time.perf_counter()
        report.phases["topology"] = t2 - t1
        hosts = [fabric.devices[n] for n in fresh if p.devices[n].kind == "host"]
        server = daemons.shim_server(d) if any(dp.kind == "host" for dp in p.devices.values()) else None
        with stage(progress, "shims", len(hosts)) as steps, ThreadPoolExecutor(WORKERS) as pool:
            # file writing: threads overlap its system calls
            installed = pool.map(lambda host: daemons.install_shims(d, host, server), hosts)
            for host, warning in zip(hosts, installed, strict=True):
                steps.step(host.name)
                if warning and warning not in state.warnings:
                    state.warnings.append(warning)
        t3 = time.perf_counter()
        report.phases["shims"] = t3 - t2
        _start_processes(state, fabric, p, report, progress, shim_server=server is not None)
        report.phases["processes"] = time.perf_counter() - t3
        report.warnings = list(state.warnings)
        save(state)
    # the kernel's neighbour tables are the machine's, not the lab's: said on this run, not kept in the lab's state
    report.warnings += [f"{r} (the neighbour table every namespace shares)" for r in neighbours.make_room()]
    report.seconds = time.perf_counter() - t0
    return report


def _planned(
    lab: str,
    intent: Path,
    d: Path,
    fabric: FabricState,
    management: Management,
    digest: str,
    remap_addresses: bool,
    report: UpReport,
) -> tuple[LabState, FabricState, LabPlan]:
    """The lab's state (new, or the running one's when the intent is the same), its fabric and plan, recorded."""
    state = load(d)
    if state is not None:
        if state.intent_digest != digest:
            raise LabError(
                f"lab {lab} runs {state.fabric} from {state.intent} as it was then; the intent differs now: "
                f"xoff lab down --name {lab} first"
            )
        fabric = FabricState.model_validate_json((d / FABRIC_FILE).read_text(encoding="utf-8"))
        management = Management(IPv4Network(state.mgmt_prefix), IPv4Interface(state.controller_address).ip)
        blocks = list(state.remap)
    else:
        fabric, management, blocks = _addresses(fabric, management, remap_addresses)
    report.remap = [f"{a} -> {b}" for a, b in blocks]
    p = plan(lab, fabric, management)
    if state is None:
        _check_free(p)
        d.mkdir(parents=True, exist_ok=True, mode=0o755)
        write_atomic(d / FABRIC_FILE, fabric.model_dump_json(indent=1) + "\n")
        state = _new_state(lab, intent, d, fabric, p, digest)
        state.remap = blocks
    _record_topology(state, p)
    save(state)
    ssh = {n: dp.mgmt_address.split("/")[0] for n, dp in p.devices.items() if dp.kind in {"switch", "host"}}
    switches = {n for n, dp in p.devices.items() if dp.kind == "switch"}
    credentials.ensure(d, lab, ssh, switches)
    return state, fabric, p


def _preflight(fabric: FabricState, d: Path) -> None:
    if os.geteuid() != 0:
        raise LabError("the lab needs root (network namespaces, veths, daemons in namespaces)")
    missing = daemons.missing_tools(any(n.kind == "infiniband" for n in fabric.networks.values()))
    if missing:
        raise LabError(f"missing: {', '.join(missing)}; install them (Debian: apt-get install <package>)")
    if any(ch.isspace() for ch in str(d)):
        raise LabError(f"{d}: the lab directory may not contain blanks (sshd_config and FRR paths)")


def _addresses(
    fabric: FabricState, management: Management, remap_addresses: bool
) -> tuple[FabricState, Management, list[tuple[str, str]]]:
    if remap_addresses:
        moved = remap(fabric, management, avoid=[n for _, n in _root_networks()])
        return moved.fabric, moved.management, [(str(a), str(b)) for a, b in moved.blocks]
    bad = unsafe(fabric, management)
    if bad:
        shown = ", ".join(bad[:8]) + (f" and {len(bad) - 8} more" if len(bad) > 8 else "")
        raise UnsafeAddressError(
            f"{fabric.fabric}: addresses outside the lab-safe ranges ({LAB_SAFE_TEXT}): "
            f"{shown}; use --remap to map them into 198.18.0.0/15"
        )
    return fabric, management, []


def _check_free(p: LabPlan) -> None:
    """The management prefix goes on the root namespace's bridge: nothing there may overlap it."""
    for ifname, net in _root_networks():
        if ifname != p.bridge and net.overlaps(p.mgmt_prefix):
            raise UnsafeAddressError(
                f"management prefix {p.mgmt_prefix} overlaps {net} on {ifname}, this machine's own "
                "(or another lab's): use --remap to map the intent into free blocks of 198.18.0.0/15"
            )


def _record_topology(state: LabState, p: LabPlan) -> None:
    for n, dp in p.devices.items():
        state.devices[n] = DeviceRecord(
            name=n,
            kind=dp.kind,
            platform=dp.platform,
            role=dp.role,
            netns=dp.netns,
            mgmt_port=dp.mgmt_port,
            mgmt_ifname=dp.mgmt_ifname,
            mgmt_address=dp.mgmt_address,
            root_veth=dp.root_veth,
            dir=str(daemons.device_dir(state.dir, n)),
        )
    state.links = [
        LinkRecord(
            a_device=lk.a.device,
            a_port=lk.a.port,
            a_ifname=lk.a.ifname,
            b_device=lk.b.device,
            b_port=lk.b.port,
            b_ifname=lk.b.ifname,
            network=lk.network,
        )
        for lk in p.links
    ]


def _make_topology(
    p: LabPlan, report: UpReport, progress: ProgressHook = no_progress, root_done: Callable[[], None] = lambda: None
) -> list[str]:
    """Create what is missing; returns the devices whose namespace is new. ``root_done``: called once the root
    namespace has what the lab puts there (the bridge and its addresses), before the namespaces are configured."""
    root_links = netns.links(None)
    fresh = [n for n, dp in p.devices.items() if not netns.exists(dp.netns)]
    mgmt = [n for n, dp in p.devices.items() if n in fresh or dp.root_veth not in root_links]
    present: dict[str, set[str]] = {}

    def has(device: str, ifname: str) -> bool:
        if device in fresh:
            return False
        if device not in present:  # a tenant port lives in its VRF's namespace (tenant_vrfs)
            ns = p.devices[device].netns
            present[device] = netns.links(ns).union(*(netns.links(v) for v in tenant_vrfs.namespaces(ns)))
        return ifname in present[device]

    links = [lk for lk in p.links if not has(lk.a.device, lk.a.ifname)]
    ipoib = {n: [s for s in dp.ipoib.values() if not has(n, s.ifname)] for n, dp in p.devices.items() if dp.ipoib}
    ipoib = {n: stand_ins for n, stand_ins in ipoib.items() if stand_ins}
    bridge_exists = p.bridge in root_links
    netns.ip_batch(root_commands(p, fresh, bridge_exists, mgmt, links))
    root_done()
    new_ports: dict[str, list[str]] = {}
    for lk in links:
        new_ports.setdefault(lk.a.device, []).append(lk.a.port)
        new_ports.setdefault(lk.b.device, []).append(lk.b.port)

    def configure(device: str) -> None:
        dp = p.devices[device]
        ports = [dp.ports[port] for port in new_ports.get(device, [])]
        lines = device_commands(
            dp, fresh=device in fresh, mgmt=device in mgmt, ports=ports, ipoib=ipoib.get(device, [])
        )
        netns.ip_batch(lines, netns=dp.netns)
        if device in fresh and dp.forwarding:
            with netns.entered(dp.netns):
                Path("/proc/sys/net/ipv4/ip_forward").write_text("1", encoding="ascii")

    todo = sorted(set(fresh) | set(mgmt) | set(new_ports) | set(ipoib))
    with stage(progress, "topology", len(todo)) as steps, ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(lambda device: _stepped(steps, device, configure), todo))
    report.created = {
        "namespaces": len(fresh),
        "bridge": 0 if bridge_exists else 1,
        "mgmt veths": len(mgmt),
        "link veths": len(links),
    }
    if any(dp.ipoib for dp in p.devices.values()):  # a fabric with InfiniBand hosts
        report.created["IPoIB stand-ins"] = sum(map(len, ipoib.values()))
    return fresh


def _stepped(steps: Stage, device: str, work: Callable[[str], None]) -> None:
    work(device)
    steps.step(device)


def _specs(state: LabState, fabric: FabricState, p: LabPlan, shim_server: bool = False) -> list[list[ProcessSpec]]:
    """The lab's processes in start order: each phase is started together, then waited for."""
    d = state.dir
    frr = [
        daemons.frr_specs(d, fabric.devices[n], fabric, dp)
        for n, dp in p.devices.items()
        if dp.kind == "switch" and fabric.devices[n].bgp
    ]
    phases: list[list[ProcessSpec]] = [[zebra for zebra, *_ in frr]]
    hosts = [dp.netns for dp in p.devices.values() if dp.kind == "host"]
    if shim_server and hosts:  # before the hosts' sshd (a wrapper without it runs the interpreter itself)
        phases[0].append(daemons.shim_server_spec(d, hosts[0]))
    second = [s for _, *others in frr for s in others]  # bgpd, staticd: they connect to zebra
    second += [daemons.lldpd_spec(d, dp) for dp in p.devices.values() if dp.kind in {"switch", "host"}]
    second += [daemons.sshd_spec(d, dp) for dp in p.devices.values() if dp.kind == "host"]
    switches = sum(dp.kind == "switch" for dp in p.devices.values())
    if switches:
        second += daemons.switch_ssh_specs(d, switches)
        second += gnmi_lab.specs(d, [(n, dp.platform) for n, dp in p.devices.items() if dp.kind == "switch"])
    phases.append(second)
    sm = next((dev.name for dev in fabric.devices.values() if dev.subnet_manager is not None), None)
    if sm is not None and any(net.kind == "infiniband" for net in fabric.networks.values()):
        ib, info = daemons.ib_specs(d, fabric, sm, p.devices[sm].netns)
        state.ib = IbRecord(sm_host=sm, **info)
        phases += [[ib[0]], [ib[1]]]
    return phases


def _start_processes(
    state: LabState,
    fabric: FabricState,
    p: LabPlan,
    report: UpReport,
    progress: ProgressHook = no_progress,
    *,
    shim_server: bool = False,
) -> None:
    phases = _specs(state, fabric, p, shim_server)
    with stage(progress, "daemons", sum(map(len, phases))) as steps:
        for phase in phases:
            _start_phase(state, phase, report, steps)


def _start_phase(state: LabState, phase: list[ProcessSpec], report: UpReport, steps: Stage) -> None:
    """Start one phase's processes together, then wait until each is ready (a step as each one is)."""
    waiting: list[tuple[ProcessSpec, int]] = []
    try:
        for spec in phase:
            old = state.processes.get(spec.key)
            if old is not None and processes.alive(old):
                report.kept.append(spec.key)
                steps.step(spec.key, "already running")
                continue
            offset = processes.size(spec.ready_text[0]) if spec.ready_text else 0
            state.processes[spec.key] = processes.start(spec)
            report.started.append(spec.key)
            waiting.append((spec, offset))
    finally:
        save(state)  # what started is recorded before anything waits (or after a failed start)
    timeout = OPENSM_TIMEOUT_S if any(s.role == "opensm" for s, _ in waiting) else READY_TIMEOUT_S
    records = [state.processes[s.key] for s, _ in waiting]
    pending = list(waiting)

    def ready() -> bool:
        still = [(s, o) for s, o in pending if not processes.is_ready(s, o)]
        left = {s.key for s, _ in still}
        for spec, _offset in pending:
            if spec.key not in left:
                steps.step(spec.key)
        pending[:] = still
        return not pending

    processes.wait_for(f"lab {state.name}", ready, timeout, records)
