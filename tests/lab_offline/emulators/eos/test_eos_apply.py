"""Configuration changes reach the lab: ``ip`` in the device's namespace, ``vtysh`` to its FRR.

The first tests record the commands (no namespace needed); the ``lab`` test runs a real namespace
pair with real FRR (zebra + bgpd) on both ends and checks the kernel and BGP follow the CLI.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.eos_cli_helpers import Cli, FakeClock, RecordingContext
from tests.support.waiting import SETTLE_S
from xoff.lab.emulators import frr_vty
from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.eos import Emulator
from xoff.lab.emulators.eos.apply import bgp_commands, sync
from xoff.lab.emulators.eos.model import Bgp, Interface, Neighbor, RunningConfig


def _cli(tmp_path: Path, **kw: object) -> tuple[Cli, RecordingContext]:
    ctx = RecordingContext(device="spine2", state_dir=tmp_path / "state", netns="xl-t-spine2", **kw)  # type: ignore[arg-type]
    cli = Cli(Emulator(ctx, clock=kw.pop("clock", FakeClock()) if "clock" in kw else FakeClock()))  # type: ignore[arg-type]
    cli.quiet("enable")
    ctx.clear()
    return cli, ctx


def _ip(ctx: RecordingContext) -> list[list[str] | str]:
    """Each change's ``ip -batch`` lines (one list per ip process) and ``sysctl`` runs, in order."""
    out: list[list[str] | str] = []
    batches = iter(ctx.ip_batches())
    for argv in ctx.calls:
        if argv == ["ip", "-force", "-batch", "-"]:
            out.append(next(batches))
        elif argv[0] == "sysctl":
            out.append(" ".join(argv))
    assert not [c for c in ctx.calls if c[0] == "ip" and c != ["ip", "-force", "-batch", "-"] and "-j" not in c]
    return out


def test_interface_changes_become_ip_commands(tmp_path: Path) -> None:
    cli, ctx = _cli(tmp_path)
    cli.quiet(
        "configure",
        "interface Ethernet1/1",
        "no switchport",
        "ip address 198.18.0.2/31",
        "mtu 9100",
        "shutdown",
        "no shutdown",
        "description only in the config",
        "interface Loopback0",
        "ip address 198.18.255.2/32",
        "ip routing",
        "interface Ethernet1/1",
        "no ip address",
        "end",
    )
    assert _ip(ctx) == [  # each line typed in ``configure`` is a change of its own: one ip process each
        ["address replace 198.18.0.2/31 dev Ethernet1_1"],
        ["link set dev Ethernet1_1 mtu 9100"],
        ["link set dev Ethernet1_1 down"],
        ["link set dev Ethernet1_1 up"],
        ["address replace 198.18.255.2/32 dev lo"],
        "sysctl -q -w net.ipv4.ip_forward=1",
        ["address del 198.18.0.2/31 dev Ethernet1_1"],
    ]


def test_bgp_changes_become_vtysh(tmp_path: Path) -> None:
    cli, ctx = _cli(
        tmp_path, frr_vty_dir=tmp_path / "frr", answers={"show running-config": " neighbor FABRIC peer-group\n"}
    )
    cli.quiet("configure", "router bgp 65100", "router-id 198.18.255.2", "neighbor 198.18.0.3 remote-as 65101")
    cli.quiet("neighbor 198.18.0.3 description leaf1:Ethernet40", "maximum-paths 64 ecmp 64")
    cli.quiet("address-family ipv4", "network 198.18.255.2/32", "no network 198.18.255.2/32", "end")
    runs = [c[c.index("-c") :] for c in ctx.calls if c[0] == "vtysh" and "configure terminal" in c]
    lines = [[c for c in run if c != "-c"] for run in runs]
    assert lines == [
        ["configure terminal", "router bgp 65100", "no bgp ebgp-requires-policy", "exit"],  # EOS has no RFC 8212 deny
        ["configure terminal", "router bgp 65100", "bgp router-id 198.18.255.2", "exit"],
        [
            "configure terminal",
            "router bgp 65100",
            "neighbor 198.18.0.3 remote-as 65101",
            "neighbor 198.18.0.3 peer-group FABRIC",
            "exit",
        ],
        ["configure terminal", "router bgp 65100", "neighbor 198.18.0.3 description leaf1:Ethernet40", "exit"],
        [
            "configure terminal",
            "router bgp 65100",
            "address-family ipv4 unicast",
            "maximum-paths 64",
            "exit-address-family",
            "exit",
        ],
        [
            "configure terminal",
            "router bgp 65100",
            "address-family ipv4 unicast",
            "network 198.18.255.2/32",
            "exit-address-family",
            "exit",
        ],
        [
            "configure terminal",
            "router bgp 65100",
            "address-family ipv4 unicast",
            "no network 198.18.255.2/32",
            "exit-address-family",
            "exit",
        ],
    ]


def test_bgp_asn_change_and_removal() -> None:
    old = Bgp("65100", "198.18.255.2", neighbors={"198.18.0.3": Neighbor("65101")})
    new = Bgp("65200", "198.18.255.2", neighbors={"198.18.0.3": Neighbor("65101")})
    assert bgp_commands(old, new, peer_group=False) == [
        "no router bgp 65100",
        "router bgp 65200",
        "no bgp ebgp-requires-policy",
        "bgp router-id 198.18.255.2",
        "neighbor 198.18.0.3 remote-as 65101",
        "exit",
    ]
    assert bgp_commands(old, None, peer_group=False) == ["no router bgp 65100"]
    assert bgp_commands(old, old, peer_group=False) == []


def test_commit_timer_rollback_is_applied_too(tmp_path: Path) -> None:
    clock = FakeClock()
    ctx = RecordingContext(device="spine2", state_dir=tmp_path / "state", netns="xl-t-spine2")
    cli = Cli(Emulator(ctx, clock=clock))
    cli.quiet("enable", "configure", "interface Ethernet1/1", "mtu 9100", "end")
    cli.quiet("configure session s1", "interface Ethernet1/1", "mtu 9000", "commit timer 00:00:10")
    ctx.clear()
    clock.now += 11
    cli.run("show version")
    assert _ip(ctx) == [["link set dev Ethernet1_1 mtu 9100"]]


def test_boot_applies_the_startup_config(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "startup-config").write_text(
        "interface Ethernet1/1\n   no switchport\n   ip address 198.18.0.2/31\n!\nip routing\n!\nend\n",
        encoding="utf-8",
    )
    ctx = RecordingContext(device="spine2", state_dir=state, netns="xl-t-spine2")
    Emulator(ctx)
    assert _ip(ctx) == [
        [  # one ip process for the whole startup-config
            "address replace 198.18.0.2/31 dev Ethernet1_1",
            "link set dev Ethernet1_1 mtu 1500",
            "link set dev Ethernet1_1 up",
            "link set dev Management1 up",  # every EOS switch has Management1, this one too
        ],
        "sysctl -q -w net.ipv4.ip_forward=1",
    ]
    Emulator(ctx)  # a second session of a running device applies nothing
    assert len(_ip(ctx)) == 2


# --- the real thing ---------------------------------------------------------------------------------

FRR_CONF = """frr defaults datacenter
hostname {host}
router bgp {asn}
 bgp router-id {rid}
 no bgp ebgp-requires-policy
 timers bgp 1 3
 neighbor FABRIC peer-group
 neighbor {peer} remote-as {peer_asn}
 neighbor {peer} peer-group FABRIC
 address-family ipv4 unicast
  network {rid}/32
  neighbor FABRIC activate
 exit-address-family
"""


def _sh(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=30).stdout


def _start_frr(d: Path, ns: str, **conf: str) -> None:
    d.mkdir(parents=True)
    (d / "frr.conf").write_text(FRR_CONF.format(**conf), encoding="utf-8")
    (d / "zebra.conf").write_text(f"hostname {conf['host']}\n", encoding="utf-8")
    (d / "vtysh.conf").touch()
    shutil.chown(d, "frr", "frr")
    common = ["-d", "-P", "0", "-z", str(d / "zserv.api"), "--vty_socket", str(d)]
    _sh(
        "ip",
        "netns",
        "exec",
        ns,
        "/usr/lib/frr/zebra",
        "-f",
        str(d / "zebra.conf"),
        "-i",
        str(d / "zebra.pid"),
        *common,
    )
    _sh("ip", "netns", "exec", ns, "/usr/lib/frr/bgpd", "-f", str(d / "frr.conf"), "-i", str(d / "bgpd.pid"), *common)


def _stop_frr(d: Path) -> None:
    for name in ("bgpd", "zebra"):
        pidfile = d / f"{name}.pid"
        if pidfile.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pidfile.read_text().strip()), 15)


def _typed_on_bgpd_vty(vty_dir: Path) -> None:
    """Configuration lines typed on real bgpd's vty socket (as a commit types them, without vtysh): taken, and
    a line bgpd refuses comes back as an error in bgpd's words."""
    described = ["router bgp 65100", "neighbor 198.18.0.3 description typed-on-the-vty", "exit"]
    assert frr_vty.configure(vty_dir, described) == []
    frr = _sh("vtysh", "--vty_socket", str(vty_dir), "-c", "show running-config")
    assert " neighbor 198.18.0.3 description typed-on-the-vty" in frr
    refused = frr_vty.configure(vty_dir, ["router bgp 65100", "neighbor 198.18.0.99 description nobody", "exit"])
    assert refused is not None and len(refused) == 1, refused
    assert refused[0].startswith("% Error: bgpd: neighbor 198.18.0.99 description nobody: %"), refused


@pytest.mark.lab
def test_real_namespace_and_frr_follow_the_cli(tmp_path: Path) -> None:
    lab = f"eosu{os.getpid()}"
    spine, leaf = f"xl-{lab}-spine2", f"xl-{lab}-leaf1"
    frr_root = Path(tempfile.mkdtemp(prefix=f"xl-{lab}-"))  # FRR runs as user frr: pytest's tmp dirs are 0700
    frr_root.chmod(0o755)
    frr_spine, frr_leaf = frr_root / "spine2", frr_root / "leaf1"
    try:
        for ns in (spine, leaf):
            _sh("ip", "netns", "add", ns)
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
        _sh(
            "ip",
            "link",
            "add",
            "Ethernet1_1",
            "netns",
            spine,
            "type",
            "veth",
            "peer",
            "name",
            "Ethernet40",
            "netns",
            leaf,
        )
        _sh("ip", "-n", leaf, "address", "add", "198.18.0.3/31", "dev", "Ethernet40")
        _sh("ip", "-n", leaf, "address", "add", "198.18.255.11/32", "dev", "lo")
        _sh("ip", "-n", leaf, "link", "set", "Ethernet40", "up")
        _start_frr(frr_leaf, leaf, host="leaf1", asn="65101", rid="198.18.255.11", peer="198.18.0.2", peer_asn="65100")
        _start_frr(
            frr_spine, spine, host="spine2", asn="65100", rid="198.18.255.2", peer="198.18.0.3", peer_asn="65101"
        )

        state = tmp_path / "state"
        state.mkdir()
        (state / "startup-config").write_text(
            "hostname spine2\n!\ninterface Ethernet1/1\n   no switchport\n   ip address 198.18.0.2/31\n!\n"
            "interface Loopback0\n   ip address 198.18.255.2/32\n!\nip routing\n!\nrouter bgp 65100\n"
            "   router-id 198.18.255.2\n   neighbor 198.18.0.3 remote-as 65101\n   !\n   address-family ipv4\n"
            "      network 198.18.255.2/32\n!\nend\n",
            encoding="utf-8",
        )
        ctx = EmulatorContext(device="spine2", state_dir=state, netns=spine, frr_vty_dir=frr_spine)
        cli = Cli(Emulator(ctx))  # boots: addresses and the link come up in the namespace
        cli.quiet("enable")
        deadline = time.monotonic() + SETTLE_S
        while "Estab" not in cli.run("show ip bgp summary") and time.monotonic() < deadline:
            time.sleep(0.25)
        assert "Estab" in cli.run("show ip bgp summary"), cli.run("show ip bgp summary")

        cli.quiet(
            "configure",
            "interface Ethernet1/1",
            "mtu 9100",
            "interface Loopback0",
            "ip address 198.18.255.22/32 secondary",
        )
        cli.quiet("router bgp 65100", "address-family ipv4", "network 198.18.255.22/32", "end")
        link = _sh("ip", "-n", spine, "-o", "link", "show", "Ethernet1_1")
        assert " mtu 9100 " in link
        assert "198.18.255.22/32" in _sh("ip", "-n", spine, "-o", "address", "show", "dev", "lo")
        frr = _sh("vtysh", "--vty_socket", str(frr_spine), "-c", "show running-config")
        assert "  network 198.18.255.22/32" in frr
        _typed_on_bgpd_vty(frr_spine)
        deadline = time.monotonic() + SETTLE_S
        routes = ""
        while "198.18.255.22/32" not in routes and time.monotonic() < deadline:
            time.sleep(0.25)
            routes = _sh("vtysh", "--vty_socket", str(frr_leaf), "-c", "show ip bgp")
        assert "198.18.255.22/32" in routes, "the leaf learned the new network over the real session"

        cli.quiet("configure", "interface Ethernet1/1", "shutdown", "end")
        assert "state DOWN" in _sh("ip", "-n", spine, "-o", "link", "show", "Ethernet1_1")
        (row,) = [r for r in cli.run("show interfaces status").splitlines() if r.startswith("Et1/1 ")]
        assert row.split()[1] == "disabled"
    finally:
        _stop_frr(frr_spine)
        _stop_frr(frr_leaf)
        for ns in (spine, leaf):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
        shutil.rmtree(frr_root, ignore_errors=True)
    leftovers = _sh("ip", "netns", "list")
    assert spine not in leftovers and leaf not in leftovers


@pytest.mark.lab
def test_one_ip_batch_per_change_goes_on_past_a_failed_line(tmp_path: Path) -> None:
    """A change's ip commands run in one ``ip -force -batch``: a failed line is reported with its own
    command and ip's words, the lines after it still run, and an absent port is accepted as EOS accepts it."""
    ns = f"xl-eosb{os.getpid()}-sw"
    try:
        _sh("ip", "netns", "add", ns)
        _sh("ip", "-n", ns, "link", "add", "Ethernet1_1", "type", "veth", "peer", "name", "peer1")
        ctx = EmulatorContext(device="sw", state_dir=tmp_path, netns=ns)
        old = RunningConfig(  # says the port has an address the namespace does not have
            interfaces={"Ethernet1/1": Interface("Ethernet1/1", routed=True, addresses=["198.18.0.9/31"])}
        )
        new = RunningConfig(
            interfaces={
                "Ethernet1/1": Interface("Ethernet1/1", routed=True, mtu=9100, addresses=["198.18.0.2/31"]),
                "Ethernet9/1": Interface("Ethernet9/1", routed=True, addresses=["198.18.0.4/31"]),  # no such port
                "Loopback0": Interface("Loopback0", addresses=["198.18.255.2/32"]),
            }
        )
        errors = sync(ctx, old, new)
        assert errors == ["% Error: ip address del 198.18.0.9/31 dev Ethernet1_1: Error: ipv4: Address not found."]
        assert " mtu 9100 " in _sh("ip", "-n", ns, "-o", "link", "show", "Ethernet1_1")
        assert "198.18.0.2/31" in _sh("ip", "-n", ns, "-o", "address", "show", "dev", "Ethernet1_1")
        assert "198.18.255.2/32" in _sh("ip", "-n", ns, "-o", "address", "show", "dev", "lo")
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
