"""What a Linux GPU host's kernel shows beyond the NIC tools: the ConnectX DCQCN knobs in sysfs
(reference/lossless.md §4.2), the routes a rail NIC forwards by, and whether the IOMMU translates DMA.

Each is one command whose output the parsers here read strictly (a line they cannot read is a
ValueError, which the collector turns into a parse error naming the command). Sysfs and procfs are
read under ``${XOFF_HOST_ROOT:-}``, as the rendered host script reads them.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from xoff.collect.protocol import Command

ROUTES = Command("ip -j -4 route show table all")
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
