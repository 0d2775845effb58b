"""``show`` outputs in sonic-utilities 202411's formats, from CONFIG_DB plus what Linux, lldpd and
FRR report. Sources (sonic-utilities 202411): ``scripts/intfutil`` (interfaces status),
``scripts/pfcstat``, ``scripts/queuestat``, ``scripts/watermarkstat``, ``pfcwd/main.py``,
``scripts/ecnconfig``, ``scripts/lldpshow``, ``utilities_common/bgp_util.py``, ``show/main.py``.

Commands run through ``run_command`` print their script's output with trailing newlines
stripped and one added; the in-process ones (version, runningconfiguration, pfcwd, bgp) print
as ``click.echo`` does. Counters are zero unless ``counters.json`` says otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from tabulate import tabulate

from xoff.lab.emulators.sonic.store import ConfigDb
from xoff.lab.emulators.sonic.textfmt import natsorted

DEFAULT_MTU = "9100"
NA = "N/A"


def run_command_output(text: str) -> str:
    """What ``clicommon.run_command`` echoes: the script's output, trailing newlines stripped."""
    stripped = text.rstrip("\n")
    return f"{stripped}\n" if stripped else ""


def ports(config: ConfigDb) -> list[str]:
    return natsorted(config.get("PORT", {}))


# --- show interfaces status -----------------------------------------------------------------------


def speed_text(speed: str | None) -> str:
    """intfutil ``port_speed_parse`` (Mb/s -> 100G, 2.5G, 100M)."""
    if speed is None:
        return NA
    value = int(speed)
    if value < 1000:
        return f"{value}M"
    if value % 1000 >= 100:
        return f"{value / 1000:.1f}G"
    return f"{value / 1000:.0f}G"


def interfaces_status(config: ConfigDb, oper: Callable[[str], str], selected: list[str] | None = None) -> str:
    rows = []
    for port in ports(config):
        if selected is not None and port not in selected:
            continue
        f = config["PORT"][port]
        rows.append(
            (
                port,
                f.get("lanes", NA),
                speed_text(f.get("speed")),
                f.get("mtu", DEFAULT_MTU),
                f.get("fec", NA),
                f.get("alias", NA),
                "routed",
                oper(port),
                f.get("admin_status", "down"),
                NA,
                f.get("pfc_asym", NA),
            )
        )
    headers = ["Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type", "Asym PFC"]
    return run_command_output(tabulate(natsorted(rows), headers, stralign="right"))


# --- counters ------------------------------------------------------------------------------------
# COUNTERS_DB as ``counters.json`` holds it (see ``store.Store.counters``): a value missing is 0, as on a switch whose
# flex counters run; a value ``null`` is what COUNTERS_DB lacks (a backplane port, a queue the ASIC does not have) and
# prints ``N/A``, as the scripts print it.

UNICAST, MULTICAST, ALL_QUEUES = range(10), range(10, 20), range(20, 30)  # queuestat on current images: UC0-9 ...
PGS = range(8)


def _number(value: Any) -> str:
    """netstat.format_number_with_comma (``N/A`` stays)."""
    return NA if value is None else f"{int(value):,}"


def _plain(value: Any) -> str:
    return NA if value is None else str(int(value))


def _values(data: Mapping[str, Any], key: str, count: int) -> list[Any]:
    values = list(data.get(key, []))
    return values[:count] + [0] * (count - len(values))


def pfc_counters(config: ConfigDb, counters: Mapping[str, Any]) -> str:
    """scripts/pfcstat ``cnstat_print``: the Rx table, a blank line, the Tx table."""
    data = counters.get("pfc", {})
    out = []
    for direction, title in (("rx", "Port Rx"), ("tx", "Port Tx")):
        rows = [(port, *(_number(v) for v in _values(data.get(port, {}), direction, 8))) for port in ports(config)]
        out.append(tabulate(rows, [title, *(f"PFC{i}" for i in range(8))], tablefmt="simple", stralign="right"))
    return run_command_output(f"{out[0]}\n\n{out[1]}\n")


def _queue_name(index: int) -> str:
    return f"UC{index}" if index in UNICAST else f"MC{index}" if index in MULTICAST else f"ALL{index}"


def _queue_row(port: str, name: str, q: Mapping[str, Any]) -> tuple[str, ...]:
    if name.startswith("ALL") and not q:  # no ALL queues on this ASIC: COUNTERS_DB has none of their counters
        return (port, name, NA, NA, NA, NA)
    fields = ("packets", "bytes", "drop_packets", "drop_bytes")
    return (port, name, *(_plain(q.get(f, 0)) for f in fields))


def queue_counters(config: ConfigDb, counters: Mapping[str, Any], port: str | None = None) -> str:
    """scripts/queuestat ``cnstat_print``: per port ``For namespace :`` (single ASIC) and its table of UC0-9,
    MC10-19 and ALL20-29, then a blank line."""
    if port is not None and port not in config.get("PORT", {}):
        return f"Port doesn't exist! {port}\n"
    data = counters.get("queue", {})
    headers = ["Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"]
    text = ""
    for name in [port] if port is not None else ports(config):
        queues = [_queue_name(i) for i in (*UNICAST, *MULTICAST, *ALL_QUEUES)]
        rows = [_queue_row(name, q, data.get(name, {}).get(q, {})) for q in queues]
        text += "For namespace :\n" + tabulate(rows, headers, tablefmt="simple", stralign="right") + "\n\n"
    return run_command_output(text)


def _pg_table(message: str, config: ConfigDb, data: Mapping[str, Any]) -> str:
    """scripts/watermarkstat ``print_all_stat`` for a per-PG watermark (the title line, then the table)."""
    rows = [(port, *(_plain(v) for v in _values(data, port, len(PGS)))) for port in ports(config)]
    table = tabulate(rows, ["Port", *(f"PG{i}" for i in PGS)], tablefmt="simple", stralign="right")
    return run_command_output(f"{message}\n{table}\n")


def pg_headroom_persistent_watermark(config: ConfigDb, counters: Mapping[str, Any]) -> str:
    return _pg_table("Ingress headroom per PG:", config, counters.get("pg_headroom_persistent_watermark", {}))


def pg_watermark(config: ConfigDb, counters: Mapping[str, Any], kind: str) -> str:
    """``show priority-group watermark headroom|shared``."""
    message = "Ingress headroom per PG:" if kind == "headroom" else "Ingress shared pool occupancy per PG:"
    return _pg_table(message, config, counters.get(f"pg_{kind}_watermark", {}))


def pool_watermark(config: ConfigDb, counters: Mapping[str, Any], kind: str) -> str:
    """``show buffer_pool watermark`` (every BUFFER_POOL) and ``show headroom-pool watermark`` (the ingress
    lossless pools only), natural order; a pool without the watermark prints N/A."""
    data = counters.get(f"{kind}_watermark", {})
    pools = natsorted(config.get("BUFFER_POOL", {}))
    if kind == "headroom_pool":
        pools = [p for p in pools if "ingress_lossless" in p]
    message = "Shared pool maximum occupancy:" if kind == "buffer_pool" else "Headroom pool maximum occupancy:"
    rows = [(pool, _plain(data.get(pool, 0))) for pool in pools]
    table = tabulate(rows, ["Pool", "Bytes"], tablefmt="simple", stralign="right")
    return run_command_output(f"{message}\n{table}\n")


def _ber(value: Any) -> str:
    """portstat's BER cell: two-digit scientific notation (``N/A`` stays)."""
    return NA if value is None else f"{float(value):.2e}"


def fec_stats(config: ConfigDb, counters: Mapping[str, Any]) -> str:
    """``show interfaces counters fec-stats`` (portstat -f) as 202311-era images print it: per port its state
    (``U`` up, ``X`` admin down), corrected and uncorrectable codewords, symbol errors, pre- and post-FEC BER."""
    data = counters.get("fec", {})
    port_table = config.get("PORT", {})
    rows = []
    for port in ports(config):
        f = data.get(port, {})
        state = "U" if port_table.get(port, {}).get("admin_status", "down") == "up" else "X"
        counts = (_number(f.get(k, 0)) for k in ("corr", "uncorr", "symbol_err"))
        rows.append((port, state, *counts, _ber(f.get("pre_ber", 0)), _ber(f.get("post_ber", 0))))
    headers = ["IFACE", "STATE", "FEC_CORR", "FEC_UNCORR", "FEC_SYMBOL_ERR", "FEC_PRE_BER", "FEC_POST_BER"]
    return run_command_output(tabulate(rows, headers, tablefmt="simple", stralign="right") + "\n")


def _optic_block(port: str, optic: Mapping[str, Any]) -> list[str]:
    """One detected module as sfpshow prints it: a few inventory fields, then the DOM sections."""
    lanes = list(optic.get("rx_power", []))
    lines = [
        f"{port}: SFP EEPROM detected",
        "        Identifier: QSFP-DD Double Density 8X Pluggable Transceiver",
        "        Vendor Name: XOFF-LAB",
        "        Vendor PN: LAB-400G-DR4",
        f"        Vendor SN: LAB{port.removeprefix('Ethernet'):0>8}",
        "        ChannelMonitorValues:",
    ]
    lines += [f"                RX{n}Power: {float(v):.4f}dBm" for n, v in enumerate(lanes, 1) if v is not None]
    lines += [f"                TX{n}Bias: 40.0000mA" for n in range(1, len(lanes) + 1)]
    lines += ["        ChannelThresholdValues:", "        ModuleMonitorValues:"]
    if optic.get("temperature") is not None:
        lines.append(f"                Temperature: {float(optic['temperature']):.4f}C")
    lines += ["                Vcc: 3.3000Volts", "        ModuleThresholdValues:"]
    return lines


def transceiver_dom(config: ConfigDb, counters: Mapping[str, Any]) -> str:
    """``show interfaces transceiver eeprom --dom`` (sfpshow): each port's module from ``optics`` (``{"rx_power":
    [dBm per lane], "temperature": C}``), ``SFP EEPROM Not detected`` where the cage is empty (no entry); a blank
    line between ports."""
    data = counters.get("optics", {})
    blocks = [_optic_block(p, data[p]) if p in data else [f"{p}: SFP EEPROM Not detected"] for p in ports(config)]
    return run_command_output("\n\n".join("\n".join(b) for b in blocks) + "\n")


# --- configuration views ---------------------------------------------------------------------------


def pfcwd_config(config: ConfigDb, selected: list[str]) -> str:
    watchdog = config.get("PFC_WD", {})
    rows = []
    for port in selected or [p for p in ports(config) if p.startswith("Ethernet")]:
        entry = watchdog.get(port)
        if not entry:
            continue
        rows.append(
            [
                port,
                entry.get("action", "drop"),
                entry.get("detection_time", NA),
                entry.get("restoration_time", "infinite"),
            ]
        )
    lines = []
    if rows:
        glob = watchdog.get("GLOBAL", {})
        if "POLL_INTERVAL" in glob:
            lines.append(f"Changed polling interval to {glob['POLL_INTERVAL']}ms")
        if "BIG_RED_SWITCH" in glob:
            lines.append(f"BIG_RED_SWITCH status is {glob['BIG_RED_SWITCH']}")
    headers = ["PORT", "ACTION", "DETECTION TIME", "RESTORATION TIME"]
    lines.append(tabulate(rows, headers, stralign="right", numalign="right"))
    return "\n".join(lines) + "\n"


PFCWD_STATS = ("STORM DETECTED/RESTORED", "TX OK/DROP", "RX OK/DROP", "TX LAST OK/DROP", "RX LAST OK/DROP")
_PFCWD_FIELDS = (
    ("storm_detected", "storm_restored"),
    ("tx_ok", "tx_dropped"),
    ("rx_ok", "rx_dropped"),
    ("tx_last_ok", "tx_last_dropped"),
    ("rx_last_ok", "rx_last_dropped"),
)


def pfcwd_stats(config: ConfigDb, counters: Mapping[str, Any], selected: list[str], empty: bool) -> str:
    """``show pfcwd stats`` (pfcwd/main.py ``collect_stats``): one row per queue ``<port>:<index>``
    whose watchdog counters are not all zero (every queue with ``--empty``), natural order."""
    data = counters.get("pfcwd", {})
    queues = selected or [f"{port}:{q}" for port in ports(config) if port.startswith("Ethernet") for q in range(8)]
    rows = []
    for queue in queues:
        stats = data.get(queue, {})
        cells = [f"{int(stats.get(a, 0))}/{int(stats.get(b, 0))}" for a, b in _PFCWD_FIELDS]
        if cells != ["0/0"] * len(cells) or empty:
            rows.append([queue, stats.get("status", "N/A"), *cells])
    return (
        tabulate(rows, ["QUEUE", "STATUS", *PFCWD_STATS], stralign="right", numalign="right", tablefmt="simple") + "\n"
    )


def ecn(config: ConfigDb) -> str:
    text = ""
    for name, fields in config.get("WRED_PROFILE", {}).items():
        text += f"Profile: {name}\n" + tabulate([[k, v] for k, v in fields.items()]) + "\n\n"
    return run_command_output(text)


def running_all(config: ConfigDb, bgpraw: str) -> str:
    """``show runningconfiguration all``: sonic-cfggen's sorted dump, re-printed with ``bgpraw``
    (FRR's running-config) added."""
    data: dict[str, Any] = json.loads(json.dumps(config, sort_keys=True))
    data["bgpraw"] = bgpraw
    return json.dumps(data, indent=4) + "\n"


# --- LLDP ----------------------------------------------------------------------------------------

LLDP_RULE = "-" * 79
EMPTY_LLDP = f"{LLDP_RULE}\nLLDP neighbors:\n{LLDP_RULE}\n"


def lldp_neighbors(lldpctl_text: str | None) -> str:
    """``show lldp neighbors`` = ``lldpshow -d`` = lldpctl's own text."""
    return run_command_output(lldpctl_text if lldpctl_text is not None else EMPTY_LLDP)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def lldp_table(neighbors: Mapping[str, Any] | None) -> str:
    """``show lldp table`` (lldpshow's summary) from ``lldpcli -f json show neighbors``."""
    entries: list[list[str]] = []
    interfaces = (neighbors or {}).get("lldp", {}).get("interface", [])
    for item in _as_list(interfaces):
        for local, data in item.items():
            chassis = data.get("chassis", {})
            name, body = next(iter(chassis.items())) if chassis else ("", {})
            if name == "id":  # a chassis without a system name
                name, body = "", chassis
            caps = ""
            for cap in _as_list(body.get("capability", [])):
                if cap.get("enabled"):
                    caps += {"Router": "R", "Bridge": "B"}.get(cap.get("type", ""), "O")
            port = data.get("port", {})
            entries.append([local, name, port.get("id", {}).get("value", ""), caps, port.get("descr", "")])
    entries.sort(key=lambda e: _alnum(e[0]))
    table = tabulate(entries, ["LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr"])
    text = "Capability codes: (R) Router, (B) Bridge, (O) Other\n" + table + "\n" + "-" * 50 + "\n"
    return run_command_output(text + f"Total entries displayed:  {len(entries)}")


def _alnum(key: str) -> list[Any]:
    """lldpshow's ``sort_sum`` key."""
    return [re.findall("[A-Za-z]+", key) + [int(n) for n in re.findall(r"\d+", key)]]


# --- BGP -----------------------------------------------------------------------------------------


def bgp_summary(summary: Mapping[str, Any], bgp_json: Mapping[str, Any] | None, config: ConfigDb) -> str:
    """``show ip bgp summary`` from FRR's ``show ip bgp summary json`` (and ``show ip bgp json``
    when there is no neighbour), with neighbour names from CONFIG_DB's BGP_NEIGHBOR."""
    names = {k.rpartition("|")[2]: v.get("name") for k, v in config.get("BGP_NEIGHBOR", {}).items()}
    af = summary.get("ipv4Unicast")
    lines = ["", "IPv4 Unicast Summary:"]
    peers: list[tuple[Any, ...]] = []
    if af is not None:
        lines.append(f"BGP router identifier {af['routerId']}, local AS number {af['as']} vrf-id {af['vrfId']}")
        lines.append(f"BGP table version {af['tableVersion']}")
        lines.append(f"RIB entries {af.get('ribCount', 0)}, using {af.get('ribMemory', 0)} bytes of memory")
        lines.append(f"Peers {af.get('peerCount', 0)}, using {af.get('peerMemory', 0)} KiB of memory")
        lines.append(f"Peer groups {af.get('peerGroupCount', 0)}, using {af.get('peerGroupMemory', 0)} bytes of memory")
        for address, p in af.get("peers", {}).items():
            state = p["pfxRcd"] if p.get("state") == "Established" else p.get("state")
            peers.append(
                (
                    address,
                    p.get("version"),
                    p.get("remoteAs"),
                    p.get("msgRcvd"),
                    p.get("msgSent"),
                    p.get("tableVersion"),
                    p.get("inq"),
                    p.get("outq"),
                    p.get("peerUptime"),
                    state,
                    names.get(address),
                )
            )
    else:
        info = bgp_json or {}
        lines.append(
            f"BGP router identifier {info.get('routerId')}, local AS number {info.get('localAS')} vrf-id {info.get('vrfId')}"
        )
        lines.append(f"BGP table version {info.get('tableVersion')}")
        lines += ["RIB entries 0, using 0 bytes of memory", "Peers 0, using 0 KiB of memory"]
        lines.append("Peer groups 0, using 0 bytes of memory")
    lines += ["", ""]
    headers = ["Neighbhor", "V", "AS", "MsgRcvd", "MsgSent", "TblVer", "InQ", "OutQ", "Up/Down", "State/PfxRcd"]
    lines.append(tabulate(natsorted(peers), [*headers, "NeighborName"]))
    lines += ["", f"Total number of neighbors {len(peers)}"]
    return "\n".join(lines) + "\n"


# --- show version --------------------------------------------------------------------------------

BUILD = {
    "build_version": "202411.0-xoff-lab",
    "sonic_os_version": "12",
    "debian_version": "12.8",
    "kernel_version": "6.1.0-22-2-amd64",
    "commit_id": "0a1b2c3d4",
    "build_date": "Mon Jan 13 08:00:00 UTC 2025",
    "built_by": "xoff-lab@emulator",
}
DOCKER_IMAGES = [
    ("docker-orchagent", "202411.0-xoff-lab", "4f2c1d0e7a11", "335MB"),
    ("docker-fpm-frr", "202411.0-xoff-lab", "8b3e9a2c4d55", "356MB"),
    ("docker-lldp", "202411.0-xoff-lab", "1d7e6f5a3b22", "299MB"),
    ("docker-database", "202411.0-xoff-lab", "6c5b4a3d2e99", "301MB"),
    ("docker-platform-monitor", "202411.0-xoff-lab", "9a8b7c6d5e44", "421MB"),
]


def version(config: ConfigDb, asic: str, uptime: str, now: datetime) -> str:
    meta = config.get("DEVICE_METADATA", {}).get("localhost", {})
    lines = [
        "",
        f"SONiC Software Version: SONiC.{BUILD['build_version']}",
        f"SONiC OS Version: {BUILD['sonic_os_version']}",
        f"Distribution: Debian {BUILD['debian_version']}",
        f"Kernel: {BUILD['kernel_version']}",
        f"Build commit: {BUILD['commit_id']}",
        f"Build date: {BUILD['build_date']}",
        f"Built by: {BUILD['built_by']}",
        "",
        f"Platform: {meta.get('platform', 'x86_64-kvm_x86_64-r0')}",
        f"HwSKU: {meta.get('hwsku', NA)}",
        f"ASIC: {asic}",
        "ASIC Count: 1",
        "Serial Number: N/A",
        "Model Number: N/A",
        "Hardware Revision: N/A",
        f"Uptime: {uptime}",
        f"Date: {now.strftime('%a %d %b %Y %X')}",
        "",
        "Docker images:",
    ]
    rows = [("REPOSITORY", "TAG", "IMAGE ID", "SIZE")]
    for repo, tag, image, size in DOCKER_IMAGES:
        rows += [(repo, tag, image, size), (repo, "latest", image, size)]
    widths = [max(20, *(len(r[i]) + 3 for r in rows)) for i in range(3)]  # docker's tabwriter
    lines += ["".join(r[i].ljust(widths[i]) for i in range(3)) + r[3] for r in rows]
    return "\n".join(lines) + "\n\n"
