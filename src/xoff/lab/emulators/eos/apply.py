"""Make the lab follow the running-config: interface addresses, MTU and admin state in the device's
namespace (one ``ip -batch`` per change), IP forwarding for ``ip routing`` (the write ``sysctl`` would
make, made here), and BGP and static routes (``ip route``, into staticd) in the device's FRR (typed on the
daemons' vty sockets as vtysh types them, ``frr_vty``; vtysh itself when a socket fails): FRR stands in for EOS's routing agents, so the static route
reaches the namespace's FIB as it would reach the switch's.

Only differences are applied (old configuration -> new), so a commit, a ``configure replace``, a
commit-timer rollback and a single typed line all go through ``sync``. ASIC state (QoS, PFC, ECN)
has no kernel counterpart here and lives only in the configuration.
"""

from __future__ import annotations

import ipaddress
import re
import subprocess
from pathlib import Path

from xoff.lab.emulators import frr_vty, static_routes
from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.eos import ifnames
from xoff.lab.emulators.eos.model import DEFAULT_MTU, Bgp, Interface, Neighbor, RunningConfig
from xoff.lab.names import linux_ifname

FABRIC_PEER_GROUP = "FABRIC"  # the peer group xoff's frr.conf puts fabric neighbours in (platforms/frr)
_FAILED_LINE = re.compile(r"Command failed -:(\d+)")  # ip -batch after a failed line


def linux_name(port: str) -> str:
    """The kernel's name for an EOS port: loopback addresses live on ``lo`` (the lab has no dummy interfaces)."""
    return "lo" if ifnames.kind(port) == "Loopback" else linux_ifname(port)


def _run(ctx: EmulatorContext, argv: list[str], errors: list[str]) -> str:
    try:
        done = ctx.run_in_netns(argv, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        errors.append(f"% Error: {' '.join(argv)}: {exc}")
        return ""
    if done.returncode != 0 and "Cannot find device" not in done.stderr:
        # a port the namespace does not have: EOS too accepts configuration for an absent module
        errors.append(f"% Error: {' '.join(argv)}: {(done.stderr or done.stdout).strip()}")
    return done.stdout


def _interface_argv(old: Interface | None, new: Interface | None) -> list[list[str]]:
    ref = new if new is not None else old
    assert ref is not None
    dev = linux_name(ref.name)
    out: list[list[str]] = []
    before = set(old.addresses) if old is not None else set()
    after = set(new.addresses) if new is not None else set()
    out += [["ip", "address", "del", a, "dev", dev] for a in sorted(before - after)]
    out += [["ip", "address", "replace", a, "dev", dev] for a in sorted(after - before)]
    if dev == "lo":
        return out
    if ref.kind == "Ethernet":
        mtu_old = (old.mtu or DEFAULT_MTU) if old is not None else None
        mtu_new = (new.mtu or DEFAULT_MTU) if new is not None else DEFAULT_MTU
        if mtu_old != mtu_new:
            out.append(["ip", "link", "set", "dev", dev, "mtu", str(mtu_new)])
    down_old = old.shutdown if old is not None else None
    down_new = new.shutdown if new is not None else False
    if down_old != down_new:
        out.append(["ip", "link", "set", "dev", dev, "down" if down_new else "up"])
    return out


def interface_commands(old: RunningConfig | None, new: RunningConfig) -> list[list[str]]:
    """The ``ip`` commands that take the namespace from ``old`` to ``new`` (everything, if ``old`` is None)."""
    out: list[list[str]] = []
    before = old.interfaces if old is not None else {}
    for name in ifnames.sort_names(sorted(set(before) | set(new.interfaces))):
        # a port seen for the first time was there all along, with its defaults; at boot (no old
        # configuration) the kernel's state is unknown, so everything is set
        a = before.get(name, Interface(name)) if old is not None else None
        b = new.interfaces.get(name)
        if a != b:
            out += _interface_argv(a, b)
    if old is None or old.ip_routing != new.ip_routing:
        out.append(["sysctl", "-q", "-w", f"net.ipv4.ip_forward={int(new.ip_routing)}"])
    return out


def _frr_peers(bgp: Bgp) -> dict[str, Neighbor]:
    """The neighbours FRR is told about: IPv4 peers with their own remote-as (peer groups, their members'
    inherited AS and the other per-neighbour lines stay in the running-config only)."""
    out: dict[str, Neighbor] = {}
    for addr, n in bgp.neighbors.items():
        try:
            ipaddress.IPv4Address(addr)
        except ValueError:
            continue
        if n.remote_as is not None:
            out[addr] = n
    return out


def _bgp_body(old: Bgp | None, new: Bgp, peer_group: bool) -> list[str]:
    """vtysh lines inside ``router bgp`` taking FRR from ``old`` to ``new`` (same ASN)."""
    out: list[str] = []
    was_bgp = old if old is not None else Bgp(new.asn)  # a new instance starts from nothing configured
    if was_bgp.router_id != new.router_id:
        out.append(f"bgp router-id {new.router_id}" if new.router_id else "no bgp router-id")
    was_peers, new_peers = _frr_peers(was_bgp), _frr_peers(new)
    for addr in sorted(set(was_peers) - set(new_peers)):
        out.append(f"no neighbor {addr}")
    for addr, n in new_peers.items():
        was = was_peers.get(addr)
        if was is None or was.remote_as != n.remote_as:
            out.append(f"neighbor {addr} remote-as {n.remote_as}")
            if peer_group:
                out.append(f"neighbor {addr} peer-group {FABRIC_PEER_GROUP}")
        if (was.description if was is not None else None) != n.description:
            out.append(
                f"neighbor {addr} description {n.description}" if n.description else f"no neighbor {addr} description"
            )
    af: list[str] = []
    if was_bgp.maximum_paths != new.maximum_paths:
        af.append(f"maximum-paths {new.maximum_paths}" if new.maximum_paths else "no maximum-paths")
    af += [f"no network {p}" for p in sorted(was_bgp.networks - new.networks)]
    af += [f"network {p}" for p in sorted(new.networks - was_bgp.networks)]
    if af:
        out += ["address-family ipv4 unicast", *af, "exit-address-family"]
    return out + _evpn_body(was_bgp, new, set(new_peers))


def _evpn_body(old: Bgp, new: Bgp, peers: set[str]) -> list[str]:
    """EOS's ``address-family evpn`` as FRR's ``address-family l2vpn evpn``: the activated IPv4 peers, and
    ``bgp next-hop-unchanged`` as each one's ``attribute-unchanged next-hop`` (FRR has it per neighbour), so
    the lab's EOS spine passes type-5 routes on with the far VTEP as next hop. A VRF's L3 VNI of an EOS leaf
    has no kernel counterpart here (the lab's tenant VRFs are built for FRR leaves, lab/tenant_vrfs.py)."""

    def wanted(bgp: Bgp) -> dict[str, bool]:
        if bgp.evpn is None:
            return {}
        return dict.fromkeys(sorted(bgp.evpn.active & peers), bgp.evpn.next_hop_unchanged)

    before, after = wanted(old), wanted(new)
    if before == after:
        return []
    lines = [f"no neighbor {p} activate" for p in sorted(set(before) - set(after))]
    for peer, unchanged in after.items():
        if peer not in before:
            lines.append(f"neighbor {peer} activate")
        if unchanged != before.get(peer, False):
            lines.append(f"{'' if unchanged else 'no '}neighbor {peer} attribute-unchanged next-hop")
    return ["address-family l2vpn evpn", *lines, "exit-address-family"]


def bgp_commands(old: Bgp | None, new: Bgp | None, peer_group: bool) -> list[str]:
    """vtysh configuration lines for an EOS ``router bgp`` change."""
    if old == new:
        return []
    out: list[str] = []
    if old is not None and (new is None or old.asn != new.asn):
        out.append(f"no router bgp {old.asn}")
        old = None
    if new is not None:
        # EOS applies no RFC 8212 default-deny to eBGP without policy; FRR does, so a BGP instance EOS
        # starts (a push onto a factory switch, the lab's own one gone with a rollback) says so
        fresh = ["no bgp ebgp-requires-policy"] if old is None else []
        out += [f"router bgp {new.asn}", *fresh, *_bgp_body(old, new, peer_group), "exit"]
    return out


def static_route_set(cfg: RunningConfig | None) -> set[static_routes.Route]:
    """The running-config's ``ip route`` lines as FRR routes (the kernel's port names)."""
    if cfg is None:
        return set()
    return {
        static_routes.Route(
            r.prefix, r.next_hop or None, linux_name(r.interface) if r.interface else None, None if d == 1 else d
        )
        for r, d in cfg.static_routes.items()
    }


def _frr_has_peer_group(ctx: EmulatorContext, errors: list[str]) -> bool:
    assert ctx.frr_vty_dir is not None
    shown = bgpd_running_config(ctx.frr_vty_dir)
    if shown is None:  # no answer on bgpd's socket: as vtysh says it
        shown = _run(ctx, ["vtysh", "--vty_socket", str(ctx.frr_vty_dir), "-c", "show running-config"], errors)
    return f"neighbor {FABRIC_PEER_GROUP} peer-group" in shown


def bgpd_running_config(vty_dir: Path) -> str | None:
    """bgpd's running-config, asked on its vty socket as vtysh asks it, or None when that fails. The peer
    group is bgpd's configuration; vtysh would cost ~30 ms of CPU building every daemon's command tree."""
    return frr_vty.show(vty_dir, "bgpd", "show running-config")


def _ip_batch(ctx: EmulatorContext, commands: list[list[str]], errors: list[str]) -> None:
    """The ``ip`` commands in one ``ip -force -batch -`` (one process per commit instead of one per command;
    ``-force`` goes on past a failed line as separate runs would). ip names each failed line after its
    message (``Command failed -:N``), so each error is reported against its own command."""
    lines = [" ".join(argv[1:]) for argv in commands]
    try:
        done = ctx.run_in_netns(["ip", "-force", "-batch", "-"], check=False, input="\n".join(lines) + "\n")
    except (OSError, subprocess.SubprocessError) as exc:
        errors.append(f"% Error: ip -batch: {exc}")
        return
    message: list[str] = []
    for row in done.stderr.splitlines():
        failed = _FAILED_LINE.fullmatch(row)
        if failed is None:
            message.append(row)
            continue
        text = "\n".join(message).strip()
        message = []
        # a port the namespace does not have: EOS too accepts configuration for an absent module
        if "Cannot find device" not in text:
            errors.append(f"% Error: ip {lines[int(failed.group(1)) - 1]}: {text}")
    if message and done.returncode != 0:  # a failure ip did not place on a line
        errors.append(f"% Error: ip -batch: {' '.join(message).strip()}")


def _sysctl(ctx: EmulatorContext, argv: list[str], errors: list[str]) -> None:
    """``sysctl -q -w KEY=VALUE`` as the one write it makes (``EmulatorContext.set_sysctl``), not a process."""
    key, _, value = argv[-1].partition("=")
    try:
        ctx.set_sysctl(key, value)
    except OSError as exc:
        errors.append(f"% Error: {' '.join(argv)}: {exc.strerror or exc}")


def sync(ctx: EmulatorContext, old: RunningConfig | None, new: RunningConfig) -> list[str]:
    """Apply the difference to the namespace and FRR; the errors, in EOS's ``% Error`` form."""
    errors: list[str] = []
    if ctx.netns is not None:
        commands = interface_commands(old, new)
        ip = [argv for argv in commands if argv[0] == "ip"]
        if ip:
            _ip_batch(ctx, ip, errors)
        for argv in commands:
            if argv[0] != "ip":
                _sysctl(ctx, argv, errors)
    if ctx.frr_vty_dir is not None:
        old_bgp = old.bgp if old is not None else None
        lines = static_routes.frr_lines(static_route_set(old), static_route_set(new))
        if old_bgp != new.bgp:
            lines += bgp_commands(old_bgp, new.bgp, _frr_has_peer_group(ctx, errors))
        if lines:
            typed = frr_vty.configure(ctx.frr_vty_dir, lines)
            if typed is None:  # a daemon's socket did not answer (or a line only vtysh can route): as vtysh says it
                argv = ["vtysh", "--vty_socket", str(ctx.frr_vty_dir), "-c", "configure terminal"]
                for line in lines:
                    argv += ["-c", line]
                _run(ctx, argv, errors)
            else:
                errors += typed
    return errors
