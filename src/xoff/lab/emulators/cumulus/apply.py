"""``nv config apply``: the whole-revision checks NVUE runs before it touches the system, and carrying an
accepted revision into the device's namespace and FRR (what ifupdown2 and frr-reload do on a switch).

Checks (all reported, nothing applied when any fails): a port's ``qos pfc profile`` names a defined
``qos pfc`` profile; the PFC watchdog is on a port with PFC; ECN ``min-threshold`` <= ``max-threshold``;
DWRR ``bw-percent`` of one scheduler profile totals at most 100; BGP neighbours need
``router bgp autonomous-system``.

System side (differences only, old applied -> new applied): interface addresses (``ip address``),
MTU (``link mtu``; NVUE's default 9216 when unset), admin state (``link state``; a port without one is
down, as an unconfigured Cumulus port is), BGP neighbours and networks and ``vrf default router static`` routes (staticd) in the device's FRR
(vtysh). The
management port eth0 is never touched: it carries the lab's SSH session. Failures of the system side are
logged into the reply, never undo the revision (NVUE reports them the same way).
"""

from __future__ import annotations

import ipaddress
import json
import subprocess
from typing import Any

from xoff.lab.emulators import static_routes
from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.cumulus.tree import Tree, get_path
from xoff.lab.names import linux_ifname

DEFAULT_MTU = 9216
MGMT_PORTS = frozenset({"eth0"})


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def check(tree: Tree) -> list[str]:
    """The reasons NVUE would refuse to apply ``tree`` (empty when it applies)."""
    qos = _dict(tree.get("qos"))
    problems = _interface_problems(tree, qos)
    for profile, body in _dict(qos.get("congestion-control")).items():
        for tc, cfg in _dict(_dict(body).get("traffic-class")).items():
            lo, hi = _dict(cfg).get("min-threshold"), _dict(cfg).get("max-threshold")
            if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
                problems.append(
                    f"qos congestion-control {profile} traffic-class {tc}: min-threshold {lo} is greater than max-threshold {hi}"
                )
    for profile, body in _dict(qos.get("egress-scheduler")).items():
        total = sum(
            int(_dict(cfg).get("bw-percent", 0))
            for cfg in _dict(_dict(body).get("traffic-class")).values()
            if _dict(cfg).get("mode", "dwrr") == "dwrr"
        )
        if total > 100:
            problems.append(
                f"qos egress-scheduler {profile}: bw-percent of the dwrr traffic classes total {total} (at most 100)"
            )
    asn = get_path(tree, ("router", "bgp", "autonomous-system"))
    for vrf, body in _dict(tree.get("vrf")).items():
        if _dict(get_path(_dict(body), ("router", "bgp", "neighbor"))) and not isinstance(asn, int):
            problems.append(f"vrf {vrf} router bgp neighbor: router bgp autonomous-system is not set")
    return problems


def _interface_problems(tree: Tree, qos: dict[str, Any]) -> list[str]:
    """A port's QoS profile that does not exist (``default-global`` always does, except for PFC: NVUE has no
    PFC profile until one is set), and a watchdog on a port without PFC."""
    problems: list[str] = []
    for name, iface in _dict(tree.get("interface")).items():
        port_qos = _dict(_dict(iface).get("qos"))
        for kind in ("pfc", "mapping", "egress-scheduler", "congestion-control"):
            profile = _dict(port_qos.get(kind)).get("profile")
            known = _dict(qos.get(kind))
            if profile is not None and profile not in known and (kind == "pfc" or profile != "default-global"):
                problems.append(f"interface {name} qos {kind} profile: profile '{profile}' does not exist")
        pfc = _dict(port_qos.get("pfc")).get("profile")
        if _dict(port_qos.get("pfc-watchdog")).get("state") == "enable" and pfc is None:
            problems.append(f"interface {name} qos pfc-watchdog: PFC is not enabled on {name}")
    return problems


# --- the system side ---------------------------------------------------------------------------------


def _interfaces(tree: Tree) -> dict[str, dict[str, Any]]:
    return {k: _dict(v) for k, v in _dict(tree.get("interface")).items() if k not in MGMT_PORTS}


def _addresses(iface: dict[str, Any]) -> set[str]:
    return set(_dict(_dict(iface.get("ip")).get("address")))


def _link(iface: dict[str, Any]) -> dict[str, Any]:
    return _dict(iface.get("link"))


def _state(iface: dict[str, Any]) -> str:
    return next(iter(_dict(_link(iface).get("state"))), "down")


def namespace_commands(old: Tree, new: Tree) -> list[list[str]]:
    """``ip`` commands taking the namespace from ``old`` to ``new``: removals, MTUs, additions, admin states."""
    before, after = _interfaces(old), _interfaces(new)
    names = list(dict.fromkeys([*before, *after]))
    out: list[list[str]] = []
    for name in names:
        dev = "lo" if name == "lo" else linux_ifname(name)
        a, b = before.get(name, {}), after.get(name, {})
        out += [["ip", "address", "del", p, "dev", dev] for p in sorted(_addresses(a) - _addresses(b))]
        if dev != "lo" and _link(a).get("mtu", DEFAULT_MTU) != _link(b).get("mtu", DEFAULT_MTU):
            out.append(["ip", "link", "set", "dev", dev, "mtu", str(_link(b).get("mtu", DEFAULT_MTU))])
        out += [["ip", "address", "replace", p, "dev", dev] for p in sorted(_addresses(b) - _addresses(a))]
        if dev != "lo" and _state(a) != _state(b):
            out.append(["ip", "link", "set", "dev", dev, _state(b)])
    return out


def _bgp(tree: Tree) -> tuple[int | None, dict[str, Any], set[str]]:
    asn = get_path(tree, ("router", "bgp", "autonomous-system"))
    base = _dict(get_path(tree, ("vrf", "default", "router", "bgp")))
    neighbors = {k: _dict(v) for k, v in _dict(base.get("neighbor")).items()}
    networks = set(_dict(get_path(base, ("address-family", "ipv4-unicast", "network"))))
    return (asn if isinstance(asn, int) else None), neighbors, networks


def frr_commands(old: Tree, new: Tree) -> list[str]:
    """vtysh configuration lines for the BGP difference (default VRF)."""
    asn_old, nbr_old, net_old = _bgp(old)
    asn_new, nbr_new, net_new = _bgp(new)
    if asn_new is None:
        return [f"no router bgp {asn_old}"] if asn_old is not None else []
    body: list[str] = []
    body += [f"no neighbor {a}" for a in nbr_old if a not in nbr_new]
    for address, cfg in nbr_new.items():
        if cfg.get("remote-as") != nbr_old.get(address, {}).get("remote-as"):
            body.append(f"neighbor {address} remote-as {cfg.get('remote-as', 'external')}")
    family = [f"no network {p}" for p in sorted(net_old - net_new)] + [
        f"network {p}" for p in sorted(net_new - net_old)
    ]
    if family:
        body += ["address-family ipv4 unicast", *family, "exit-address-family"]
    router_id = get_path(new, ("router", "bgp", "router-id"))
    if router_id is not None and router_id != get_path(old, ("router", "bgp", "router-id")):
        body.insert(0, f"bgp router-id {router_id}")
    if not body and asn_new == asn_old:
        return []
    return [f"router bgp {asn_new}", *body]


def static_route_set(tree: Tree) -> set[static_routes.Route]:
    """``vrf default router static <prefix> via <via>``: one Route per ``via`` (an address, or a port)."""
    out: set[static_routes.Route] = set()
    for prefix, body in _dict(get_path(tree, ("vrf", "default", "router", "static"))).items():
        via_ids = _dict(body).get("via")  # a map of via ids, or one id as a scalar (``nv set`` of a single via)
        for via_id in _dict(via_ids) if isinstance(via_ids, dict) else [via_ids] if via_ids is not None else []:
            via = str(via_id)
            try:
                out.add(static_routes.Route(prefix, str(ipaddress.IPv4Address(via))))
            except ValueError:
                out.add(static_routes.Route(prefix, None, linux_ifname(via)))
    return out


def _present_links(ctx: EmulatorContext) -> set[str]:
    try:
        proc = ctx.run_in_netns(["ip", "-j", "link", "show"], check=False)
    except (OSError, subprocess.SubprocessError):
        return set()
    if proc.returncode != 0:
        return set()
    return {str(link["ifname"]) for link in json.loads(proc.stdout or "[]")}


def vtysh(ctx: EmulatorContext) -> list[str] | None:
    if ctx.frr_vty_dir is None:
        return None
    argv = ["vtysh", "--vty_socket", str(ctx.frr_vty_dir)]
    if (ctx.frr_vty_dir / "vtysh.conf").exists():
        argv += ["--config_dir", str(ctx.frr_vty_dir)]
    return argv


def apply_to_system(ctx: EmulatorContext, old: Tree, new: Tree) -> list[str]:
    """Carry an applied revision into the namespace and FRR; the warnings of what failed (no-ops without a lab)."""
    warnings: list[str] = []
    if ctx.netns is not None:
        present = _present_links(ctx)
        for argv in namespace_commands(old, new):
            if argv[argv.index("dev") + 1] not in present:
                continue  # a port this box does not have: NVUE keeps its configuration all the same
            done = ctx.run_in_netns(argv, check=False)
            if done.returncode != 0 and "File exists" not in done.stderr:
                warnings.append(f"{' '.join(argv)}: {done.stderr.strip()}")
    # static routes first: config-node lines, and the BGP lines leave vtysh in router bgp
    lines = static_routes.frr_lines(static_route_set(old), static_route_set(new)) + frr_commands(old, new)
    base = vtysh(ctx)
    if lines and base is not None:
        argv = [*base, "-c", "configure terminal"]
        for line in lines:
            argv += ["-c", line]
        try:
            done = ctx.run_in_netns(argv, check=False)
            if done.returncode != 0:
                warnings.append(f"frr reload: {(done.stderr or done.stdout).strip()}")
        except (OSError, subprocess.SubprocessError) as exc:
            warnings.append(f"frr reload: {exc}")
    return warnings
