"""EOS's routing table as forwarding: ``show ip route | json`` -> FIB entries (prefix -> egress ports).

The eAPI shape: ``vrfs.default.routes[<prefix>]`` with ``routeType`` (connected, static, eBGP, iBGP,
...), ``routeAction`` (forward, drop, ...), ``hardwareProgrammed`` and ``vias`` (``nexthopAddr`` and
``interface``, one per ECMP path). Only what the hardware forwards counts: a route not programmed in
hardware is skipped, a ``drop`` route has no egress port. Port names are EOS's own, which are the
intent's. Malformed output raises ``ValueError`` naming what is wrong, never an empty FIB.
"""

from __future__ import annotations

import json
from ipaddress import IPv4Network
from typing import Any

from xoff.contracts.fib import FibEntry

COMMAND = "show ip route | json"


def parse_route_json(text: str) -> list[FibEntry]:
    """The default VRF's installed IPv4 routes, one entry per prefix, sorted by prefix."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{COMMAND}: not JSON ({exc.msg} at line {exc.lineno})") from None
    vrfs = data.get("vrfs") if isinstance(data, dict) else None
    if not isinstance(vrfs, dict) or not isinstance(vrfs.get("default"), dict):
        raise ValueError(f"{COMMAND}: no vrfs.default object")
    routes = vrfs["default"].get("routes")
    if not isinstance(routes, dict):
        raise ValueError(f"{COMMAND}: vrfs.default.routes: expected an object keyed by prefix")
    out: list[FibEntry] = []
    for prefix, route in routes.items():
        if not isinstance(route, dict) or not isinstance(route.get("vias", []), list):
            raise ValueError(f"{COMMAND}: {prefix}: expected a route object with a list of vias")
        try:
            network = IPv4Network(prefix)
        except ValueError:
            raise ValueError(f"{COMMAND}: {prefix}: not an IPv4 prefix") from None
        if route.get("hardwareProgrammed") is False:
            continue
        out.append(FibEntry(network, str(route.get("routeType", "")), _ports(route)))
    return sorted(out, key=lambda e: (int(e.prefix.network_address), e.prefix.prefixlen))


def _ports(route: dict[str, Any]) -> tuple[str, ...]:
    if route.get("routeAction", "forward") != "forward":
        return ()
    return tuple(
        sorted({str(v["interface"]) for v in route.get("vias", []) if isinstance(v, dict) and "interface" in v})
    )
