"""InfiniBand fault classes, seeded into a running IB lab (ibsim + the real OpenSM) the way they happen.

Everything goes through the subnet manager host, as an operator works on it: OpenSM's own files
(``opensm.conf``, ``partitions.conf``, an LFT file) edited in place, then ``kill -HUP`` (OpenSM re-reads
its files and runs a heavy sweep) or, for what OpenSM reads only at start (the routing engine), a
restart of OpenSM (stopped by PID, started again by ``lab up``); a port set through the SMP
(``ibportstate``, infiniband-diags) where the fault is the link's. ``undo`` puts each file back from
the copy ``seed`` kept and sweeps (or restarts) again; faults that edit one file are undone in the
reverse order of seeding (each copy is of the file as that fault found it). The fault records that
name the steps close the module.

ibsim 0.10 takes a PortInfo set of LinkWidthEnabled and retrains both ends of the link at that width
(a failed lane: the link comes up 1X); it does not change the active speed of an HDR link
(LinkSpeedExtEnabled sets are ignored for it), so the lab seeds a narrow link, not a slow one.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.desired.ib_guids import hca_port_guids
from xoff.lab import processes
from xoff.lab.disrupt import stop_process
from xoff.lab.faults.errors import SeedError
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import Concern, Fault, Steps, Target
from xoff.lab.lab import resolve, up
from xoff.lab.observe import run_in
from xoff.lab.state import LabState

if TYPE_CHECKING:
    from xoff.desired.models import SubnetManager

# a deadline, not a wait: each loop returns as soon as OpenSM has swept; under a loaded CI run (three workers, other
# labs beside this one) a sweep and the link retrain after it took over 30 s once (the IB fault suite, 2026-12-02)
SWEEP_TIMEOUT_S = 120.0
_BACKUP = ".xoff-fault-{tag}"
# PortInfo LinkWidthEnabled bits (IBA 14.2.5.6), as ibportstate prints and takes them
_WIDTH_BITS = {"1X": 1, "4X": 2, "8X": 4, "12X": 8, "2X": 16}


def _state(lab: Lab) -> LabState:
    """The lab's state read again: a restart of OpenSM changes its PID."""
    state = resolve(lab.name, lab.state.dir.parent)
    if state.ib is None:
        raise SeedError(f"lab {lab.name} has no InfiniBand fabric")
    return state


def _sm_dir(state: LabState) -> Path:
    assert state.ib is not None
    return Path(state.ib.opensm_log).parent


def _sm(lab: Lab) -> SubnetManager:
    sm = next((d.subnet_manager for d in lab.connection.fabric.devices.values() if d.subnet_manager), None)
    if sm is None:
        raise SeedError(f"lab {lab.name}: no device runs the subnet manager")
    return sm


def _sm_run(state: LabState, argv: list[str]) -> str:
    """A command on the SM host (its namespace, the diags attached to ibsim as the collector's are)."""
    assert state.ib is not None
    done = run_in(state, state.ib.sm_host, argv)
    if done.returncode != 0:
        raise SeedError(f"{state.ib.sm_host}: {' '.join(argv)} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return done.stdout


def _keep(path: Path, tag: str) -> None:
    backup = path.with_name(path.name + _BACKUP.format(tag=tag))
    if not backup.exists():
        shutil.copy2(path, backup)


def _put_back(path: Path, tag: str) -> None:
    backup = path.with_name(path.name + _BACKUP.format(tag=tag))
    if backup.exists():
        shutil.copy2(backup, path)
        backup.unlink()


def _set_option(path: Path, options: dict[str, str]) -> None:
    """``key value`` lines of opensm.conf replaced (or added at the end)."""
    text = path.read_text(encoding="utf-8")
    for key, value in options.items():
        text, n = re.subn(rf"^{re.escape(key)} .*$", f"{key} {value}", text, flags=re.M)
        if n == 0:
            text = text.rstrip("\n") + f"\n{key} {value}\n"
    path.write_text(text, encoding="utf-8")


def _resweep(lab: Lab) -> None:
    """``kill -HUP`` OpenSM on the SM host, then wait for the heavy sweep it runs to end (SUBNET UP)."""
    state = _state(lab)
    assert state.ib is not None
    log = Path(state.ib.opensm_log)
    offset = processes.size(log)
    _sm_run(state, ["kill", "-HUP", str(state.processes[f"{state.ib.sm_host}/opensm"].pid)])
    deadline = time.monotonic() + SWEEP_TIMEOUT_S
    while "SUBNET UP" not in log.read_bytes()[offset:].decode("utf-8", errors="replace"):
        if time.monotonic() > deadline:
            raise SeedError(f"{state.ib.sm_host}: no OpenSM sweep within {SWEEP_TIMEOUT_S:.0f} s of SIGHUP")
        time.sleep(0.1)


def _restart(lab: Lab) -> None:
    """Stop OpenSM by PID and let ``lab up`` start it again with the edited opensm.conf (it waits for SUBNET UP)."""
    state = _state(lab)
    assert state.ib is not None
    key = f"{state.ib.sm_host}/opensm"
    stop_process(state, key)
    report = up(Path(state.intent), lab.name, remap_addresses=bool(state.remap), root=state.dir.parent)
    if key not in report.started:
        raise SeedError(f"lab {lab.name}: OpenSM did not start again (started: {report.started})")


# --- the routing engine --------------------------------------------------------------------------


def engine(name: str) -> Steps:
    """opensm.conf ``routing_engine NAME`` (no ``no_fallback``), OpenSM restarted: it reads the engine at start."""

    def seed(lab: Lab, _t: Target) -> None:
        conf = _sm_dir(_state(lab)) / "opensm.conf"
        _keep(conf, "engine")
        _set_option(conf, {"routing_engine": name})
        _restart(lab)

    def undo(lab: Lab, _t: Target) -> None:
        _put_back(_sm_dir(_state(lab)) / "opensm.conf", "engine")
        _restart(lab)

    return Steps(seed=seed, undo=undo)


def _hole_destination(lab: Lab, t: Target) -> tuple[str, str, str]:
    """(host, netdev, port GUID) of the first host HCA not cabled to switch ``t.device``, not the SM's."""
    fabric = lab.connection.fabric
    sm_host = next(d.name for d in fabric.devices.values() if d.subnet_manager is not None)
    near = {lk.a.device for lk in fabric.links if lk.b.device == t.device}
    near |= {lk.b.device for lk in fabric.links if lk.a.device == t.device}
    for (host, netdev), guid in sorted(hca_port_guids(fabric).items()):
        if host not in near and host != sm_host:
            return host, netdev, guid
    raise SeedError(f"{t.device}: every host HCA is cabled to it; no route to take out")


def lft_hole_seed(lab: Lab, t: Target) -> None:
    """Routes pinned from an LFT file (``dump_fts`` taken now) that lacks one switch's entry for one host:
    OpenSM's ``file`` engine programs exactly that file, so the switch has no route to the host."""
    state = _state(lab)
    switch = lab.connection.fabric.devices.get(t.device)
    if switch is None or switch.guid is None:
        raise SeedError(f"{t.device}: not an InfiniBand switch with a GUID")
    _host, _netdev, port_guid = _hole_destination(lab, t)
    dump = _sm_run(state, ["dump_fts"])
    lines, block, dropped = [], "", 0
    for line in dump.splitlines():
        if line.startswith("Unicast lids"):
            block = line
        elif f" guid 0x{int(switch.guid, 16):016x} " in block and f"portguid 0x{int(port_guid, 16):016x}" in line:
            dropped += 1
            continue
        lines.append(line)
    if dropped != 1:
        raise SeedError(f"{t.device}: dump_fts has {dropped} entries for port GUID {port_guid}, not one")
    d = _sm_dir(state)
    (d / "lfts.dump").write_text("\n".join(lines) + "\n", encoding="utf-8")
    conf = d / "opensm.conf"
    _keep(conf, "lft")
    _set_option(conf, {"routing_engine": "file", "lfts_file": str(d / "lfts.dump")})
    _restart(lab)


def lft_hole_undo(lab: Lab, _t: Target) -> None:
    d = _sm_dir(_state(lab))
    _put_back(d / "opensm.conf", "lft")
    (d / "lfts.dump").unlink(missing_ok=True)
    _restart(lab)


# --- QoS: SL -> VL -> arbitration weight ---------------------------------------------------------


def vl_weight_seed(lab: Lab, _t: Target) -> None:
    """opensm.conf ``qos_swe_vlarb_low``: switch external ports get the intent's VL arbitration with the
    used SL's VL at weight 0 (OpenSM takes the per-port-type table over ``qos_vlarb_low``); SIGHUP."""
    sm = _sm(lab)
    vl = sm.sl2vl[sm.service_level]
    table = ",".join(f"{v}:{0 if v == vl else w}" for v, w in sm.vlarb_low)
    conf = _sm_dir(_state(lab)) / "opensm.conf"
    _keep(conf, "vlarb")
    _set_option(conf, {"qos_swe_vlarb_low": table})
    _resweep(lab)


def vl_weight_undo(lab: Lab, _t: Target) -> None:
    _put_back(_sm_dir(_state(lab)) / "opensm.conf", "vlarb")
    _resweep(lab)


# --- partitions ----------------------------------------------------------------------------------


def partition_drop_seed(lab: Lab, t: Target) -> None:
    """partitions.conf: the host's HCA port taken out of every partition but Default (its lines commented
    out, as an operator removing a host from a job does); SIGHUP."""
    port = t.port or "ib0"
    guid = hca_port_guids(lab.connection.fabric).get((t.device, port))
    if guid is None:
        raise SeedError(f"{t.device}: no InfiniBand HCA port {port}")
    path = _sm_dir(_state(lab)) / "partitions.conf"
    text = path.read_text(encoding="utf-8")
    pattern = rf"^(?!Default=)([^#\n]*0x{int(guid, 16):016x}[^\n]*)$"
    changed, n = re.subn(pattern, r"# \1", text, flags=re.M | re.I)
    if n == 0:
        raise SeedError(f"{t.device}: {port} is in no partition but Default")
    _keep(path, "pkey")
    path.write_text(changed, encoding="utf-8")
    _resweep(lab)


def partition_drop_undo(lab: Lab, _t: Target) -> None:
    _put_back(_sm_dir(_state(lab)) / "partitions.conf", "pkey")
    _resweep(lab)


# --- a link trained narrow -----------------------------------------------------------------------


def _link_ends(lab: Lab, state: LabState, t: Target) -> list[tuple[str, str]]:
    """(LID, port) of both ends of the switch-to-switch link at ``t``: LIDs from ``ibswitches``."""
    fabric = lab.connection.fabric
    link = next(
        (lk for lk in fabric.links if (t.device, t.port) in ((lk.a.device, lk.a.port), (lk.b.device, lk.b.port))), None
    )
    if link is None:
        raise SeedError(f"{t.device}: no link on port {t.port}")
    listing = _sm_run(state, ["ibswitches"])
    ends = []
    for end in (link.a, link.b):
        guid = fabric.devices[end.device].guid
        found = (
            re.search(rf"^Switch\s*:\s*0x{int(guid, 16):016x}\b.*\blid (\d+)", listing, flags=re.M) if guid else None
        )
        if found is None:
            raise SeedError(f"{end.device}: not an InfiniBand switch with a LID (this fault is seeded on switch links)")
        ends.append((found.group(1), end.port))
    return ends


def _kept_width(state: LabState, lid: str, port: str) -> Path:
    return _sm_dir(state) / f"width-{lid}-{port}{_BACKUP.format(tag='width')}"


def _set_widths(lab: Lab, state: LabState, widths: dict[tuple[str, str], str], active: str) -> None:
    """``ibportstate LID PORT width N`` at each end, then wait until both are ``active``: each set raises a
    trap, and OpenSM's sweep writes PortInfo back to the ports (ibsim retrains the link on every write)."""
    for (lid, port), enabled in widths.items():
        _sm_run(state, ["ibportstate", lid, port, "width", enabled])
    deadline = time.monotonic() + SWEEP_TIMEOUT_S
    while True:
        got = {
            end: re.search(r"^LinkWidthActive:\.*(\S+)", _sm_run(state, ["smpquery", "portinfo", *end]), flags=re.M)
            for end in widths
        }
        if all(m is not None and m.group(1) == active for m in got.values()):
            return
        if time.monotonic() > deadline:
            raise SeedError(f"{lab.name}: link not {active} after ibportstate width: {got}")
        time.sleep(0.2)


def narrow_seed(lab: Lab, t: Target) -> None:
    """``ibportstate LID PORT width 1`` at both ends: LinkWidthEnabled 1X, the link retrains 1X."""
    state = _state(lab)
    widths = {}
    for lid, port in _link_ends(lab, state, t):
        info = _sm_run(state, ["smpquery", "portinfo", lid, port])
        found = re.search(r"^LinkWidthEnabled:\.*(.+)$", info, flags=re.M)
        if found is None:
            raise SeedError(f"{t.device}: smpquery portinfo printed no LinkWidthEnabled")
        enabled = sum(_WIDTH_BITS.get(w.strip(), 0) for w in found.group(1).split(" or "))
        _kept_width(state, lid, port).write_text(str(enabled), encoding="utf-8")
        widths[(lid, port)] = "1"
    _set_widths(lab, state, widths, "1X")


def narrow_undo(lab: Lab, t: Target) -> None:
    state = _state(lab)
    widths = {}
    for lid, port in _link_ends(lab, state, t):
        kept = _kept_width(state, lid, port)
        widths[(lid, port)] = kept.read_text(encoding="utf-8").strip() if kept.exists() else str(_WIDTH_BITS["4X"])
    _set_widths(lab, state, widths, "4X")
    for lid, port in widths:
        _kept_width(state, lid, port).unlink(missing_ok=True)


# --- a host port left pointing at a former master SM ----------------------------------------------------


def _port_lid(state: LabState, guid: str) -> str:
    """The LID the SA has for an HCA port GUID (``ibaddr -G``: ``GID ... LID start 0x7 end 0x7``)."""
    found = re.search(r"LID start (0x[0-9a-fA-F]+)", _sm_run(state, ["ibaddr", "-G", f"0x{int(guid, 16):016x}"]))
    if found is None:
        raise SeedError(f"{state.ib.sm_host if state.ib else '?'}: ibaddr printed no LID for port GUID {guid}")
    return str(int(found.group(1), 16))


def _sm_lid_of(state: LabState, lid: str) -> str | None:
    found = re.search(r"^SMLid:\.*(\d+)", _sm_run(state, ["smpquery", "portinfo", lid, "1"]), flags=re.M)
    return found.group(1) if found else None


def _stale_ends(lab: Lab, t: Target) -> tuple[LabState, str, str]:
    """(state, the target HCA port's LID, the stale SM LID: another host's HCA port, where no SM runs)."""
    state = _state(lab)
    guids = hca_port_guids(lab.connection.fabric)
    guid = guids.get((t.device, t.port or "ib0"))
    if guid is None:
        raise SeedError(f"{t.device}: no InfiniBand HCA port {t.port or 'ib0'}")
    sm_host = state.ib.sm_host if state.ib else None
    other = next((g for (h, _), g in sorted(guids.items()) if h not in (t.device, sm_host)), None)
    if other is None:
        raise SeedError(f"lab {lab.name}: no other host HCA to have been the master SM")
    return state, _port_lid(state, guid), _port_lid(state, other)


def stale_sm_lid_seed(lab: Lab, t: Target) -> None:
    """``ibportstate LID 1 smlid STALE``: the host's PortInfo.MasterSMLID left at a host that is no SM (as after
    a failover the port missed); OpenSM's light sweeps do not rewrite it. Set again until it holds (a heavy
    sweep another fault started would write the master back)."""
    state, lid, stale = _stale_ends(lab, t)
    deadline = time.monotonic() + SWEEP_TIMEOUT_S
    while True:
        _sm_run(state, ["ibportstate", lid, "1", "smlid", stale])
        time.sleep(1.0)  # a heavy sweep in flight would write it back within this
        if _sm_lid_of(state, lid) == stale:
            return
        if time.monotonic() > deadline:
            raise SeedError(f"{t.device}: PortInfo.MasterSMLID of LID {lid} does not stay {stale}")


def stale_sm_lid_undo(lab: Lab, t: Target) -> None:
    """OpenSM's heavy sweep (SIGHUP) writes the master's LID back into every port's PortInfo."""
    _resweep(lab)
    state, lid, stale = _stale_ends(lab, t)
    if _sm_lid_of(state, lid) == stale:
        raise SeedError(f"{t.device}: the heavy sweep left PortInfo.MasterSMLID of LID {lid} at {stale}")


# --- the fault records (catalogue.py orders them) -----------------------------------------------------

_IB_LAB = "ib-ring"  # tests/fixtures/intents/ib-ring: minhop closes a credit loop on the ring, updn does not

FAULTS: tuple[Fault, ...] = (
    Fault(
        name="ib-routing-minhop",
        title="InfiniBand routing engine not deadlock-free for the topology",
        how="SM host: opensm.conf `routing_engine minhop` (no `no_fallback`) on the ring, OpenSM restarted",
        check="infiniband.routing_deadlock_free",
        concern=Concern.INFINIBAND,
        target=Target("sm01"),
        platform="linux",
        steps=engine("minhop"),
        names=("device",),
        lab=_IB_LAB,
        mentions=("credit loop", "VL 0"),
    ),
    Fault(
        name="ib-vl-weight-zero",
        title="Used SL on a VL with arbitration weight 0",
        how="SM host: opensm.conf `qos_swe_vlarb_low 0:0,1:64` (switch ports: the SL's VL0 at weight 0), `kill -HUP`",
        check="infiniband.sl_vl_weight",
        concern=Concern.INFINIBAND,
        target=Target("ibsw2", "5"),
        platform="infiniband",
        steps=Steps(seed=vl_weight_seed, undo=vl_weight_undo),
        names=("device", "port"),
        lab=_IB_LAB,
        mentions=("SL0 -> VL0",),
    ),
    Fault(
        name="ib-partition-drop",
        title="Host dropped from its job partition",
        how="SM host: the host's line commented out of partitions.conf, `kill -HUP` (OpenSM re-reads it and sweeps)",
        check="infiniband.partitions",
        concern=Concern.INFINIBAND,
        target=Target("gpu3", "ib0"),
        platform="linux",
        steps=Steps(seed=partition_drop_seed, undo=partition_drop_undo),
        names=("device", "port"),
        lab=_IB_LAB,
        mentions=("jobs",),
    ),
    Fault(
        name="ib-link-narrow",
        title="InfiniBand link trained at reduced width",
        how="SM host: `ibportstate <switch LID> 5 width 1` (LinkWidthEnabled 1X: the link retrains 1X, "
        "as with a failed lane)",
        check="infiniband.link_width_speed",
        concern=Concern.INFINIBAND,
        target=Target("ibsw3", "5"),
        platform="infiniband",
        steps=Steps(seed=narrow_seed, undo=narrow_undo),
        names=("device", "port"),
        peers=("ibsw4",),
        lab=_IB_LAB,
        mentions=("1X",),
    ),
    Fault(
        name="ib-lft-hole",
        title="A switch's LFT has no route to a host",
        how="SM host: routes pinned from a `dump_fts` file lacking ibsw4's entry for one host "
        "(opensm.conf `routing_engine file`, `lfts_file`), OpenSM restarted",
        check="infiniband.lft_routes",
        concern=Concern.INFINIBAND,
        target=Target("ibsw4"),
        platform="infiniband",
        steps=Steps(seed=lft_hole_seed, undo=lft_hole_undo),
        names=("device",),
        also=("infiniband.routing_deadlock_free",),
        why_also="OpenSM now routes with the `file` engine, which the intent does not list",
        lab=_IB_LAB,
        mentions=("no working route to gpu1 ib0",),
    ),
    Fault(
        name="ib-host-stale-sm-lid",
        title="A host's InfiniBand port points at an SM LID that is not the master",
        how="SM host: `ibportstate <host LID> 1 smlid <another host's LID>` (PortInfo.MasterSMLID left at a former "
        "master: the host's SA queries go nowhere); undone by OpenSM's heavy sweep (`kill -HUP`)",
        check="infiniband.host_ports",
        concern=Concern.INFINIBAND,
        target=Target("gpu3", "ib0"),
        platform="linux",
        steps=Steps(seed=stale_sm_lid_seed, undo=stale_sm_lid_undo),
        names=("device", "port"),
        also=("collect.complete",),
        why_also="sminfo on the host asks the SM at its port's SM LID, where none answers: the command fails",
        lab=_IB_LAB,
        mentions=("master SM",),
    ),
)
