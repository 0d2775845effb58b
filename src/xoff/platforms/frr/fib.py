"""FRR's routing table as forwarding: ``show ip route json`` -> FIB entries (prefix -> egress ports).

Only what the kernel forwards with counts: per prefix, the route FRR selected and installed, and
its next hops that are active and in the FIB. A next hop's ``interfaceName`` is the Linux name;
``ifname_to_port`` maps it back to the intent's port name (the lab's veths carry Linux-safe names).
Malformed input raises ``ValueError`` naming what is wrong: a parse failure is never an empty FIB.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from ipaddress import IPv4Network
from typing import Any

from xoff.contracts.fib import FibEntry


def parse_route_json(text: str, ifname_to_port: Mapping[str, str] | None = None) -> list[FibEntry]:
    """The installed IPv4 routes of ``show ip route json``, one entry per prefix, sorted by prefix."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"show ip route json: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise ValueError("show ip route json: expected an object keyed by prefix")
    names = ifname_to_port or {}
    out: list[FibEntry] = []
    for prefix, routes in data.items():
        if not isinstance(routes, list):
            raise ValueError(f"show ip route json: {prefix}: expected a list of routes")
        chosen = [r for r in routes if isinstance(r, dict) and r.get("selected") and r.get("installed")]
        if not chosen:
            continue
        route: dict[str, Any] = chosen[0]
        try:
            network = IPv4Network(prefix)
        except ValueError:
            continue  # FRR prints IPv6 in the same table only with `show ipv6 route`; skip anything else
        ports = sorted(
            {
                names.get(hop["interfaceName"], hop["interfaceName"])
                for hop in route.get("nexthops", [])
                if hop.get("active") and hop.get("fib") and "interfaceName" in hop
            }
        )
        out.append(FibEntry(network, str(route.get("protocol", "")), tuple(ports)))
    return sorted(out, key=lambda e: (int(e.prefix.network_address), e.prefix.prefixlen))
