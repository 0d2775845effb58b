"""What a running lab shows: BGP sessions (FRR's ``show bgp summary json``), LLDP neighbours
(``lldpcli -f json``), the subnet manager's state, processes alive; and ``lab exec``.

LLDP neighbours come back in intent port names on both sides: the local port through the lab's
record of Linux names, the remote port because every lldpd advertises the intent name as its
port ID (daemons.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from xoff.lab import daemons, netns, processes
from xoff.lab.state import LabState

TIMEOUT_S = 15.0
WORKERS = 8


@dataclass(frozen=True)
class BgpSession:
    device: str
    neighbor: str
    remote_as: int | None
    peer: str | None  # the neighbour's hostname, as BGP learnt it
    state: str


@dataclass(frozen=True)
class LldpNeighbor:
    device: str
    port: str  # local port, intent name
    remote: str  # the neighbour's system name
    remote_port: str  # its port ID (the intent name)


def _run(argv: list[str], timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)


def bgp_sessions(state: LabState, device: str) -> list[BgpSession]:
    run = _run(daemons.vtysh_argv(state.dir, device, "show bgp summary json"))
    if run.returncode != 0:
        raise RuntimeError(f"{device}: vtysh failed: {run.stderr.strip() or run.stdout.strip()}")
    data: dict[str, Any] = json.loads(run.stdout or "{}")
    peers = data.get("ipv4Unicast", {}).get("peers", {})
    return [
        BgpSession(device, addr, p.get("remoteAs"), p.get("hostname"), p.get("state", "?")) for addr, p in peers.items()
    ]


def _entries(value: Any) -> list[tuple[str, dict[str, Any]]]:
    """lldpcli's JSON gives one interface as a mapping and several as a list of one-key mappings."""
    items = value if isinstance(value, list) else [value]
    return [(k, v) for item in items if isinstance(item, dict) for k, v in item.items()]


def lldp_neighbors(state: LabState, device: str) -> list[LldpNeighbor]:
    run = _run(["lldpcli", "-u", str(daemons.lldpd_socket(state.dir, device)), "-f", "json", "show", "neighbors"])
    if run.returncode != 0:
        raise RuntimeError(f"{device}: lldpcli failed: {run.stderr.strip() or run.stdout.strip()}")
    ports = state.ifname_to_port(device)
    out: list[LldpNeighbor] = []
    for ifname, entry in _entries(json.loads(run.stdout or "{}").get("lldp", {}).get("interface", [])):
        chassis = entry.get("chassis", {})
        remote = next(iter(chassis), "?") if isinstance(chassis, dict) else "?"
        port_id = entry.get("port", {}).get("id", {}).get("value", "?")
        out.append(LldpNeighbor(device, ports.get(ifname, ifname), remote, port_id))
    return out


def expected_lldp(state: LabState) -> set[tuple[str, str, str, str]]:
    """(device, port, neighbour, neighbour's port) for both ends of every cable with lldpd at both ends."""
    with_lldpd = {r.device for r in state.processes.values() if r.role == "lldpd"}
    out: set[tuple[str, str, str, str]] = set()
    for lk in state.links:
        if lk.a_device in with_lldpd and lk.b_device in with_lldpd:
            out.add((lk.a_device, lk.a_port, lk.b_device, lk.b_port))
            out.add((lk.b_device, lk.b_port, lk.a_device, lk.a_port))
    return out


def healthy(s: dict[str, Any]) -> bool:
    """Everything up: processes alive, namespaces there, BGP all Established, LLDP = cabling, SUBNET UP."""
    ok: bool = s["processes_alive"] == s["processes"] and s["bridge"]["exists"]
    ok = ok and all(d["netns_exists"] for d in s["devices"].values())
    ok = ok and s["bgp"]["established"] == s["bgp"]["sessions"]
    ok = ok and not any(isinstance(v, dict) for v in s["bgp"]["by_device"].values())
    lv = s["lldp_vs_cabling"]
    ok = ok and lv["matching"] == lv["expected"] and not lv["unexpected"]
    return ok and (s["infiniband"] is None or bool(s["infiniband"]["subnet_up"]))


def exec_env(state: LabState, device: str) -> dict[str, str]:
    """The environment a command gets in a device: a host's SSH session environment (NIC tool shims,
    XOFF_HOST_ROOT); on the subnet manager host also ibsim's (so infiniband-diags reach the fabric)."""
    env = dict(os.environ)
    record = state.devices[device]
    if record.kind == "host":
        env.update(daemons.host_env(state.dir, device))
    if state.ib is not None and state.ib.sm_host == device:
        env.update(daemons.ib_env(state))
    return env


def exec_argv(state: LabState, device: str, command: list[str]) -> list[str]:
    if device not in state.devices:
        raise KeyError(f"no device {device!r} in lab {state.name} (devices: {', '.join(state.devices)})")
    return ["ip", "netns", "exec", state.devices[device].netns, *command]


def run_in(
    state: LabState, device: str, command: list[str], timeout: float = TIMEOUT_S, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command in a device's namespace and capture its output (for status and tests); ``stdin`` is its input
    (a script on stdin has no size limit, unlike one argument: 128 KiB, the kernel's MAX_ARG_STRLEN)."""
    return subprocess.run(
        exec_argv(state, device, command),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=exec_env(state, device),
    )


def sm_state(state: LabState) -> dict[str, Any] | None:
    if state.ib is None:
        return None
    log = Path(state.ib.opensm_log)
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    info = run_in(state, state.ib.sm_host, ["sminfo"], timeout=TIMEOUT_S)
    return {
        "host": state.ib.sm_host,
        "subnet_up": "SUBNET UP" in text,
        "sminfo": (info.stdout or info.stderr).strip(),
    }


def status(state: LabState) -> dict[str, Any]:
    """Everything ``xoff lab status`` shows, as JSON-able data."""
    root_links = netns.links(None)
    devices: dict[str, Any] = {}
    for name, d in state.devices.items():
        procs = {
            r.role: {"pid": r.pid, "alive": processes.alive(r)} for r in state.processes.values() if r.device == name
        }
        devices[name] = {
            "kind": d.kind,
            "platform": d.platform,
            "netns": d.netns,
            "netns_exists": netns.exists(d.netns),
            "mgmt_address": d.mgmt_address,
            "processes": procs,
        }
    bgp_devices = [r.device for r in state.processes.values() if r.role == "bgpd" and r.device]
    lldp_devices = [r.device for r in state.processes.values() if r.role == "lldpd" and r.device]

    def safe(fn: Any, device: str) -> list[dict[str, Any]] | dict[str, str]:
        try:
            return [asdict(x) for x in fn(state, device)]
        except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
            return {"error": str(exc)}

    with ThreadPoolExecutor(WORKERS) as pool:
        bgp = dict(zip(bgp_devices, pool.map(lambda d: safe(bgp_sessions, d), bgp_devices), strict=True))
        lldp = dict(zip(lldp_devices, pool.map(lambda d: safe(lldp_neighbors, d), lldp_devices), strict=True))
    lab_procs = {
        r.role: {"pid": r.pid, "alive": processes.alive(r)} for r in state.processes.values() if r.device is None
    }
    sessions = [s for v in bgp.values() if isinstance(v, list) for s in v]
    seen = {
        (n["device"], n["port"], n["remote"], n["remote_port"]) for v in lldp.values() if isinstance(v, list) for n in v
    }
    cabling = expected_lldp(state)
    return {
        "lab": state.name,
        "fabric": state.fabric,
        "intent": state.intent,
        "lab_dir": state.lab_dir,
        "bridge": {"name": state.bridge, "exists": state.bridge in root_links, "controller": state.controller_address},
        "remap": [f"{a} -> {b}" for a, b in state.remap],
        "devices": devices,
        "lab_processes": lab_procs,
        "processes_alive": sum(processes.alive(r) for r in state.processes.values()),
        "processes": len(state.processes),
        "bgp": {
            "sessions": len(sessions),
            "established": sum(s["state"] == "Established" for s in sessions),
            "by_device": bgp,
        },
        "lldp": lldp,
        "lldp_vs_cabling": {
            "expected": len(cabling),
            "matching": len(cabling & seen),
            "missing": [" ".join(x) for x in sorted(cabling - seen)],
            "unexpected": [" ".join(x) for x in sorted(seen - cabling)],
        },
        "infiniband": sm_state(state),
        "warnings": list(state.warnings),
    }
