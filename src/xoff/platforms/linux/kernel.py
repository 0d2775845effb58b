"""What a Linux GPU host's kernel shows beyond the NIC tools: the ConnectX DCQCN knobs in sysfs
(reference/lossless.md §4.2), the routes a rail NIC forwards by, the per-rail policy routing (the rail
tables and the rules into them), and whether the IOMMU translates DMA.

Each is one command whose output the parsers here read strictly (a line they cannot read is a
ValueError, which the collector turns into a parse error naming the command). Sysfs and procfs are
read under ``${XOFF_HOST_ROOT:-}``, as the rendered host script reads them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from ipaddress import IPv4Network
from typing import Any, Literal

from xoff.contracts.collect import Command
from xoff.desired.models import Route, Rule

ROUTES = Command("ip -j -4 route show table all")
RULES = Command("ip -j -4 rule show")
# the kernel's own tables by the names ip prints for them (main is also a route without a "table" key)
KERNEL_TABLES = {"default": 253, "main": 254, "local": 255}
# what a rule xoff renders ("from SOURCE lookup TABLE priority PRIO") shows; anything else selects or acts
# differently (fwmark, iif, not, to, an action such as unreachable), which a Rule cannot say
_RULE_KEYS = {"priority", "src", "srclen", "table", "protocol"}
# the kernel command line, then the IOMMU units the kernel registered (none: no IOMMU translates anything)
IOMMU = Command(
    'R="${XOFF_HOST_ROOT:-}"; c=$(cat "$R/proc/cmdline") || exit 1; echo "cmdline: $c"; printf "iommu:"; '
    'for u in "$R"/sys/class/iommu/*; do [ -e "$u" ] && printf " %s" "${u##*/}"; done; echo'
)
PASSTHROUGH = ("iommu=pt", "iommu.passthrough=1")  # as the host script's xoff_iommu judges it
Iommu = Literal["off", "passthrough", "translated"]

_ECN_LINE = re.compile(r"^(roce_np|roce_rp)/([A-Za-z0-9_/]+):(.*)$")


def ecn(netdev: str) -> Command:
    """The NIC's DCQCN tree, one ``file:value`` line per attribute (a missing ``ecn`` directory: the
    driver is not MLNX_OFED's, or the netdev is not a ConnectX port; the command fails)."""
    return Command(f'cd "${{XOFF_HOST_ROOT:-}}/sys/class/net/{netdev}/ecn" && grep -r . roce_np roce_rp')


def parse_ecn(text: str) -> dict[str, Any]:
    """``grep -r . roce_np roce_rp`` -> the HostNic fields: NP/RP priorities enabled, CNP DSCP and 802.1p
    priority (those two only where the driver has the files; absent, they are not read)."""
    enabled: dict[str, list[int]] = {"roce_np": [], "roce_rp": []}
    seen: dict[str, set[int]] = {"roce_np": set(), "roce_rp": set()}
    out: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = _ECN_LINE.match(line)
        if match is None:
            raise ValueError(f"ecn line {number}: not roce_np|roce_rp/<file>:<value>: {line[:80]!r}")
        point, name, value = match[1], match[2], match[3].strip()
        if name.startswith("enable/"):
            prio = name.removeprefix("enable/")
            if prio not in {str(p) for p in range(8)} or value not in ("0", "1"):
                raise ValueError(f"ecn line {number}: {point}/{name} = {value!r} (allowed: enable/0..7 = 0 or 1)")
            seen[point].add(int(prio))
            if value == "1":
                enabled[point].append(int(prio))
        elif point == "roce_np" and name in ("cnp_dscp", "cnp_802p_prio"):
            top = 63 if name == "cnp_dscp" else 7
            if not value.isdigit() or int(value) > top:
                raise ValueError(f"ecn line {number}: roce_np/{name} = {value!r} (allowed: 0..{top})")
            out["cnp_dscp" if name == "cnp_dscp" else "cnp_priority"] = int(value)
    for point, prios in seen.items():
        if not prios:
            raise ValueError(f"ecn: no {point}/enable/<priority> in the output")
    out["ecn_np_priorities"] = sorted(enabled["roce_np"])
    out["ecn_rp_priorities"] = sorted(enabled["roce_rp"])
    return out


def parse_gateways(text: str) -> dict[str, list[str]]:
    """``ip -j -4 route show table all`` -> netdev -> the next hops its routes use (every table; a
    multipath route's next hops each on their own netdev)."""
    routes = json.loads(text)
    if not isinstance(routes, list):
        raise ValueError("ip -j route: not a JSON list")
    out: dict[str, set[str]] = {}
    for route in routes:
        if not isinstance(route, dict) or "dst" not in route:
            raise ValueError(f"ip -j route: not a route: {str(route)[:80]}")
        for hop in route.get("nexthops", [route]):
            if "gateway" in hop:
                out.setdefault(str(hop["dev"]), set()).add(str(hop["gateway"]))
    return {dev: sorted(hops) for dev, hops in sorted(out.items())}


def gateway_of(hops: list[str]) -> str | None:
    """The NIC's gateway: its one next hop; several are shown joined, so drift names them all."""
    return ",".join(hops) if hops else None


def parse_iommu(text: str) -> Iommu:
    """``cmdline: ...`` and ``iommu: <units>`` -> off (no IOMMU unit), passthrough (``iommu=pt`` or
    ``iommu.passthrough=1`` on the command line), else translated."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 2 or not lines[0].startswith("cmdline: ") or not lines[1].startswith("iommu:"):
        raise ValueError("iommu: want a 'cmdline: ...' line and an 'iommu: <units>' line")
    units = lines[1].removeprefix("iommu:").split()
    if not units:
        return "off"
    return "passthrough" if set(lines[0].removeprefix("cmdline: ").split()) & set(PASSTHROUGH) else "translated"


def _json_list(text: str, what: str) -> list[dict[str, Any]]:
    items = json.loads(text)
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise ValueError(f"{what}: not a JSON list of objects")
    return items


def _table(value: Any) -> int | None:
    """A table id as ip prints it: a number, or the kernel's own names; None for a name from rt_tables
    (ip shows the name instead of the number). xoff renders its rail tables by number, so a named table
    is another program's and not xoff's to judge: out of scope, not unreadable (a rail table someone
    named in rt_tables then reads as missing, which drift reports)."""
    text = str(value)
    if text in KERNEL_TABLES:
        return KERNEL_TABLES[text]
    return int(text) if text.isdigit() else None


def _prefix(address: Any, length: Any, what: str) -> str:
    """``a.b.c.d/len``: ip prints a host route or a /32 rule source without its length, 0/0 as default or all."""
    if address in ("default", "all"):
        return "0.0.0.0/0"
    text = str(address) if "/" in str(address) else f"{address}/{32 if length is None else length}"
    try:
        return str(IPv4Network(text))
    except ValueError as exc:
        raise ValueError(f"{what}: {text!r} is not an IPv4 prefix ({exc})") from None


def parse_routes(text: str, tables: Collection[int]) -> list[Route]:
    """``ip -j -4 route show table all`` -> the routes of ``tables`` (the rail tables xoff renders; the
    kernel's and other software's tables are not xoff's to judge), in ip's order. A route there must be
    what a Route says: unicast, one next hop (``via``) on one netdev; anything else is unreadable, not
    dropped. The metric and flags (onlink, linkdown) are not part of a Route."""
    out = []
    for item in _json_list(text, "ip -j route"):
        if "dst" not in item:
            raise ValueError(f"ip -j route: not a route: {str(item)[:80]}")
        table = _table(item.get("table", "main"))
        if table is None or table not in tables:
            continue
        where = f"ip -j route {item['dst']} table {table}"
        kind = item.get("type", "unicast")
        if kind != "unicast" or "nexthops" in item or "gateway" not in item or "dev" not in item:
            shape = "a multipath route" if "nexthops" in item else kind if kind != "unicast" else "no next hop (via)"
            raise ValueError(f"{where}: {shape} in a rail table (allowed: unicast via one next hop on one netdev)")
        destination = _prefix(item["dst"], None, where)
        out.append(Route(destination=destination, via=str(item["gateway"]), device=str(item["dev"]), table=table))
    return out


def parse_rules(text: str, tables: Collection[int], priorities: Collection[int]) -> list[Rule]:
    """``ip -j -4 rule show`` -> the rules xoff manages, in priority order: those into ``tables`` (the rail
    tables) or at ``priorities`` (the ones it renders: the host script replaces whatever sits there); the
    kernel's local/main/default rules and other software's are not read. A managed rule must be
    ``from SOURCE lookup TABLE``: another selector or action is unreadable as a Rule, so an error."""
    out = []
    for item in _json_list(text, "ip -j rule"):
        priority = item.get("priority")
        if not isinstance(priority, int):
            raise ValueError(f"ip -j rule: no priority: {str(item)[:80]}")
        table = _table(item["table"]) if "table" in item else None
        if (table is None or table not in tables) and priority not in priorities:
            continue
        where = f"ip -j rule {priority}"
        extra = sorted(set(item) - _RULE_KEYS)
        if table is None and "table" in item:  # at a priority xoff renders, looking up a named table
            raise ValueError(f"{where}: table {item['table']!r} is an rt_tables name (ip hides its number)")
        if table is None or extra or "src" not in item:
            shown = ", ".join(f"{k} {item[k]}" if item[k] is not None else k for k in extra) or "no table lookup"
            raise ValueError(f"{where}: {shown} (allowed on a rail rule: from SOURCE lookup TABLE)")
        source = _prefix(item["src"], item.get("srclen"), where)
        out.append(Rule(source=source, table=table, priority=priority))
    return out
