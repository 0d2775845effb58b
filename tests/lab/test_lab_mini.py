"""lab-mini brought up for real (namespaces, veths, FRR, lldpd, OpenSSH, the switch SSH server), once
for the whole module; the last test takes it down and proves nothing is left.

The lab runs with --remap: lab-mini's addresses are all in 198.18.0.0/15 (it needs no --remap on its own),
but other lab-mini labs may be up on this machine at the same time (other test processes), holding its
management /24; --remap keeps every block that is free and moves only a busy one to a free block."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from ipaddress import IPv4Interface
from pathlib import Path
from typing import Any, TypeVar

import asyncssh
import pytest
from typer.testing import CliRunner

from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff.contracts.fib import FibEntry
from xoff.deadlock.analysis import analyse
from xoff.deadlock.forwarding import snapshot_from_fabric
from xoff.deadlock.from_fib import snapshot_from_fibs
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.lab import credentials, daemons, disrupt, names, netns, processes
from xoff.lab.cli import lab_app
from xoff.lab.lab import LabError, UpReport, resolve, up
from xoff.lab.observe import bgp_sessions, lldp_neighbors
from xoff.lab.remap import REMAP_INTO
from xoff.lab.state import FABRIC_FILE, LabState
from xoff.lab.teardown import down, leftovers_of
from xoff.platforms.frr.fib import parse_route_json

pytestmark = pytest.mark.lab
INVENTORY = ROOT / "inventory"
LAB = f"t{os.getpid()}-mini"
LAB2 = f"t{os.getpid()}-mini2"
BGP_TIMEOUT_S = SETTLE_S
LLDP_TIMEOUT_S = SETTLE_S
# zebra, bgpd, staticd, lldpd per switch; lldpd, sshd per host; switch SSH; gNMI; the hosts' shim server
PROCESSES = 5 * 4 + 4 * 2 + 1 + 1 + 1
T = TypeVar("T")


def poll(what: str, get: Callable[[], T], ok: Callable[[T], bool], timeout: float) -> T:
    """``get()`` until ``ok`` says yes; fail with the last value after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = get()
        if ok(value):
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not reached in {timeout:.0f} s; last: {value}")
        time.sleep(0.25)


def _teardown(name: str) -> None:
    """Down the lab if it is still up (a failed test), and prove nothing of it is left."""
    state = None
    with contextlib.suppress(LabError):
        state = resolve(name)
    if state is not None:
        down(name)
        assert leftovers_of(state) == []
    assert netns.names(names.namespace_prefix(name)) == []


@pytest.fixture(scope="module")
def lab() -> Iterator[tuple[UpReport, LabState]]:
    try:
        report = up(INVENTORY / "lab-mini", LAB, remap_addresses=True)
        yield report, resolve(LAB)
    finally:
        _teardown(LAB)


@pytest.fixture(scope="module")
def fabric(lab: tuple[UpReport, LabState]) -> FabricState:
    return FabricState.model_validate_json((lab[1].dir / FABRIC_FILE).read_text(encoding="utf-8"))


def _cli(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xoff.lab.cli", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def test_up_reports_what_it_made(lab: tuple[UpReport, LabState]) -> None:
    report, state = lab
    assert report.created == {"namespaces": 9, "bridge": 1, "mgmt veths": 9, "link veths": 16}
    assert len(report.started) == PROCESSES
    assert report.kept == []  # how long it took is the benchmarks' business (bench/), not a test's
    # every block stays unless another lab on this machine holds it (lab-mini is lab-safe as written)
    assert {r.split(" -> ")[0] for r in report.remap} >= {"198.19.252.0/24", "198.18.0.0/24"}
    assert all(IPv4Interface(r.split(" -> ")[1]).network.subnet_of(REMAP_INTO) for r in report.remap)
    assert all(processes.alive(r) for r in state.processes.values())
    assert (state.dir / credentials.SECRETS_FILE).stat().st_mode & 0o777 == 0o600


def test_every_bgp_session_is_established(lab: tuple[UpReport, LabState], fabric: FabricState) -> None:
    _, state = lab
    expected = {(d.name, n.address) for d in fabric.devices.values() if d.bgp for n in d.bgp.neighbors}
    assert len(expected) == 8

    def sessions() -> dict[tuple[str, str], str]:
        return {
            (s.device, s.neighbor): s.state
            for d in state.devices.values()
            if d.kind == "switch"
            for s in bgp_sessions(state, d.name)
        }

    found = poll(
        "BGP Established", sessions, lambda s: set(s) == expected and set(s.values()) == {"Established"}, BGP_TIMEOUT_S
    )
    assert set(found) == expected


def test_deadlock_on_the_real_fibs_agrees_with_the_intent_routing_model(
    lab: tuple[UpReport, LabState], fabric: FabricState
) -> None:
    """The FIBs the real FRR installed (after BGP converged) give the same forwarding, port for port,
    as xoff's RFC 7938 model of the same FabricState, and no deadlock risk, with the certificate."""
    _, state = lab
    compute = [d.name for d in fabric.devices.values() if d.kind == "switch" and d.network == "compute"]
    model = snapshot_from_fabric(fabric, routing="bgp")

    def fibs() -> dict[str, list[FibEntry]]:
        out = {}
        for switch in compute:
            run = subprocess.run(
                ["ip", "netns", "exec", names.namespace(LAB, switch),
                 *daemons.vtysh_argv(state.dir, switch, "show ip route json")],
                capture_output=True, text=True, timeout=30, check=True,
            )  # fmt: skip
            out[switch] = parse_route_json(run.stdout, state.ifname_to_port(switch))
        return out

    def forwarding() -> dict[str, dict[str, tuple[str, ...]]]:
        snap = snapshot_from_fibs(fabric, fibs())
        return {d: dict(per) for d, per in snap.forwarding.items()}

    expected = {d: dict(per) for d, per in model.forwarding.items()}
    assert poll("FIB = model", forwarding, lambda f: f == expected, BGP_TIMEOUT_S) == expected
    result = analyse(snapshot_from_fibs(fabric, fibs()))
    assert not result.deadlock_risk and result.certified
    assert len(result.bounces) == 0


def test_lldp_neighbours_equal_the_cabling(lab: tuple[UpReport, LabState], fabric: FabricState) -> None:
    _, state = lab
    cabling = {(lk.a.device, lk.a.port, lk.b.device, lk.b.port) for lk in fabric.links}
    cabling |= {(b, bp, a, ap) for a, ap, b, bp in cabling}  # both directions
    assert ("spine2", "Ethernet1/1", "leaf1", "Ethernet40") in cabling  # intent names, not Linux ones

    def seen() -> set[tuple[str, str, str, str]]:
        return {(n.device, n.port, n.remote, n.remote_port) for d in state.devices for n in lldp_neighbors(state, d)}

    assert poll("LLDP = cabling", seen, lambda s: s == cabling, LLDP_TIMEOUT_S) == cabling


def _ssh(state: LabState, host: str, command: str, known_hosts: Path) -> subprocess.CompletedProcess[str]:
    address = state.devices[host].mgmt_address.split("/")[0]
    return subprocess.run(
        ["ssh", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
         "-o", f"UserKnownHostsFile={known_hosts}", "-o", "IdentitiesOnly=yes", "-o", "ConnectTimeout=5",
         "-i", str(credentials.client_key(state.dir)), f"root@{address}", command],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip


def test_controller_reaches_hosts_over_ssh_with_host_key_checking(
    lab: tuple[UpReport, LabState], tmp_path: Path
) -> None:
    _, state = lab
    run = _ssh(state, "gpu2", "hostname; printenv XOFF_HOST_ROOT; printenv PATH", credentials.known_hosts(state.dir))
    assert run.returncode == 0, run.stderr
    hostname, root, path = run.stdout.splitlines()
    assert hostname == "gpu2"
    assert root == str(daemons.host_root(state.dir, "gpu2"))
    assert path.split(":")[0] == str(daemons.shims_bin(state.dir, "gpu2"))
    empty = tmp_path / "known_hosts"
    empty.write_text("", encoding="utf-8")
    refused = _ssh(state, "gpu2", "true", empty)  # checking is really on: an unknown key is refused
    assert refused.returncode == 255 and "Host key verification failed" in refused.stderr


def test_switch_ssh_asks_for_the_lab_password(lab: tuple[UpReport, LabState]) -> None:
    """Every switch's SSH socket refuses a wrong password and opens the platform's CLI for the right one
    (a platform without an emulator is refused by name: tests/lab_offline/test_lab_sshd.py)."""
    _, state = lab
    secrets = credentials.Secrets.load(state.dir)
    address = state.devices["spine2"].mgmt_address.split("/")[0]

    async def main() -> None:
        known = str(credentials.known_hosts(state.dir))
        with pytest.raises(asyncssh.PermissionDenied):
            async with asyncssh.connect(
                address, username=secrets.switch_username, password="wrong", known_hosts=known, client_keys=None
            ):
                pass
        async with asyncssh.connect(
            address,
            username=secrets.switch_username,
            password=secrets.switch_password,
            known_hosts=known,
            client_keys=None,
        ) as conn:
            r = await conn.run("show version", check=False, timeout=10)
            assert r.exit_status == 0, r.stderr
            assert "Arista" in str(r.stdout)

    asyncio.run(asyncio.wait_for(main(), 30))


def test_netmiko_drives_the_eos_emulator_over_the_lab(lab: tuple[UpReport, LabState]) -> None:
    """netmiko's unmodified arista_eos driver, host-key checking on, against spine2 at its mgmt address."""
    from netmiko import ConnectHandler

    _, state = lab
    secrets = credentials.Secrets.load(state.dir)
    conn = ConnectHandler(
        device_type="arista_eos",
        host=state.devices["spine2"].mgmt_address.split("/")[0],
        username=secrets.switch_username,
        password=secrets.switch_password,
        ssh_strict=True,
        system_host_keys=False,
        alt_host_keys=True,
        alt_key_file=str(credentials.known_hosts(state.dir)),
        timeout=20,
    )
    try:
        assert "Arista" in conn.send_command("show version")
        conn.enable()  # the lab's user logs in at privilege 1, as a user without "privilege 15" does
        conn.send_config_set(["interface Ethernet1/1", "description netmiko-was-here"])
        assert "description netmiko-was-here" in conn.send_command("show running-config | section Ethernet1/1")
    finally:
        conn.disconnect()


def test_invalid_config_db_patch_is_refused_over_ssh_and_nothing_changes(lab: tuple[UpReport, LabState]) -> None:
    """SONiC leaf1: a JSON Patch that breaks a YANG rule is refused whole with libyang's message."""
    _, state = lab
    secrets = credentials.Secrets.load(state.dir)
    address = state.devices["leaf1"].mgmt_address.split("/")[0]
    patch = json.dumps([{"op": "add", "path": "/PORT_QOS_MAP", "value": {"Ethernet0": {"pfc_enable": "3,9"}}}])

    async def main() -> None:
        async with asyncssh.connect(
            address,
            username=secrets.switch_username,
            password=secrets.switch_password,
            known_hosts=str(credentials.known_hosts(state.dir)),
            client_keys=None,
        ) as conn:
            before = await conn.run("show runningconfiguration all", check=False, timeout=20)
            async with conn.start_sftp_client() as sftp, sftp.open("/tmp/bad.json", "w") as f:
                await f.write(patch)
            refused = await conn.run("sudo config apply-patch /tmp/bad.json", check=False, timeout=30)
            after = await conn.run("show runningconfiguration all", check=False, timeout=20)
        text = str(refused.stdout) + str(refused.stderr)
        assert refused.exit_status != 0, text
        assert '"3,9" does not conform to' in text, text
        assert json.loads(str(after.stdout)) == json.loads(str(before.stdout))

    asyncio.run(asyncio.wait_for(main(), 60))


def _addresses(ip_j: list[dict[str, Any]]) -> dict[str, tuple[int, set[str]]]:
    return {
        i["ifname"]: (
            i["mtu"],
            {f"{a['local']}/{a['prefixlen']}" for a in i.get("addr_info", []) if a["family"] == "inet"},
        )
        for i in ip_j
    }


def test_lab_exec_shows_the_intent_addresses(lab: tuple[UpReport, LabState], fabric: FabricState) -> None:
    _, state = lab
    run = _cli("exec", "leaf1", "--name", LAB, "--", "ip", "-j", "addr")
    assert run.returncode == 0, run.stderr
    got = _addresses(json.loads(run.stdout))
    # the lab's plan: the intent's own addresses where they are free on this machine (another lab may hold
    # some blocks; then --remap moved them, keeping every offset), and the intent's MTUs
    planned = fabric.devices["leaf1"]
    intent = build_fabric_state(load_intent(INVENTORY / "lab-mini")).devices["leaf1"]
    for port, iface in planned.interfaces.items():
        if iface.kind == "ethernet" and iface.peer is not None:
            assert got[names.linux_ifname(port)] == (iface.mtu, set(iface.addresses)), port
            assert iface.mtu == intent.interfaces[port].mtu
    assert set(planned.interfaces["Loopback0"].addresses) <= got["lo"][1]  # the router loopback lives on lo
    assert got["eth0"][1] == set(fabric.devices["leaf1"].interfaces["eth0"].addresses)  # management: remapped
    assert IPv4Interface(next(iter(got["eth0"][1]))).ip in IPv4Interface(state.controller_address).network
    host = _addresses(json.loads(_cli("exec", "gpu1", "--name", LAB, "--", "ip", "-j", "addr").stdout))
    assert {k: v for k, v in host.items() if k.startswith("eth")} == {
        f"eth{i}": (1500, set()) for i in range(3)
    }  # factory


def test_status(lab: tuple[UpReport, LabState]) -> None:
    result = CliRunner().invoke(lab_app, ["status", "--name", LAB, "--format", "json", "--wait", "30"])
    assert result.exit_code == 0, result.output
    s = json.loads(result.output)
    assert s["healthy"] and s["processes_alive"] == s["processes"] == PROCESSES
    assert all(d["netns_exists"] for d in s["devices"].values()) and s["bridge"]["exists"]
    assert s["bgp"]["established"] == s["bgp"]["sessions"] == 8
    assert s["lldp_vs_cabling"] == {"expected": 32, "matching": 32, "missing": [], "unexpected": []}
    assert s["infiniband"] is None and s["lab_processes"]["switch-ssh"]["alive"]
    text = CliRunner().invoke(lab_app, ["status", "--name", LAB]).output
    assert "spine2:Ethernet1/1 -> leaf1:Ethernet40" in text and "LLDP: 32/32 cable ends" in text
    assert f"lab {LAB}: healthy" in text
    moved = [r for r in lab[0].remap if r.split(" -> ")[0] != r.split(" -> ")[1]]
    assert all(f"remapped {r}" in text for r in moved)


def test_a_pulled_cable_drops_its_session_and_a_stopped_bgpd_comes_back(
    lab: tuple[UpReport, LabState], fabric: FabricState
) -> None:
    _, state = lab
    leaf1 = fabric.devices["leaf1"].bgp
    assert leaf1 is not None
    to_spine1 = next(n.address for n in leaf1.neighbors if n.peer == "spine1")

    def on_leaf1() -> dict[str, str]:
        return {s.neighbor: s.state for s in bgp_sessions(state, "leaf1")}

    disrupt.set_port(state, "spine1", "Ethernet0", up=False)  # spine1's end of the spine1-leaf1 cable
    try:
        poll("leaf1-spine1 down", on_leaf1, lambda s: s[to_spine1] != "Established", 15)
    finally:
        disrupt.set_port(state, "spine1", "Ethernet0", up=True)
    poll("leaf1-spine1 back", on_leaf1, lambda s: set(s.values()) == {"Established"}, BGP_TIMEOUT_S)
    disrupt.stop_process(state, "leaf2/bgpd")
    healed = up(INVENTORY / "lab-mini", LAB, remap_addresses=True)
    assert healed.started == ["leaf2/bgpd"]
    poll(
        "leaf2 BGP back",
        lambda: [x.state for x in bgp_sessions(resolve(LAB), "leaf2")],
        lambda s: s == ["Established"] * 2,
        BGP_TIMEOUT_S,
    )


def test_up_is_idempotent_and_restarts_only_what_died(lab: tuple[UpReport, LabState]) -> None:
    again = up(INVENTORY / "lab-mini", LAB, remap_addresses=True)
    assert not again.changed and len(again.kept) == PROCESSES and again.remap == lab[0].remap
    victim = resolve(LAB).processes["gpu3/lldpd"]
    assert processes.stop([victim]) == []
    healed = up(INVENTORY / "lab-mini", LAB, remap_addresses=True)
    assert healed.started == ["gpu3/lldpd"] and set(healed.created.values()) == {0}
    assert processes.alive(resolve(LAB).processes["gpu3/lldpd"])
    result = CliRunner().invoke(lab_app, ["up", str(INVENTORY / "lab-mini"), "--name", LAB, "--remap"])
    assert result.exit_code == 0 and "already up, nothing to do" in result.output
    moved = sum(1 for r in lab[0].remap if r.split(" -> ")[0] != r.split(" -> ")[1])
    kept = len(lab[0].remap) - moved
    assert f"{moved} address blocks moved into 198.18.0.0/15, {kept} already there kept" in result.output


def test_a_second_lab_runs_beside_the_first(lab: tuple[UpReport, LabState]) -> None:
    _, first = lab
    try:
        second = up(INVENTORY / "lab-mini", LAB2, remap_addresses=True)
        other = resolve(LAB2)
        assert other.mgmt_prefix != first.mgmt_prefix and other.bridge != first.bridge
        assert not {names.namespace(LAB2, d) for d in other.devices} & set(netns.names(names.namespace_prefix(LAB)))
        assert len(second.started) == PROCESSES and all(processes.alive(r) for r in other.processes.values())
        run = _ssh(other, "gpu1", "hostname", credentials.known_hosts(other.dir))
        assert run.returncode == 0 and run.stdout.strip() == "gpu1", run.stderr
    finally:
        _teardown(LAB2)
    assert all(processes.alive(r) for r in resolve(LAB).processes.values())  # the first lab is untouched


def test_down_leaves_nothing(lab: tuple[UpReport, LabState]) -> None:
    _, state = lab
    state = resolve(LAB)
    pids = list(state.processes.values())
    report = down(LAB)
    assert (report.stopped, report.namespaces, report.interfaces) == (PROCESSES, 9, 10)
    assert netns.names(names.namespace_prefix(LAB)) == []
    root_links = netns.links(None)
    assert state.bridge not in root_links and not {d.root_veth for d in state.devices.values()} & root_links
    assert not any(processes.alive(r) for r in pids)
    assert not state.dir.exists() and not (state.dir.parent / f".{LAB}.lock").exists()
    assert leftovers_of(state) == []
