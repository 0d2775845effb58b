"""How the lab seeds faults: reaching a device the way an operator does, and the seed/undo steps per
kind of device (SONiC apply-patch with a checkpoint, SONiC CLI, EOS, NVUE, FRR, host NIC tools and files,
the shims' hardware state, cabling, the ASIC counters the SONiC emulator holds).

The fault classes themselves (which step, which check must catch it) are the registry in ``seed.py``.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paramiko  # type: ignore[import-untyped]

from xoff.buffers.asics import get_asic
from xoff.connect.credentials import load_credentials
from xoff.connect.targets import from_lab
from xoff.lab import netns, observe
from xoff.lab.lab import resolve
from xoff.lab.shims._state import HostRoot
from xoff.lab.shims.seed import ACS_CTL_ON
from xoff.lab.state import LabState


class SeedError(RuntimeError):
    """The device refused the fault (or its undo): nothing was seeded, or the lab needs a push."""


@dataclass(frozen=True)
class Target:
    """Where a fault goes: a device, and the port and priority when the fault class has them."""

    device: str
    port: str | None = None
    priority: int | None = None


# --- reaching a device the way an operator does -----------------------------------------------------


class Lab:
    """A running lab: its state, and SSH to its devices with the lab's credentials and host keys."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.state: LabState = resolve(name)
        self.connection = from_lab(name)
        self.creds = load_credentials(self.connection.secrets_file)

    def _client(self, device: str) -> paramiko.SSHClient:
        dev = self.connection.fabric.devices[device]
        creds = self.creds.for_device(dev.platform, dev.kind)
        if creds is None:
            raise SeedError(f"{device}: no credentials in lab {self.name}")
        client = paramiko.SSHClient()
        client.load_host_keys(str(self.connection.known_hosts))
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
        client.connect(
            dev.mgmt_address.split("/")[0],
            username=creds.username,
            password=creds.password,
            key_filename=str(creds.key_file) if creds.key_file is not None else None,
            look_for_keys=False,
            allow_agent=False,
            timeout=20,
        )
        return client

    def run(self, device: str, command: str) -> str:
        """``ssh device COMMAND`` (an exec channel); SeedError on a non-zero exit status."""
        client = self._client(device)
        try:
            _, stdout, stderr = client.exec_command(command, timeout=30)
            out = stdout.read().decode("utf-8", errors="replace")
            err = stderr.read().decode("utf-8", errors="replace")
            status = stdout.channel.recv_exit_status()
        finally:
            client.close()
        if status != 0:
            raise SeedError(f"{device}: {command.splitlines()[0]!r} exited {status}: {(err or out).strip()[-300:]}")
        return str(out)

    def type_in(self, device: str, lines: list[str]) -> str:
        """Lines typed into the device's CLI without a terminal (``ssh -T device < lines``)."""
        client = self._client(device)
        try:
            channel = client.get_transport().open_session()
            channel.settimeout(30)
            channel.invoke_shell()
            channel.sendall(("\n".join(lines) + "\n").encode())
            channel.shutdown_write()
            chunks = []
            while data := channel.recv(65536):
                chunks.append(data)
        finally:
            client.close()
        out = b"".join(chunks).decode("utf-8", errors="replace")
        if "% " in out:  # EOS: "% Invalid input", "% Incomplete command"
            raise SeedError(f"{device}: refused: {next(ln for ln in out.splitlines() if '% ' in ln).strip()}")
        return out

    def device_dir(self, device: str) -> Any:
        return self.state.dir / "devices" / device

    def netns(self, device: str) -> str:
        return self.state.devices[device].netns

    def ifname(self, device: str, port: str) -> str:
        names = {p: i for i, p in self.state.ifname_to_port(device).items()}
        if port not in names:
            raise SeedError(f"{device}: no cabled port {port!r} in lab {self.name}")
        return str(names[port])


def _target_port(t: Target) -> str:
    if t.port is None:
        raise SeedError(f"{t.device}: this fault needs a port")
    return t.port


def _priority(t: Target, default: int = 3) -> int:
    return default if t.priority is None else t.priority


# --- SONiC: config apply-patch with a checkpoint to roll back to ------------------------------------


def _sonic_patch(lab: Lab, t: Target, ops: list[dict[str, Any]], tag: str) -> None:
    """``config checkpoint`` then ``config apply-patch`` (YANG-validated as a whole by the switch)."""
    patch = json.dumps(ops, indent=1)
    lab.run(
        t.device,
        f"sudo config checkpoint xoff-fault-{tag}\ncat > /tmp/xoff-fault-{tag}.json <<'EOF'\n{patch}\nEOF\n"
        f"sudo config apply-patch /tmp/xoff-fault-{tag}.json",
    )


def _sonic_rollback(lab: Lab, t: Target, tag: str) -> None:
    lab.run(t.device, f"sudo config rollback xoff-fault-{tag} && sudo config delete-checkpoint xoff-fault-{tag}")


def _sonic_db(lab: Lab, device: str) -> dict[str, Any]:
    out = lab.run(device, "show runningconfiguration all")
    data: dict[str, Any] = json.loads(out)
    return data


SonicOps = Callable[[Lab, Target, dict[str, Any]], list[dict[str, Any]]]
Where = Callable[[Target, dict[str, Any]], list[str]]  # JSON-patch paths, from the target and CONFIG_DB
Value = Callable[[Target, dict[str, Any]], Any]


def sonic_fault(tag: str, ops: SonicOps) -> tuple[Seed, Undo]:
    def seed(lab: Lab, t: Target) -> None:
        _sonic_patch(lab, t, ops(lab, t, _sonic_db(lab, t.device)), tag)

    def undo(lab: Lab, t: Target) -> None:
        _sonic_rollback(lab, t, tag)

    return seed, undo


@dataclass(frozen=True)
class Edit:
    """One row of a SONiC patch fault: a JSON-patch ``op`` on every path ``where`` finds in the switch's
    CONFIG_DB, with ``value`` (None: the op takes none, ``remove``)."""

    op: str
    where: Where
    value: Value | None = None


def patch(*edits: Edit) -> SonicOps:
    """The ops of a fault that is a table of edits (most SONiC faults: find the rows, change them)."""

    def ops(_lab: Lab, t: Target, db: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"op": e.op, "path": path} if e.value is None else {"op": e.op, "path": path, "value": e.value(t, db)}
            for e in edits
            for path in e.where(t, db)
        ]

    return ops


def _const(value: Any) -> Value:
    return lambda _t, _db: value


def _ports_with(db: dict[str, Any], table: str, suffix: str) -> list[str]:
    return sorted(k for k in db.get(table, {}) if k.endswith(suffix))


def _pfc_off(_lab: Lab, t: Target, db: dict[str, Any]) -> list[dict[str, Any]]:
    port = _target_port(t)
    left = [p for p in db["PORT_QOS_MAP"][port].get("pfc_enable", "").split(",") if p and int(p) != _priority(t)]
    path = f"/PORT_QOS_MAP/{port}/pfc_enable"
    return [{"op": "replace", "path": path, "value": ",".join(left)} if left else {"op": "remove", "path": path}]


def _dscp_path(t: Target, db: dict[str, Any]) -> list[str]:
    name = db["PORT_QOS_MAP"][next(p for p in db["PORT_QOS_MAP"] if p.startswith("Ethernet"))]["dscp_to_tc_map"]
    dscp = next(d for d, tc in db["DSCP_TO_TC_MAP"][name].items() if int(tc) == _priority(t))
    return [f"/DSCP_TO_TC_MAP/{name}/{dscp}"]


def _wred_queues(t: Target, db: dict[str, Any]) -> list[str]:
    """The lossless priority's QUEUE rows that carry a WRED profile."""
    return [k for k in _ports_with(db, "QUEUE", f"|{_priority(t)}") if "wred_profile" in db["QUEUE"][k]]


def _lossless_wred(t: Target, db: dict[str, Any]) -> str:
    return str(db["QUEUE"][next(iter(_wred_queues(t, db)))]["wred_profile"])


def _wred(threshold: str, value: Value) -> Edit:
    """The lossless queue's WRED ``threshold`` (min or max) set to ``value``, for every colour."""

    def where(t: Target, db: dict[str, Any]) -> list[str]:
        name = _lossless_wred(t, db)
        return [f"/WRED_PROFILE/{name}/{colour}_{threshold}_threshold" for colour in ("green", "yellow", "red")]

    return Edit("replace", where, value)


def _green_max(t: Target, db: dict[str, Any]) -> Any:
    return db["WRED_PROFILE"][_lossless_wred(t, db)]["green_max_threshold"]


def _largest_pool(_t: Target, db: dict[str, Any]) -> str:
    return str(max(int(p.get("size", 0)) for p in db["BUFFER_POOL"].values()))


def _wred_removed(t: Target, db: dict[str, Any]) -> list[str]:
    return [f"/QUEUE/{k.replace('/', '~1')}/wred_profile" for k in _wred_queues(t, db)]


def _pg(t: Target) -> str:
    return f"{_target_port(t)}|{_priority(t)}"


def _pg_on_profile(name: str, xoff: Callable[[dict[str, Any], dict[str, Any]], int]) -> tuple[Edit, Edit]:
    """The port's lossless PG moved onto a new profile ``name``: its current one with ``xoff(current, db)``."""

    def profile(t: Target, db: dict[str, Any]) -> dict[str, Any]:
        current = db["BUFFER_PROFILE"][db["BUFFER_PG"][_pg(t)]["profile"]]
        changed = {**current, "xoff": str(xoff(current, db))}
        changed["size"] = str(int(changed["xon"]) + int(changed["xoff"]))
        return changed

    return (
        Edit("add", _const([f"/BUFFER_PROFILE/{name}"]), profile),
        Edit("replace", lambda t, _db: [f"/BUFFER_PG/{_pg(t)}/profile"], _const(name)),
    )


def _quarter_xoff(current: dict[str, Any], _db: dict[str, Any]) -> int:
    return int(current["xoff"]) // 4


def _whole_pool_xoff(_current: dict[str, Any], db: dict[str, Any]) -> int:
    """Sized for a long-haul cable: the xoff alone is the whole ingress lossless pool (the PG's own rule
    is met; the port's total is not)."""
    return int(db["BUFFER_POOL"]["ingress_lossless_pool"]["size"])


def _cnp_scheduler(t: Target, db: dict[str, Any]) -> list[str]:
    key = next(k for k in _ports_with(db, "QUEUE", f"|{t.priority if t.priority is not None else 6}"))
    return [f"/SCHEDULER/{db['QUEUE'][key]['scheduler']}"]


def _watchdog_port(t: Target, _db: dict[str, Any]) -> list[str]:
    return [f"/PFC_WD/{_target_port(t)}"]


def _watchdog_actions(_t: Target, db: dict[str, Any]) -> list[str]:
    return [f"/PFC_WD/{p}/action" for p in db.get("PFC_WD", {}) if p != "GLOBAL"]


# the SONiC patch faults, one row each: what they change in CONFIG_DB (seed.py names them per fault)
_dscp_map = patch(Edit("replace", _dscp_path, _const("0")))
_ecn_min_eq_max = patch(_wred("min", _green_max))
_ecn_max_high = patch(_wred("max", _largest_pool))
_ecn_off = patch(Edit("remove", _wred_removed))
_headroom = patch(*_pg_on_profile("pg_lossless_short_profile", _quarter_xoff))
_headroom_over_pool = patch(*_pg_on_profile("pg_lossless_400000_2km_profile", _whole_pool_xoff))
_cnp_dwrr = patch(Edit("replace", _cnp_scheduler, _const({"type": "DWRR", "weight": "10"})))
_watchdog_stop = patch(Edit("remove", _watchdog_port))
_watchdog_forward = patch(Edit("replace", _watchdog_actions, _const("forward")))


def _port_number(name: str) -> tuple[int, str]:
    digits = "".join(c for c in name if c.isdigit())
    return (int(digits) if digits else -1, name)


def _lossless_classes(lab: Lab, t: Target, db: dict[str, Any]) -> list[dict[str, Any]]:
    """PFC on more priorities than the ASIC can carve headroom for, on the switch's spare port (no cable, so
    no link to be asymmetric on), with the watchdog switched on for the new priorities on every port."""
    asic = lab.connection.fabric.devices[t.device].asic
    limit = get_asic(asic).max_lossless_priorities if asic else 2
    qos = db["PORT_QOS_MAP"]
    spare = next((p for p in sorted(db["PORT"], key=_port_number) if p not in qos), None)
    if spare is None:
        raise SeedError(f"{t.device}: no spare port (every port has a PORT_QOS_MAP entry)")
    template = next(p for p in sorted(qos, key=_port_number) if p.startswith("Ethernet"))
    want = {int(x) for row in qos.values() for x in row.get("pfc_enable", "").split(",") if x}
    want.add(4 if t.priority is None else t.priority)
    for extra in (2, 4, 5, 1):
        if len(want) > limit:
            break
        want.add(extra)
    vector = ",".join(str(p) for p in sorted(want))
    ops: list[dict[str, Any]] = [
        {"op": "add", "path": f"/PORT_QOS_MAP/{spare}", "value": {**qos[template], "pfc_enable": vector}}
    ]
    if "pfcwd_sw_enable" in qos[template]:
        ops[0]["value"]["pfcwd_sw_enable"] = vector
        ops += [
            {"op": "replace", "path": f"/PORT_QOS_MAP/{p}/pfcwd_sw_enable", "value": vector}
            for p in qos
            if "pfcwd_sw_enable" in qos[p]
        ]
    if template in db.get("PFC_WD", {}):
        ops.append({"op": "add", "path": f"/PFC_WD/{spare}", "value": db["PFC_WD"][template]})
    return ops


# --- SONiC CLI, EOS, NVUE, FRR --------------------------------------------------------------------


def _sonic_mtu(lab: Lab, t: Target) -> None:
    lab.run(t.device, f"sudo config interface mtu {_target_port(t)} 9000")


def _sonic_mtu_undo(lab: Lab, t: Target) -> None:
    port = _target_port(t)
    lab.run(
        t.device, f"sudo config interface mtu {port} {lab.connection.fabric.devices[t.device].interfaces[port].mtu}"
    )


def _eos_pfc(no: bool) -> Step:
    def step(lab: Lab, t: Target) -> None:
        command = (
            f"no priority-flow-control priority {_priority(t)}"
            if no
            else f"priority-flow-control priority {_priority(t)} no-drop"
        )
        lab.type_in(t.device, ["enable", "configure", f"interface {_target_port(t)}", command, "end"])

    return step


def _nvue(template: str) -> Step:
    def step(lab: Lab, t: Target) -> None:
        lab.run(t.device, f"nv set {template.format(port=t.port, tc=_priority(t, 4))} && nv config apply -y")

    return step


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


# --- hosts: NIC tools, files, the shims' hardware state ----------------------------------------------


def _host(command: str) -> Step:
    def step(lab: Lab, t: Target) -> None:
        nic = _nic(lab, t)
        lab.run(t.device, command.format(port=nic.netdev, rdma=nic.rdma, device=t.device))

    return step


def _nic(lab: Lab, t: Target) -> Any:
    host = lab.connection.fabric.devices[t.device].host
    if host is None:
        raise SeedError(f"{t.device}: not a host")
    port = t.port or next(n for n in host.nics.values() if n.roce_mode is not None).netdev
    if port not in host.nics:
        raise SeedError(f"{t.device}: no NIC {port}")
    return host.nics[port]


def _nic_tool(command: str) -> tuple[Seed, Undo]:
    """A NIC tool run on the host; undone by putting the NIC's firmware/driver state back as it was
    (a tool's reverse call does not always restore it: ``--trust pcp`` drops the DSCP app entries)."""

    def seed(lab: Lab, t: Target) -> None:
        root = HostRoot(lab.device_dir(t.device) / "root")
        backup = Path(root.state_path).with_name("state.json.xoff-fault")
        with root.state() as state:
            backup.write_text(json.dumps(state), encoding="utf-8")
        nic = _nic(lab, t)
        lab.run(t.device, command.format(port=nic.netdev, rdma=nic.rdma, prio=_priority(t)))

    def undo(lab: Lab, t: Target) -> None:
        root = HostRoot(lab.device_dir(t.device) / "root")
        backup = Path(root.state_path).with_name("state.json.xoff-fault")
        if backup.exists():
            with root.state(write=True) as state:
                state.clear()
                state.update(json.loads(backup.read_text(encoding="utf-8")))
            backup.unlink()

    return seed, undo


def _mtu_undo(lab: Lab, t: Target) -> None:
    nic = _nic(lab, t)
    lab.run(t.device, f"ip link set {nic.netdev} mtu {nic.mtu}")


NCCL_FILE = '"${XOFF_HOST_ROOT:-}/etc/xoff/nccl.env"'


def _nccl_tc(value: Callable[[Lab, Target], str]) -> Step:
    def step(lab: Lab, t: Target) -> None:
        lab.run(t.device, f"sed -i 's/^NCCL_IB_TC=.*/NCCL_IB_TC={value(lab, t)}/' {NCCL_FILE}")

    return step


def _nccl_right(lab: Lab, t: Target) -> str:
    host = lab.connection.fabric.devices[t.device].host
    assert host is not None
    return host.nccl_env["NCCL_IB_TC"]


def _shim_state(change: Callable[[dict[str, Any], Lab, Target], None]) -> Step:
    """The hardware behind a NIC tool: the shims' state file, under their lock."""

    def step(lab: Lab, t: Target) -> None:
        with HostRoot(lab.device_dir(t.device) / "root").state(write=True) as state:
            change(state, lab, t)

    return step


def _acs(on: bool) -> Callable[[dict[str, Any], Lab, Target], None]:
    def change(state: dict[str, Any], _lab: Lab, _t: Target) -> None:
        from xoff.lab.shims.seed import ACS_CTL_OFF  # noqa: PLC0415

        for rec in state["pci"]:
            if rec.get("acs") is not None:
                rec["acs"]["ctl"] = ACS_CTL_ON if on else ACS_CTL_OFF

    return change


def _reseat(away: bool) -> Callable[[dict[str, Any], Lab, Target], None]:
    """The rail NIC moved to a slot under the other socket's root port (and back)."""

    def change(state: dict[str, Any], lab: Lab, t: Target) -> None:
        nic = _nic(lab, t)
        rec = next(r for r in state["pci"] if r.get("rdma") == nic.rdma)
        if away:
            rec["seated"] = {k: rec[k] for k in ("switch", "host_bridge", "numa")}
            other = next(r for r in state["pci"] if r["role"] == "root_port" and r["numa"] != rec["numa"])
            rec.update(switch=None, host_bridge=other["host_bridge"], numa=other["numa"])
        elif "seated" in rec:
            rec.update(rec.pop("seated"))

    return change


# --- cabling ---------------------------------------------------------------------------------------


def _swap(back: bool) -> Step:
    def step(lab: Lab, t: Target) -> None:
        _swap_cables(lab, t, back)

    return step


def _swap_cables(lab: Lab, t: Target, back: bool) -> None:
    """Two cables re-plugged into each other's ports: the two veth ends swap names in the switch."""
    a, b = _target_port(t), _swap_partner(lab, t)
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
    port = dev.interfaces[_target_port(t)]
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
        port = _target_port(t)
        netns.ip(["link", "set", lab.ifname(t.device, port), "up" if up else "down"], netns=lab.netns(t.device))
        _wait_lldp(lab, t.device, {port: {_peer_of(lab, t.device, port)} if up else set()})

    return step


# --- counters the ASIC would raise (the SONiC emulator's counter state) --------------------------------


def _counters(kind: str) -> tuple[Seed, Undo]:
    def seed(lab: Lab, t: Target) -> None:
        path = lab.device_dir(t.device) / "state" / "counters.json"
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        port, queue = _target_port(t), f"UC{_priority(t)}"
        if kind == "storm":  # the watchdog detected a storm on the queue and restored it
            data.setdefault("pfcwd", {})[f"{port}:{_priority(t)}"] = {
                "status": "operational",
                "storm_detected": 1,
                "storm_restored": 1,
                "tx_dropped": 1200,
                "rx_dropped": 0,
            }
        else:
            data.setdefault("queue", {}).setdefault(port, {})[queue] = {
                "packets": 1000000,
                "bytes": 4096000000,
                "drop_packets": 1500,
                "drop_bytes": 6144000,
            }
        backup = path.with_name("counters.json.xoff-fault")
        if path.exists() and not backup.exists():
            backup.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        elif not backup.exists():
            backup.write_text("null\n", encoding="utf-8")
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    def undo(lab: Lab, t: Target) -> None:
        path = lab.device_dir(t.device) / "state" / "counters.json"
        backup = path.with_name("counters.json.xoff-fault")
        if backup.exists():
            before = json.loads(backup.read_text(encoding="utf-8"))
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(json.dumps(before, indent=1) + "\n", encoding="utf-8")
            backup.unlink()

    return seed, undo


Seed = Callable[[Lab, Target], None]
Undo = Callable[[Lab, Target], None]
Step = Callable[[Lab, Target], None]


# --- counters the ASIC would raise (the EOS emulator's counter state) ---------------------------------


def eos_counters(kind: str) -> tuple[Seed, Undo]:
    """The EOS emulator's counters (``state/counters.json``, in EOS's terms: see
    ``xoff.lab.emulators.eos.show_counters``) on the target's port and lossless queue: ``storm``, pause
    frames received and a storm the watchdog detected and restored; ``drops``, packets dropped on the
    queue. Undone by putting the file back as it was."""

    def seed(lab: Lab, t: Target) -> None:
        path = lab.device_dir(t.device) / "state" / "counters.json"
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        port, priority = _target_port(t), _priority(t)
        qos = lab.connection.fabric.devices[t.device].qos
        queue = str(qos.pfc_priority_to_queue.get(priority, priority) if qos is not None else priority)
        if kind == "storm":
            data.setdefault("pfc", {}).setdefault(port, {})[str(priority)] = {"rxFrames": 1200000, "txFrames": 0}
            data.setdefault("watchdog", {}).setdefault(port, {})[queue] = {"stuckCount": 1, "recoveryCount": 1}
        else:
            data.setdefault("queues", {}).setdefault(port, {})[queue] = {
                "enqueuedPackets": 1000000,
                "enqueuedBytes": 4096000000,
                "droppedPackets": 1500,
                "droppedBytes": 6144000,
            }
        backup = path.with_name("counters.json.xoff-fault")
        if not backup.exists():
            backup.write_text(path.read_text(encoding="utf-8") if path.exists() else "null\n", encoding="utf-8")
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    def undo(lab: Lab, t: Target) -> None:
        path = lab.device_dir(t.device) / "state" / "counters.json"
        backup = path.with_name("counters.json.xoff-fault")
        if backup.exists():
            before = json.loads(backup.read_text(encoding="utf-8"))
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(json.dumps(before, indent=1) + "\n", encoding="utf-8")
            backup.unlink()

    return seed, undo


# --- hosts: the NIC's DCQCN sysfs, a rail's routes, the kernel command line --------------------------


def _nic_sysfs(name: str, value: Callable[[Any, int], int]) -> Step:
    """``echo VALUE > /sys/class/net/<netdev>/ecn/<name>`` on the host, as an operator tunes DCQCN by hand
    (``{prio}`` in ``name`` is the target's priority, else the NIC's first lossless one; ``value(nic, prio)``
    is what is written). The file must exist: a NIC without the MLNX_OFED ecn tree cannot take the fault."""

    def step(lab: Lab, t: Target) -> None:
        nic = _nic(lab, t)
        prio = _priority(t, nic.ecn_np_priorities[0] if nic.ecn_np_priorities else 3)
        path = f'"${{XOFF_HOST_ROOT:-}}/sys/class/net/{nic.netdev}/ecn/{name.format(prio=prio)}"'
        lab.run(t.device, f"test -f {path} && echo {value(nic, prio)} > {path}")

    return step


def _cnp_dscp_intended(nic: Any, _prio: int) -> int:
    if nic.cnp_dscp is None:
        raise SeedError(f"{nic.netdev}: the intent sets no CNP DSCP")
    return int(nic.cnp_dscp)


def _rail_route(stray: bool) -> Step:
    """The NIC's route to the loopbacks in its rail table, ``ip route replace``d via the next hop of another
    rail (``onlink``: it is not on the NIC's /31, as when a rail's lines are copied from rail 0), or back
    via the NIC's own gateway."""

    def step(lab: Lab, t: Target) -> None:
        nic = _nic(lab, t)
        host = lab.connection.fabric.devices[t.device].host
        assert host is not None  # _nic found a NIC of it
        routes = [r for r in host.routes if r.device == nic.netdev]
        other = next((n.gateway for n in host.nics.values() if n.gateway not in (None, nic.gateway)), None)
        if not routes or other is None:
            raise SeedError(f"{t.device}: {nic.netdev} has no rail route, or no other rail's gateway to misroute to")
        route = routes[-1]
        via = f"{other} dev {nic.netdev} onlink" if stray else f"{route.via} dev {nic.netdev}"
        lab.run(t.device, f"ip route replace {route.destination} via {via} table {route.table}")

    return step


PASSTHROUGH_WORDS = ("iommu=pt", "iommu.passthrough=1")


def _kernel_cmdline(drop_passthrough: bool) -> Step:
    """The host rebooted without ``iommu=pt`` on its kernel command line (a GRUB or kernel update dropped
    it), so the IOMMU translates GPU/NIC DMA. Only a reboot changes /proc/cmdline: the lab changes the
    file under the host's state root, and the undo puts it back as it was."""

    def step(lab: Lab, t: Target) -> None:
        root = lab.device_dir(t.device) / "root"
        path = root / "proc" / "cmdline"
        backup = Path(HostRoot(root).state_path).with_name("cmdline.xoff-fault")
        if drop_passthrough:
            if not (root / "sys" / "class" / "iommu").is_dir():
                raise SeedError(f"{t.device}: no IOMMU unit under the state root, so nothing to translate DMA")
            text = path.read_text(encoding="utf-8")
            if not backup.exists():
                backup.write_text(text, encoding="utf-8")
            path.write_text(" ".join(w for w in text.split() if w not in PASSTHROUGH_WORDS) + "\n", encoding="utf-8")
        elif backup.exists():
            path.write_text(backup.read_text(encoding="utf-8"), encoding="utf-8")
            backup.unlink()

    return step


# --- hosts: a rail's policy rule ----------------------------------------------------------------------


def _rail_rule(deleted: bool) -> Step:
    """The rule from the NIC's address into its rail table (the target's port, else the host's first RoCE
    NIC), ``ip rule del``eted as a hand-run cleanup or a network manager flushing policy routing does (the
    rail's traffic then leaves by the main table, through whichever port its route picks), or added back as
    the intent has it (deleted first, so the undo never leaves the rule twice)."""

    def step(lab: Lab, t: Target) -> None:
        nic = _nic(lab, t)
        host = lab.connection.fabric.devices[t.device].host
        assert host is not None  # _nic found a NIC of it
        source = f"{nic.address.split('/')[0]}/32" if nic.address else None
        rule = next((r for r in host.rules if r.source == source), None)
        if rule is None:
            raise SeedError(f"{t.device}: {nic.netdev} has no policy rule in the intent")
        spec = f"from {rule.source} table {rule.table} priority {rule.priority}"
        lab.run(t.device, f"ip rule del {spec}" if deleted else f"ip rule del {spec} 2>/dev/null; ip rule add {spec}")

    return step


# --- counters the ASIC would raise (the Cumulus NVUE emulator's counter state) --------------------------


def cumulus_counters(kind: str) -> tuple[Seed, Undo]:
    """The Cumulus emulator's counters (``state/counters.json``, in NVUE's terms: see
    ``xoff.lab.emulators.cumulus.show_counters``) on the target's port and lossless priority's queue:
    ``storm``, pause frames received and a deadlock the PFC watchdog detected and restored; ``drops``,
    unicast buffer discards on the queue. Undone by putting the file back as it was."""

    def seed(lab: Lab, t: Target) -> None:
        path = lab.device_dir(t.device) / "state" / "counters.json"
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        port, priority = _target_port(t), _priority(t, 4)
        qos = lab.connection.fabric.devices[t.device].qos
        queue = str(qos.pfc_priority_to_queue.get(priority, priority) if qos is not None else priority)
        if kind == "storm":
            data.setdefault("pfc", {}).setdefault(port, {})[str(priority)] = {"rx-pause-frames": 1200000}
            data.setdefault("watchdog", {}).setdefault(port, {})[queue] = {"deadlock-count": 1, "status": "OK"}
        else:
            data.setdefault("queues", {}).setdefault(port, {})[queue] = {
                "tx-frames": 1000000,
                "tx-bytes": 4096000000,
                "tx-uc-buffer-discards": 1500,
            }
        backup = path.with_name("counters.json.xoff-fault")
        if not backup.exists():
            backup.write_text(path.read_text(encoding="utf-8") if path.exists() else "null\n", encoding="utf-8")
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    def undo(lab: Lab, t: Target) -> None:
        path = lab.device_dir(t.device) / "state" / "counters.json"
        backup = path.with_name("counters.json.xoff-fault")
        if backup.exists():
            before = json.loads(backup.read_text(encoding="utf-8"))
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(json.dumps(before, indent=1) + "\n", encoding="utf-8")
            backup.unlink()

    return seed, undo
