"""``show ip route`` in EOS's text and ``| json`` forms, from the device's FRR (the lab's FRR stands in
for EOS's routing agents).

The eAPI model (as EOS prints it): ``vrfs.default`` with ``routingDisabled``, ``allRoutesProgrammed*``,
``defaultRouteState`` and ``routes[<prefix>]`` = ``routeType`` (connected, static, eBGP, iBGP, kernel),
``routeAction``, ``hardwareProgrammed``, ``kernelProgrammed``, ``directlyConnected``, ``routeLeaked``,
``preference`` / ``metric`` (not on connected routes) and ``vias`` (``nexthopAddr`` and ``interface``).
Only FRR's selected routes are shown (EOS's table holds the active route per prefix); interface names
are mapped from Linux back to EOS's (``Ethernet1_1`` -> ``Ethernet1/1``, ``lo`` -> the Loopback holding
the address). Without a namespace or FRR (unit tests) the table has the connected routes only.
"""

from __future__ import annotations

import json
import subprocess
from ipaddress import IPv4Interface, IPv4Network
from typing import Any

from xoff.lab.emulators import frr_vty
from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.eos import ifnames
from xoff.lab.emulators.eos.apply import linux_name
from xoff.lab.emulators.eos.model import RunningConfig

Json = dict[str, Any]
# FRR protocol -> EOS routeType, and EOS's default administrative distance for it
ROUTE_TYPES: dict[str, tuple[str, int | None]] = {
    "connected": ("connected", None),
    "local": ("connected", None),
    "static": ("static", 1),
    "kernel": ("kernel", 40),
    "ospf": ("ospfIntraArea", 110),
}
EBGP, IBGP, BGP_PREFERENCE = "eBGP", "iBGP", 200
FRR_IBGP_DISTANCE = 200  # FRR tells eBGP (20) from iBGP (200) routes by their distance only
CODES = {"connected": "C", "static": "S", "kernel": "K", "eBGP": "B E", "iBGP": "B I", "ospfIntraArea": "O"}
HEADER = """VRF: default
Source Codes:
       C - connected, S - static, K - kernel,
       O - OSPF, IA - OSPF inter area, E1 - OSPF external type 1,
       E2 - OSPF external type 2, N1 - OSPF NSSA external type 1,
       N2 - OSPF NSSA external type2, B - Other BGP Routes,
       B I - iBGP, B E - eBGP, R - RIP, I L1 - IS-IS level 1,
       I L2 - IS-IS level 2, O3 - OSPFv3, A B - BGP Aggregate,
       A O - OSPF Summary, NG - Nexthop Group Static Route,
       V - VXLAN Control Service, M - Martian,
       DH - DHCP client installed default route,
       DP - Dynamic Policy Route, L - VRF Leaked,
       G  - gRIBI, RC - Route Cache Route

"""


def _frr_routes(ctx: EmulatorContext) -> Json | None:
    if ctx.netns is None or ctx.frr_vty_dir is None:
        return None
    command = "show ip route json"
    text = frr_vty.ask(ctx.frr_vty_dir, command)  # vtysh's output without starting vtysh
    if text is None:
        try:
            done = ctx.run_in_netns(["vtysh", "--vty_socket", str(ctx.frr_vty_dir), "-c", command], check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        text = done.stdout if done.returncode == 0 else None
    try:
        data = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _connected(cfg: RunningConfig) -> Json:
    """FRR's shape for the configured addresses: what the table has without a routing daemon."""
    out: Json = {}
    for name, iface in cfg.interfaces.items():
        if iface.shutdown:
            continue
        for address in iface.addresses:
            net = IPv4Interface(address).network
            hop = {"interfaceName": linux_name(name), "active": True, "fib": True, "directlyConnected": True}
            out[str(net)] = [{"protocol": "connected", "selected": True, "installed": True, "nexthops": [hop]}]
    return out


def _eos_names(cfg: RunningConfig) -> dict[str, str]:
    return {linux_name(n): n for n in cfg.interfaces if ifnames.kind(n) != "Loopback"}


def _loopback_for(cfg: RunningConfig, prefix: IPv4Network) -> str | None:
    for name, iface in cfg.interfaces.items():
        if ifnames.kind(name) == "Loopback" and any(IPv4Interface(a).network == prefix for a in iface.addresses):
            return name
    return None


def _route(frr: Json, prefix: IPv4Network, cfg: RunningConfig) -> Json | None:
    protocol = str(frr.get("protocol", ""))
    preference: int | None
    if protocol == "bgp":
        internal = frr.get("distance") == FRR_IBGP_DISTANCE
        route_type, preference = (IBGP if internal else EBGP), BGP_PREFERENCE
    elif protocol in ROUTE_TYPES:
        route_type, preference = ROUTE_TYPES[protocol]
    else:
        return None  # a protocol EOS would not show in its default table
    names = _eos_names(cfg)
    vias: list[Json] = []
    for hop in frr.get("nexthops", []):
        if not hop.get("active"):
            continue
        ifname = str(hop.get("interfaceName", ""))
        interface = names.get(ifname) or (_loopback_for(cfg, prefix) if ifname == "lo" else None) or ifname
        via: Json = {"interface": interface} if interface else {}
        if "ip" in hop and not hop.get("directlyConnected"):
            via = {"nexthopAddr": hop["ip"], **via}
        if via and via not in vias:
            vias.append(via)
    connected = route_type == "connected"
    installed = bool(frr.get("installed"))
    route: Json = {
        "hardwareProgrammed": installed,
        "routeType": route_type,
        "routeLeaked": False,
        "kernelProgrammed": installed,
        "routeAction": "forward" if vias else "drop",
        "directlyConnected": connected,
    }
    if not connected:
        route["preference"] = preference
        route["metric"] = int(frr.get("metric", 0))
    route["vias"] = vias
    return route


def ip_route(ctx: EmulatorContext, cfg: RunningConfig) -> tuple[str, Json]:
    frr = _frr_routes(ctx)
    table = frr if frr is not None else _connected(cfg)
    routes: Json = {}
    for prefix, candidates in table.items():
        try:
            network = IPv4Network(prefix)
        except ValueError:
            continue
        chosen = [r for r in candidates if isinstance(r, dict) and r.get("selected")]
        shown = _route(chosen[0], network, cfg) if chosen else None
        if shown is not None:
            routes[str(network)] = shown
    ordered = dict(sorted(routes.items(), key=lambda kv: IPv4Network(kv[0])))
    default = "reachable" if "0.0.0.0/0" in ordered else "notSet"
    data = {
        "vrfs": {
            "default": {
                "routingDisabled": not cfg.ip_routing,
                "allRoutesProgrammedHardware": all(r["hardwareProgrammed"] for r in ordered.values()),
                "allRoutesProgrammedKernel": all(r["kernelProgrammed"] for r in ordered.values()),
                "defaultRouteState": default,
                "routes": ordered,
            }
        }
    }
    return _text(ordered), data


def _text(routes: Json) -> str:
    lines = [HEADER, "Gateway of last resort is not set\n\n"]
    for prefix, r in routes.items():
        code = CODES.get(r["routeType"], "B")
        head = f" {code:<8} {prefix}"
        if r["directlyConnected"]:
            lines.append(f"{head} is directly connected, {r['vias'][0]['interface'] if r['vias'] else 'Null0'}\n")
            continue
        vias = r["vias"] or [{"interface": "Null0"}]
        dist = f"[{r['preference']}/{r['metric']}]"
        for i, v in enumerate(vias):
            hop = f"via {v['nexthopAddr']}, {v['interface']}" if "nexthopAddr" in v else f"via {v['interface']}"
            lines.append(f"{head} {dist} {hop}\n" if i == 0 else f"{' ' * (len(head) + len(dist) + 1)} {hop}\n")
    return "".join(lines) + "\n"
