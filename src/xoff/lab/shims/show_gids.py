"""``show_gids [DEV]``: the RoCE GID tables, as MLNX_OFED's script (mlnx-tools ``sbin/show_gids``) prints them.

The script reads ``/sys/class/infiniband/<dev>/ports/<port>/gids/<index>`` and ``gid_attrs/{types,ndevs}``; a
lab host has no RDMA device, so the table is built the way the kernel builds it for a RoCE port
(``drivers/infiniband/core/roce_gid_mgmt.c``): the port's default GID (``fe80::`` + the netdev MAC as EUI-64) at
index 0 as ``IB/RoCE v1`` and 1 as ``RoCE v2``, then one v1/v2 pair per IPv4 address of the netdev
(``::ffff:a.b.c.d``), then one per global IPv6 address, in the order a freshly enumerated port gets them. The
netdev's MAC and addresses are the host's real ones (``ip -j addr show``, the lab host's namespace). It does
not remember the order addresses came and went (the kernel reuses freed slots): a table is what a port shows
after ``rdma_cm``/``ib_core`` enumerate it again. An InfiniBand port (``link_layer`` InfiniBand) has no netdev
GIDs here and prints none.

Output: the script's header (``IPv4  `` with two spaces), its rule, one line per GID (``$ipv4  \\t`` after an
IPv4-mapped GID, two empty columns otherwise), then ``n_gids_found=N``.
"""

from __future__ import annotations

import json
import os
import subprocess

from xoff.lab.shims._state import HostRoot, out, read, run

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import Any, NoReturn

TOOL = "show_gids"
HEADER = "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV"
RULE = "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---"


def _hex4(values: list[int]) -> str:
    return ":".join(f"{values[i]:02x}{values[i + 1]:02x}" for i in range(0, len(values), 2))


def link_local(mac: str) -> str:
    """``fe80::`` + the MAC as modified EUI-64 (the U/L bit flipped, ``ff:fe`` in the middle), 8 groups of 4."""
    octets = [int(b, 16) for b in mac.split(":")]
    eui = [octets[0] ^ 0x02, *octets[1:3], 0xFF, 0xFE, *octets[3:6]]
    return "fe80:0000:0000:0000:" + _hex4(eui)


def ipv4_mapped(address: str) -> str:
    return "0000:0000:0000:0000:0000:ffff:" + _hex4([int(x) for x in address.split(".")])


def ipv6_full(address: str) -> str:
    head, _, tail = address.partition("::")
    left = [g for g in head.split(":") if g]
    right = [g for g in tail.split(":") if g] if "::" in address else []
    groups = left + ["0"] * (8 - len(left) - len(right)) + right
    return ":".join(g.rjust(4, "0") for g in groups)


def port_gids(mac: str, addresses: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """(gid, ipv4 or None) in table order, each to be listed as v1 then v2."""
    gids: list[tuple[str, str | None]] = [(link_local(mac), None)]
    gids += [(ipv4_mapped(a["local"]), a["local"]) for a in addresses if a.get("family") == "inet"]
    gids += [
        (ipv6_full(a["local"]), None) for a in addresses if a.get("family") == "inet6" and a.get("scope") == "global"
    ]
    return gids


def table_lines(dev: str, netdev: str, gids: list[tuple[str, str | None]]) -> list[str]:
    """The script's lines for one port's table (port 1)."""
    lines = []
    for n, (gid, ipv4) in enumerate(gids):
        for k, version in enumerate(("v1", "v2")):
            index = 2 * n + k
            if ipv4 is not None:
                lines.append(f"{dev}\t1\t{index}\t{gid}\t{ipv4}  \t{version}\t{netdev}")
            else:
                lines.append(f"{dev}\t1\t{index}\t{gid}\t\t\t{version}\t{netdev}")
    return lines


def _netdevs() -> dict[str, dict[str, Any]]:
    """Every netdev of this namespace as ``ip -j addr show`` shows it, by name: one ``ip`` for the whole table
    (a fork and exec per port was most of a call's CPU)."""
    proc = subprocess.run(["ip", "-j", "addr", "show"], capture_output=True, text=True, check=False, timeout=10)
    if proc.returncode != 0:
        return {}
    return {i["ifname"]: i for i in json.loads(proc.stdout or "[]") if i and "ifname" in i}


def _port_lines(root: HostRoot, dev: str, netdevs: dict[str, dict[str, Any]]) -> list[str]:
    ib = root.path(f"/sys/class/infiniband/{dev}")
    if read(os.path.join(ib, "ports/1/link_layer")).strip() != "Ethernet":
        return []
    nets = os.path.join(ib, "device/net")
    for netdev in sorted(os.listdir(nets)) if os.path.isdir(nets) else []:
        state = netdevs.get(netdev)
        if state is not None and state.get("address"):
            return table_lines(dev, netdev, port_gids(state["address"], state.get("addr_info", [])))
    return []


def main(root: HostRoot, argv: list[str]) -> int:
    out(HEADER)
    out(RULE)
    infiniband = root.path("/sys/class/infiniband")
    devs = argv[:1] or (sorted(os.listdir(infiniband)) if os.path.isdir(infiniband) else [])
    netdevs = _netdevs() if devs else {}
    lines = [line for dev in devs for line in _port_lines(root, dev, netdevs)]
    for line in lines:
        out(line)
    out(f"n_gids_found={len(lines)}")
    return 0


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, TOOL)


if __name__ == "__main__":
    cli()
