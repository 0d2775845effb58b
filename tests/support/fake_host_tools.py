"""Fake host tools for the xoff-host-apply.sh sandbox: mlnx_qos, cma_roce_mode, cma_roce_tos, ip, lspci, modprobe.

Run as ``python fake_host_tools.py STATE_DIR TOOL ARG...`` (the sandbox puts one wrapper per tool on
PATH). The state is STATE_DIR/state.json; every call is appended to STATE_DIR/calls.log.

Output formats follow the real tools:
- mlnx_qos: Mellanox/mlnx-tools python/mlnx_qos ``pretty_print`` (and the recorded session in
  reference/lossless.md §4.1, att/netarbiter OUTPUTSAMPLE): "Priority trust state:", the dscp2prio
  lines only while trust is dscp, 8 DSCPs per line, "PFC configuration:" with an "enabled" row.
  ``--trust dscp`` from pcp reinstalls the default map (prio = DSCP >> 3), as its netlink path does.
- cma_roce_mode / cma_roce_tos: mlnx-tools sbin scripts: they print the current value (after setting).
- ip: iproute2 6.1 one-line forms, captured from the real tool in a network namespace.
- lspci -vvv: device header at column 0, "ACSCtl:" under "Access Control Services".

A test can make calls fail: state["fail"] lists command-line prefixes that exit 1.

Strict: an argument form the script is not expected to use exits 255 with "fake <tool>: unsupported",
so a script change that calls a tool differently fails the test instead of passing by accident.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the fakes run once per call: keep their start-up imports few
    from typing import Any

    State = dict[str, Any]


class UnsupportedError(Exception):
    pass


def default_dscp_map() -> dict[str, int]:
    return {str(d): d >> 3 for d in range(64)}


# ------------------------------------------------------------------------------------------ mlnx_qos
def mlnx_qos(state: State, args: list[str]) -> int:  # noqa: C901, PLR0911, PLR0912 -- fake mlnx_qos: one branch per option the host apply script passes
    intf = None
    trust = pfc = cable = None
    dscp2prio: list[str] = []
    i = 0
    while i < len(args):
        opt = args[i]
        if opt in ("-i", "--interface", "--trust", "--pfc", "-f", "--dscp2prio", "--cable_len") and i + 1 < len(args):
            val = args[i + 1]
            if opt in ("-i", "--interface"):
                intf = val
            elif opt == "--cable_len":
                cable = val
            elif opt == "--trust":
                trust = val
            elif opt in ("--pfc", "-f"):
                pfc = val
            else:
                dscp2prio.append(val)
            i += 2
            continue
        raise UnsupportedError(opt)
    if intf is None:
        print("Interface name is required")
        return 1
    qos = state["qos"].get(intf)
    if qos is None:
        print(f"fake mlnx_qos: {intf}: no such ConnectX interface")
        return 1
    if pfc is not None:
        items = pfc.split(",")
        if len(items) != 8 or any(x not in ("0", "1") for x in items):
            print("pfc list must have 8 items")
            return 1
        qos["pfc"] = [int(x) for x in items]
    if cable is not None:
        if not cable.isdigit() or int(cable) > 0xFFFF:
            print(f"Bad value for cable_len: invalid literal for int() with base 10: '{cable}'")
            return 1
        qos["cable_len"] = int(cable)
    if dscp2prio and trust:
        print("trust and dscp2prio commands cannot be used at the same time.")
        return 1
    for item in dscp2prio:
        action, dscp, prio = item.split(",")
        if action != "set" or not (0 <= int(dscp) <= 63) or not (0 <= int(prio) <= 7):
            print("Invalid dscp2prio command. Refer to the help.")
            return 1
        qos["dscp2prio"][str(int(dscp))] = int(prio)
    if trust is not None:
        if trust not in ("dscp", "pcp"):
            print("Invalid trust state command. Refer to the help.")
            return 1
        if trust != qos["trust"] and trust == "dscp":
            qos["dscp2prio"] = default_dscp_map()
        qos["trust"] = trust
    _print_qos(qos)
    return 0


def _print_qos(qos: State) -> None:
    print("DCBX mode: OS controlled")
    print("Priority trust state: " + qos["trust"])
    if qos["trust"] == "dscp":
        print("dscp2prio mapping:")
        by_prio: dict[int, list[int]] = {p: [] for p in range(8)}
        for dscp, prio in qos["dscp2prio"].items():
            by_prio[prio].append(int(dscp))
        for prio in range(8):
            s = "".join(f"{d:02d}," for d in sorted(by_prio[prio], reverse=True))
            pad = f"\tprio:{prio} dscp:"
            lines = []
            while len(s) > 24:
                lines.append(pad + s[:24])
                s = s[24:]
            if s:
                lines.append(pad + s)
            if lines:
                print("\n".join(lines))
    print("default priority:")
    print("Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,")
    print(f"Cable len: {qos.get('cable_len', 7)}")
    print("PFC configuration:")
    print("\tpriority    0   1   2   3   4   5   6   7")
    enabled = "\tenabled     " + "".join(f"{f:1d}   " for f in qos["pfc"])
    buffer = "\tbuffer      " + "".join(f"{f:1d}   " for f in qos["pfc"])
    print(enabled + "\n" + buffer)
    for tc, prio in ((1, 0), (0, 1), *((p, p) for p in range(2, 8))):
        print(f"tc: {tc} ratelimit: unlimited, tsa: vendor")
        print(f"\t priority:  {prio}")


# ------------------------------------------------------------------------------ cma_roce_mode / tos
def _cma_args(args: list[str], setter: str) -> tuple[str, str, str | None]:
    dev, port, value = "mlx5_0", "1", None
    i = 0
    while i < len(args):
        if args[i] in ("-d", "-p", setter) and i + 1 < len(args):
            if args[i] == "-d":
                dev = args[i + 1]
            elif args[i] == "-p":
                port = args[i + 1]
            else:
                value = args[i + 1]
            i += 2
            continue
        raise UnsupportedError(args[i])
    return dev, port, value


def _cma_port(state: State, dev: str, port: str) -> State | None:
    hca = state["rdma_cm"].get(dev)
    if hca is None:
        print(f"Failed to create configuration for {dev}")
        return None
    cfg = hca.get(port)
    if cfg is None:
        print(f"Device {dev} port {port} does not exist")
        return None
    return cfg  # type: ignore[no-any-return]


def cma_roce_mode(state: State, args: list[str]) -> int:
    dev, port, mode = _cma_args(args, "-m")
    cfg = _cma_port(state, dev, port)
    if cfg is None:
        return 1
    if mode == "1":
        cfg["mode"] = "IB/RoCE v1"
    elif mode == "2":
        cfg["mode"] = "RoCE v2"
    print(cfg["mode"])
    return 0


def cma_roce_tos(state: State, args: list[str]) -> int:
    dev, port, tos = _cma_args(args, "-t")
    cfg = _cma_port(state, dev, port)
    if cfg is None:
        return 1
    if tos is not None and int(tos) >= 0:
        if int(tos) > 255:
            print(f"fake cma_roce_tos: {tos} out of range")  # the kernel refuses the configfs write
            return 1
        cfg["tos"] = int(tos)
    print(cfg["tos"])
    return 0


# ------------------------------------------------------------------------------------------------ ip
def _link(state: State, dev: str) -> State | None:
    link = state["links"].get(dev)
    if link is None:
        print(f'Device "{dev}" does not exist.', file=sys.stderr)
    return link  # type: ignore[no-any-return]


def _err(text: str, code: int = 2) -> int:
    print(text, file=sys.stderr)
    return code


def ip(state: State, args: list[str]) -> int:  # noqa: C901, PLR0911, PLR0912, PLR0915 -- fake ip: one match case per `ip` invocation the collector and the apply script make, a table
    import ipaddress  # only ip needs it, and every fake call pays for its imports

    a = list(args)
    opts = []
    while a and a[0].startswith("-"):
        opts.append(a.pop(0))
    match (opts, a):
        case (["-o"], ["link", "show", "dev", dev]):
            link = _link(state, dev)
            if link is None:
                return 1
            flags = "BROADCAST,MULTICAST,UP,LOWER_UP" if link["up"] else "BROADCAST,MULTICAST"
            oper = "UP" if link["up"] else "DOWN"
            print(
                f"{link['index']}: {dev}: <{flags}> mtu {link['mtu']} qdisc mq state {oper} mode DEFAULT "
                f"group default qlen 1000\\    link/ether {link['mac']} brd ff:ff:ff:ff:ff:ff"
            )
            return 0
        case ([], ["link", "set", "dev", dev, "mtu", mtu]):
            link = _link(state, dev)
            if link is None:
                return 1
            if not 68 <= int(mtu) <= 9978:
                return _err("Error: mtu greater than device maximum.")
            link["mtu"] = int(mtu)
            return 0
        case ([], ["link", "set", "dev", dev, ("up" | "down") as admin]):
            link = _link(state, dev)
            if link is None:
                return 1
            link["up"] = admin == "up"
            return 0
        case (["-o", "-4"], ["addr", "show", "dev", dev, "scope", "global"]):
            link = _link(state, dev)
            if link is None:
                return 1
            for addr in link["addrs"]:
                iface = ipaddress.IPv4Interface(addr)
                brd = f" brd {iface.network.broadcast_address}" if iface.network.prefixlen < 31 else ""
                print(
                    f"{link['index']}: {dev}    inet {addr}{brd} scope global {dev}\\       "
                    "valid_lft forever preferred_lft forever"
                )
            return 0
        case ([], ["addr", "replace", addr, "dev", dev]):
            link = _link(state, dev)
            if link is None:
                return 1
            ipaddress.IPv4Interface(addr)
            link["addrs"] = [x for x in link["addrs"] if x.split("/")[0] != addr.split("/")[0]] + [addr]
            return 0
        case ([], ["addr", "del", addr, "dev", dev]):
            link = _link(state, dev)
            if link is None:
                return 1
            if addr not in link["addrs"]:
                return _err("RTNETLINK answers: Cannot assign requested address")
            link["addrs"].remove(addr)
            return 0
        case (["-4"], ["route", "show", "table", table]):
            routes = state["routes"].get(table, [])
            if not routes:
                return _err("Error: ipv4: FIB table does not exist.\nDump terminated")
            for r in routes:
                print(f"{r['dst']} via {r['via']} dev {r['dev']} " if r.get("via") else f"{r['dst']} ")
            return 0
        case ([], ["route", "replace", dst, "via", via, "dev", dev, "table", table]):
            link = _link(state, dev)
            if link is None:
                return 1
            gateway = ipaddress.IPv4Address(via)
            connected = [ipaddress.IPv4Interface(x).network for x in link["addrs"]]
            if not link["up"] or not any(gateway in net for net in connected):
                return _err("Error: Nexthop has invalid gateway.")
            ipaddress.IPv4Network(dst)
            routes = [r for r in state["routes"].get(table, []) if r["dst"] != dst]
            state["routes"][table] = [*routes, {"dst": dst, "via": via, "dev": dev}]
            return 0
        case ([], ["route", "del", *dst, "table", table]) if 1 <= len(dst) <= 2:
            key = " ".join(dst)
            routes = state["routes"].get(table, [])
            if not any(r["dst"] == key for r in routes):
                return _err("RTNETLINK answers: No such process")
            state["routes"][table] = [r for r in routes if r["dst"] != key]
            return 0
        case (["-4"], ["rule", "show"]):
            rules = [
                (0, "all", "local"),
                *((r["priority"], r["from"], r["table"]) for r in state["rules"]),
                (32766, "all", "main"),
                (32767, "all", "default"),
            ]
            for prio, src, table in sorted(rules, key=lambda r: r[0]):
                print(f"{prio}:\tfrom {src} lookup {table}")
            return 0
        case ([], ["rule", "add", "from", src, "table", table, "priority", prio]):
            net = ipaddress.IPv4Network(src)
            shown = str(net.network_address) if net.prefixlen == 32 else str(net)
            state["rules"].append({"priority": int(prio), "from": shown, "table": table})
            return 0
        case ([], ["rule", "del", "priority", prio, *rest]) if rest == [] or (len(rest) == 2 and rest[0] == "table"):
            for r in state["rules"]:
                if r["priority"] == int(prio) and (not rest or r["table"] == rest[1]):
                    state["rules"].remove(r)
                    return 0
            return _err("RTNETLINK answers: No such file or directory")
    raise UnsupportedError(" ".join(args))


# --------------------------------------------------------------------------------- lspci / modprobe
def lspci(state: State, args: list[str]) -> int:
    if args != ["-vvv"]:
        raise UnsupportedError(" ".join(args))
    for dev in state["pci"]:
        print(f"{dev['bdf']} {dev['desc']}")
        print("\tControl: I/O+ Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B- DisINTx-")
        if dev.get("acs") is not None:
            print("\tCapabilities: [2a0 v1] Access Control Services")
            print("\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+")
            rest = (
                "TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+"
                if dev["acs"] == "SrcValid+"
                else ("TransBlk- ReqRedir- CmpltRedir- UpstreamFwd-")
            )
            print(f"\t\tACSCtl:\t{dev['acs']} {rest} EgressCtrl- DirectTrans-")
        print(f"\tKernel driver in use: {dev.get('driver', 'pcieport')}")
        print()
    return 0


def modprobe(state: State, args: list[str]) -> int:
    state.setdefault("modprobed", []).append(args)
    return 0


TOOLS = {
    "mlnx_qos": mlnx_qos,
    "cma_roce_mode": cma_roce_mode,
    "cma_roce_tos": cma_roce_tos,
    "ip": ip,
    "lspci": lspci,
    "modprobe": modprobe,
}


def main(argv: list[str]) -> int:
    state_dir, tool, args = argv[1], argv[2], argv[3:]
    with open(os.path.join(state_dir, "calls.log"), "a", encoding="utf-8") as log:  # noqa: PTH123, PTH118
        log.write(shlex.join([tool, *args]) + "\n")
    path = os.path.join(state_dir, "state.json")  # noqa: PTH118
    with open(path, encoding="utf-8") as f:  # noqa: PTH123
        before = f.read()
    state = json.loads(before)
    call = shlex.join([tool, *args])
    if any(call.startswith(prefix) for prefix in state.get("fail", [])):  # a test injects a failure
        print(f"fake {tool}: injected failure", file=sys.stderr)
        return 1
    try:
        rc = TOOLS[tool](state, args)
    except UnsupportedError as e:
        print(f"fake {tool}: unsupported arguments: {e}", file=sys.stderr)
        return 255
    after = json.dumps(state, indent=1, sort_keys=True)
    if after != before:
        with open(path, "w", encoding="utf-8") as f:  # noqa: PTH123
            f.write(after)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
