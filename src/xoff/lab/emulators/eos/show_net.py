"""``show interfaces status``, ``show ip interface brief``, ``show lldp neighbors`` and ``show ip bgp
summary``, in EOS's text and ``| json`` forms (samples: tests/fixtures/eos-cli/).

Link state comes from the device's namespace (``ip -j link``), LLDP from its lldpd (``lldpcli``),
BGP from its FRR (``vtysh``); without a namespace (unit tests) an admin-up port counts as connected,
there are no LLDP neighbours and BGP peers are Idle.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from xoff.lab.emulators import frr_vty
from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.eos import ifnames
from xoff.lab.emulators.eos.apply import linux_name
from xoff.lab.emulators.eos.model import DEFAULT_MTU, Interface, RunningConfig

Json = dict[str, Any]
Shown = tuple[str, Json]
LOOPBACK_MTU = 65535
LLDPD_SOCKET = "../lldpd/lldpd.sock"  # relative to the state dir (xoff.lab.daemons.lldpd_socket)


@dataclass(frozen=True)
class Link:
    admin_up: bool
    carrier: bool


def _json_of(ctx: EmulatorContext, argv: list[str]) -> Any:
    try:
        done = ctx.run_in_netns(argv, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return _loads(done.stdout) if done.returncode == 0 else None


def _loads(text: str) -> Any:
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def links(ctx: EmulatorContext) -> dict[str, Link] | None:
    """Kernel link state by Linux interface name; None without a namespace."""
    if ctx.netns is None:
        return None
    data = _json_of(ctx, ["ip", "-j", "link", "show"]) or []
    return {d["ifname"]: Link("UP" in d.get("flags", []), "LOWER_UP" in d.get("flags", [])) for d in data}


def status(iface: Interface, state: dict[str, Link] | None) -> tuple[str, str]:
    """(EOS link status, line protocol): connected/up, notconnect/down or disabled/down."""
    if iface.shutdown:
        return "disabled", "down"
    if state is None or iface.kind == "Loopback":
        return "connected", "up"
    link = state.get(linux_name(iface.name))
    return ("connected", "up") if link is not None and link.carrier else ("notconnect", "down")


def _gbps(speed: str | None) -> float | None:
    if speed is None or speed == "auto":
        return None
    word = speed.removeprefix("forced ").removesuffix("full").split("-")[0]  # "forced 100gfull": the older form
    return 1600.0 if word == "1.6t" else float(word.removesuffix("g"))


def _media(iface: Interface, present: bool) -> str:
    if iface.kind == "Management":
        return "10/100/1000"
    gbps = _gbps(iface.speed)
    if not present or gbps is None:
        return "Not Present" if not present else "Unknown"
    lanes = iface.speed.split("-")[1] if iface.speed and "-" in iface.speed else ""
    return f"{gbps:g}GBASE-CR{lanes if lanes != '1' else ''}"


def interfaces_status(cfg: RunningConfig, state: dict[str, Link] | None) -> Shown:
    rows: list[list[str]] = []
    data: Json = {}
    for name in ifnames.sort_names([n for n, i in cfg.interfaces.items() if i.kind != "Loopback"]):
        iface = cfg.interfaces[name]
        link, proto = status(iface, state)
        present = state is None or linux_name(name) in state
        routed = iface.routed or iface.kind == "Management"
        gbps = _gbps(iface.speed)
        speed = "auto" if gbps is None else (f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps:g}G")
        if iface.kind == "Management":  # an auto-negotiated 1G copper port
            gbps, speed = 1.0, "a-1G"
        media = _media(iface, present)
        rows.append(
            [
                ifnames.short(name),
                iface.description or "",
                link,
                "routed" if routed else "1",
                "full",
                speed,
                media,
                "",
                "",
            ]
        )
        vlan: Json = {"interfaceMode": "routed", "interfaceForwardingModel": "routed"}
        if not routed:
            vlan = {"interfaceMode": "bridged", "vlanId": 1, "interfaceForwardingModel": "bridged"}
        data[name] = {
            "vlanInformation": vlan,
            "bandwidth": int((gbps or 0) * 1e9),
            "interfaceType": media,
            "description": iface.description or "",
            "autoNegotiateActive": speed.startswith(("a-", "auto")),
            "duplex": "duplexFull",
            "autoNegotigateActive": speed.startswith(("a-", "auto")),  # sic: EOS has both spellings
            "linkStatus": link,
            "lineProtocolStatus": proto,
        }
    head = ["Port", "Name", "Status", "Vlan", "Duplex", "Speed", "Type", "Flags", "Encapsulation"]
    floors = [10, 4, 12, 8, 6, 6, 12, 5, 0]
    return _table(head, rows, floors), {"interfaceStatuses": data}


def _table(head: list[str], rows: list[list[str]], floors: list[int]) -> str:
    widths = [max([f, len(h)] + [len(r[i]) for r in rows]) for i, (h, f) in enumerate(zip(head, floors, strict=True))]

    def line(cells: list[str]) -> str:
        return " ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip() + "\n"

    return line(head) + "".join(line(r) for r in rows)


def ip_interface_brief(cfg: RunningConfig, state: dict[str, Link] | None) -> Shown:
    rows: list[tuple[str, str, str, str, int]] = []
    data: Json = {}
    for name in ifnames.sort_names(list(cfg.interfaces)):
        iface = cfg.interfaces[name]
        if iface.kind == "Ethernet" and not iface.routed:
            continue  # a switchport has no IP interface
        link, proto = status(iface, state)
        mtu = LOOPBACK_MTU if iface.kind == "Loopback" else (iface.mtu or DEFAULT_MTU)
        addr = iface.addresses[0] if iface.addresses else None
        rows.append((name, addr or "unassigned", "up" if link == "connected" else "down", proto, mtu))
        ip, _, length = (addr or "0.0.0.0/0").partition("/")
        data[name] = {
            "name": name,
            "interfaceStatus": link,
            "interfaceAddress": {"ipAddr": {"maskLen": int(length), "address": ip}},
            "ipv4Routable240": False,
            "nonRoutableClassEIntf": False,
            "lineProtocolStatus": proto,
            "mtu": mtu,
        }
    wi = max([15] + [len(r[0]) for r in rows])
    wa = max([20] + [len(r[1]) for r in rows])
    out = [
        " " * (wi + wa + 27) + "Address\n",
        f"{'Interface':<{wi}} {'IP Address':<{wa}} {'Status':<10} {'Protocol':<12} {'MTU':>10}    Owner\n",
        f"{'-' * wi} {'-' * wa} {'-' * 10} {'-' * 12} {'-' * 10} {'-' * 7}\n",
    ]
    out += [f"{n:<{wi}} {a:<{wa}} {st:<10} {p:<12} {mtu:>7}\n" for n, a, st, p, mtu in rows]
    return "".join(out), {"interfaces": data}


def _one(value: Any) -> list[Any]:
    """lldpcli's JSON gives a single item as an object and several as a list."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _peer_port(port: Json) -> str:
    ident = port.get("id", {})
    value = str(ident.get("value", "")) if isinstance(ident, dict) else str(ident)
    return re.sub(r"_(?=\d)", "/", value) if re.fullmatch(r"Ethernet\d+(?:_\d+)+", value) else value


def lldp_neighbors(ctx: EmulatorContext, cfg: RunningConfig) -> Shown:
    sock = (ctx.state_dir / LLDPD_SOCKET).resolve()
    raw = _json_of(ctx, ["lldpcli", "-u", str(sock), "-f", "json", "show", "neighbors"]) if sock.exists() else None
    by_linux = {linux_name(n): n for n in cfg.interfaces}
    found: list[Json] = []
    for entry in _one((raw or {}).get("lldp", {}).get("interface")):
        for ifname, info in entry.items():
            chassis = info.get("chassis", {})
            name = chassis.get("name") if "name" in chassis else next(iter(chassis), "")
            port = info.get("port", {})
            found.append(
                {
                    "ttl": int(port.get("ttl", 120)),
                    "neighborDevice": str(name.get("value", "") if isinstance(name, dict) else name),
                    "neighborPort": _peer_port(port),
                    "port": by_linux.get(ifname, ifname),
                }
            )
    order = {name: i for i, name in enumerate(ifnames.sort_names([n["port"] for n in found if _is_eos(n["port"])]))}
    found.sort(key=lambda n: (order.get(n["port"], len(order)), n["port"]))
    now = time.time()
    text = [
        "Last table change time   : 0:00:01 ago\n",
        f"Number of table inserts  : {len(found)}\n",
        "Number of table deletes  : 0\n",
        "Number of table drops    : 0\n",
        "Number of table age-outs : 0\n",
        "\n",
    ]
    text += [
        "Port          Neighbor Device ID       Neighbor Port ID    TTL\n",
        "---------- ------------------------ ---------------------- ---\n",
    ]
    for n in found:
        port = ifnames.short(n["port"]) if _is_eos(n["port"]) else n["port"]
        text.append(f"{port:<13} {n['neighborDevice']:<24} {n['neighborPort']:<19} {n['ttl']}\n")
    data = {
        "tablesLastChangeTime": now - 1,
        "tablesAgeOuts": 0,
        "tablesInserts": len(found),
        "lldpNeighbors": found,
        "tablesDeletes": 0,
        "tablesDrops": 0,
    }
    return "".join(text), data


def _is_eos(name: str) -> bool:
    try:
        return ifnames.kind(name) in ifnames.TYPES
    except ValueError:
        return False


# --- BGP ------------------------------------------------------------------------------------------

FRR_STATES = {"Established": "Estab"}


def _updown(seconds: float) -> str:
    s = int(seconds)
    if s >= 86400:
        return f"{s // 86400}d{(s % 86400) // 3600:02d}h"
    return f"{s // 3600:02d}:{(s % 3600) // 60:02d}:{s % 60:02d}"


def bgp_summary(ctx: EmulatorContext, cfg: RunningConfig) -> Shown:
    bgp = cfg.bgp
    if bgp is None:
        return "", {"vrfs": {}}
    frr: Json = {}
    if ctx.frr_vty_dir is not None:
        command = "show ip bgp summary json"
        direct = frr_vty.ask(ctx.frr_vty_dir, command)  # vtysh's output without starting vtysh
        raw = (
            _loads(direct)
            if direct is not None
            else _json_of(ctx, ["vtysh", "--vty_socket", str(ctx.frr_vty_dir), "-c", command])
        ) or {}
        frr = raw.get("ipv4Unicast", raw)
    frr_peers: Json = frr.get("peers", {})
    now = time.time()
    peers: Json = {}
    for addr in sorted(bgp.neighbors, key=lambda a: tuple(int(x) for x in a.split("."))):
        n, p = bgp.neighbors[addr], frr_peers.get(addr, {})
        state = str(p.get("state", "Idle"))
        up_ms = float(p.get("peerUptimeMsec", 0))
        peers[addr] = {
            "description": n.description or "",
            "version": 4,
            "msgReceived": int(p.get("msgRcvd", 0)),
            "msgSent": int(p.get("msgSent", 0)),
            "inMsgQueue": int(p.get("inq", 0)),
            "outMsgQueue": int(p.get("outq", 0)),
            "asn": str(n.remote_as),
            "prefixAccepted": int(p.get("pfxRcd", 0)),
            "prefixReceived": int(p.get("pfxRcd", 0)),
            "upDownTime": now - up_ms / 1000,
            "underMaintenance": False,
            "peerState": state,
        }
    router_id = str(frr.get("routerId", bgp.router_id or "0.0.0.0"))
    data = {"vrfs": {"default": {"vrf": "default", "routerId": router_id, "asn": bgp.asn, "peers": peers}}}
    nw = max([8] + [len(a) for a in peers])
    head = f"  {'Description':<24} {'Neighbor':<{nw}} V {'AS':<12}{'MsgRcvd':>8}{'MsgSent':>10}{'InQ':>5}{'OutQ':>5} {'Up/Down':>8} {'State':<7} {'PfxRcd':<6} PfxAcc"
    out = [
        "BGP summary information for VRF default\n",
        f"Router identifier {router_id}, local AS number {bgp.asn}\n",
        "Neighbor Status Codes: m - Under maintenance\n",
        head + "\n",
    ]
    for addr, p in peers.items():
        state = FRR_STATES.get(p["peerState"], p["peerState"])
        established = p["peerState"] == "Established"
        pfx = (str(p["prefixReceived"]), str(p["prefixAccepted"])) if established else ("", "")
        up = _updown(now - p["upDownTime"])
        row = (
            f"  {p['description']:<24} {addr:<{nw}} 4 {p['asn']:<12}{p['msgReceived']:>8}{p['msgSent']:>10}"
            f"{p['inMsgQueue']:>5}{p['outMsgQueue']:>5} {up:>8} {state:<7} {pfx[0]:<6} {pfx[1]}"
        )
        out.append(row.rstrip() + "\n")
    return "".join(out), data
