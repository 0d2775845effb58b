"""``show ...``: the command tree and what each command reads (CONFIG_DB, the namespace's links,
lldpd, FRR). Formatting is in ``show``."""

from __future__ import annotations

import json
import subprocess
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xoff.lab.emulators import frr_vty
from xoff.lab.emulators.base import Reply
from xoff.lab.emulators.lldpctl import LldpctlUsageError, parse_args
from xoff.lab.emulators.sonic import show
from xoff.lab.emulators.sonic.apply import link_states, linux_name_function, vtysh_base
from xoff.lab.emulators.sonic.clish import Argument, Command, Option

if TYPE_CHECKING:
    from xoff.lab.emulators.sonic.services import SonicSession

VTYSH_NO_DAEMONS = "Exiting: failed to connect to any daemons."
VERBOSE = Option(("--verbose",), "verbose", help="Enable verbose output")
NAMESPACE = Option(("-n", "--namespace"), "namespace", flag=False, help="Namespace name or all")
DISPLAY = Option(("-d", "--display"), "display", flag=False, help="all|frontend")
LLDP_SOCKET = "lldpd.sock"  # <state_dir>/../lldpd/lldpd.sock: the lab core's per-device lldpd (xoff.lab.daemons)


def build_tree(s: SonicSession) -> Command:
    c = ShowCommands(s)
    root = Command("show", "SONiC command line - 'show' command")
    root.add(Command("version", "Show version information", (VERBOSE,), (), c.version))
    running = root.add(Command("runningconfiguration", "Show current running configuration information"))
    running.add(Command("all", "Show full running configuration", (VERBOSE,), (), c.running_all))
    interfaces = root.add(Command("interfaces", "Show details of the network interfaces", (NAMESPACE, DISPLAY)))
    interfaces.add(
        Command(
            "status",
            "Show Interface status information",
            (NAMESPACE, DISPLAY, VERBOSE),
            (Argument("interfacename", "INTERFACENAME", required=False),),
            c.interfaces_status,
        )
    )
    counters = interfaces.add(Command("counters", "Show interface counters"))
    counters.add(Command("fec-stats", "Show interface counters fec-stats", (NAMESPACE, DISPLAY), (), c.fec_stats))
    transceiver = interfaces.add(Command("transceiver", "Show SFP Transceiver information"))
    dom = Option(("-d", "--dom"), "dump_dom", help="Also display Digital Optical Monitoring (DOM) data")
    transceiver.add(Command("eeprom", "Show interface transceiver EEPROM information", (dom, NAMESPACE), (), c.eeprom))
    pfc = root.add(Command("pfc", "Show details of the priority-flow-control (pfc)"))
    pfc.add(Command("counters", "Show pfc counters", (NAMESPACE, DISPLAY, VERBOSE), (), c.pfc_counters))
    queue = root.add(Command("queue", "Show details of the queues"))
    queue.add(
        Command(
            "counters",
            "Show queue counters",
            (NAMESPACE, DISPLAY, VERBOSE),
            (Argument("interfacename", "INTERFACENAME", required=False),),
            c.queue_counters,
        )
    )
    pg = root.add(Command("priority-group", "Show details of the PGs"))
    wm = pg.add(Command("watermark", "Show priority-group user WM"))
    wm.add(Command("headroom", "Show user headroom WM for pg", (NAMESPACE,), (), c.pg_watermark_headroom))
    wm.add(Command("shared", "Show user shared WM for pg", (NAMESPACE,), (), c.pg_watermark_shared))
    pwm = pg.add(Command("persistent-watermark", "Show priority-group persistent WM"))
    pwm.add(Command("headroom", "Show persistent headroom WM for pg", (NAMESPACE,), (), c.pg_headroom))
    pool = root.add(Command("buffer_pool", "Show details of the buffer pools"))
    pool.add(Command("watermark", "Show user WM for buffer pools", (NAMESPACE,), (), c.buffer_pool_watermark))
    hdrm = root.add(Command("headroom-pool", "Show details of headroom pool"))
    hdrm.add(Command("watermark", "Show user WM for headroom pool", (NAMESPACE,), (), c.headroom_pool_watermark))
    pfcwd = root.add(Command("pfcwd", "Show details of the pfc watchdog"))
    pfcwd.add(
        Command(
            "config",
            "Show pfc watchdog configuration",
            (NAMESPACE, DISPLAY),
            (Argument("ports", "[PORTS]", required=False, many=True),),
            c.pfcwd_config,
        )
    )
    pfcwd.add(
        Command(
            "stats",
            "Show pfc watchdog stats",
            (NAMESPACE, DISPLAY, Option(("-e", "--empty"), "empty")),
            (Argument("queues", "[QUEUES]", required=False, many=True),),
            c.pfcwd_stats,
        )
    )
    root.add(Command("ecn", "Show ECN configuration", (NAMESPACE, VERBOSE), (), c.ecn))
    lldp = root.add(Command("lldp", "Show LLDP information"))
    lldp.add(
        Command(
            "neighbors",
            "Show LLDP neighbors",
            (VERBOSE,),
            (Argument("interfacename", "INTERFACENAME", required=False),),
            c.lldp_neighbors,
        )
    )
    lldp.add(Command("table", "Show LLDP neighbors in tabular format", (VERBOSE,), (), c.lldp_table))
    ip = root.add(Command("ip", "Show IP (IPv4) commands"))
    bgp = ip.add(Command("bgp", "Show IPv4 BGP (Border Gateway Protocol) information"))
    bgp.add(
        Command("summary", "Show summarized information of IPv4 BGP state", (NAMESPACE, DISPLAY), (), c.bgp_summary)
    )
    return root


def uptime_text(now: float | None = None) -> str:
    """The ``uptime`` command's line (this machine's)."""
    try:
        seconds = float(Path("/proc/uptime").read_text(encoding="utf-8").split()[0])
        load = Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3]
    except OSError:
        seconds, load = 0.0, ["0.00", "0.00", "0.00"]
    clock = time.strftime("%H:%M:%S", time.localtime(now))
    minutes = int(seconds // 60)
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    up = f"{hours}:{mins:02d}" if hours else f"{mins} min"
    if days:
        up = f"{days} day{'s' if days != 1 else ''}, {up}"
    return f"{clock} up {up},  1 user,  load average: {', '.join(load)}"


class ShowCommands:
    def __init__(self, session: SonicSession) -> None:
        self.s = session

    # --- external state --------------------------------------------------------------------------

    def _vtysh(self, command: str) -> str | None:
        """FRR's answer, or None when FRR is not reachable."""
        if self.s.ctx.frr_vty_dir is None:
            return None
        direct = frr_vty.ask(self.s.ctx.frr_vty_dir, command)  # vtysh's output without starting vtysh
        if direct is not None:
            return direct
        try:
            proc = self.s.ctx.run_in_netns([*vtysh_base(self.s.ctx.frr_vty_dir), "-c", command], check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return proc.stdout if proc.returncode == 0 else None

    def _lldpcli(self, *args: str) -> str | None:
        socket = self.s.ctx.state_dir.parent / "lldpd" / LLDP_SOCKET
        if self.s.ctx.netns is None or not socket.exists():
            return None
        try:
            proc = self.s.ctx.run_in_netns(["lldpcli", "-u", str(socket), *args], check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return proc.stdout if proc.returncode == 0 else None

    def _oper(self) -> Any:
        links = link_states(self.s.ctx)
        ifname = linux_name_function()

        def oper(port: str) -> str:
            link = links.get(ifname(port))
            return "up" if link is not None and link.get("operstate") == "UP" else "down"

        return oper

    # --- commands --------------------------------------------------------------------------------

    def version(self, _p: dict[str, Any]) -> Reply:
        config = self.s.running()
        return Reply(show.version(config, self.s.asic_type(), uptime_text(), datetime.now()))

    def running_all(self, _p: dict[str, Any]) -> Reply:
        raw = self._vtysh("show running-config") or ""
        return Reply(show.running_all(self.s.running(), raw))

    def interfaces_status(self, p: dict[str, Any]) -> Reply:
        selected = None
        if p["interfacename"]:
            selected = [n.strip() for n in p["interfacename"].split(",")]
        return Reply(show.interfaces_status(self.s.running(), self._oper(), selected))

    def pfc_counters(self, _p: dict[str, Any]) -> Reply:
        return Reply(show.pfc_counters(self.s.running(), self.s.store.counters()))

    def eeprom(self, p: dict[str, Any]) -> Reply:
        if not p.get("dump_dom"):
            return Reply("Error: only --dom is emulated\n", 1)
        return Reply(show.transceiver_dom(self.s.running(), self.s.store.counters()))

    def fec_stats(self, _p: dict[str, Any]) -> Reply:
        return Reply(show.fec_stats(self.s.running(), self.s.store.counters()))

    def queue_counters(self, p: dict[str, Any]) -> Reply:
        text = show.queue_counters(self.s.running(), self.s.store.counters(), p["interfacename"])
        return Reply(text, 1 if text.startswith("Port doesn't exist!") else 0)

    def pg_headroom(self, _p: dict[str, Any]) -> Reply:
        return Reply(show.pg_headroom_persistent_watermark(self.s.running(), self.s.store.counters()))

    def pg_watermark_headroom(self, _p: dict[str, Any]) -> Reply:
        return Reply(show.pg_watermark(self.s.running(), self.s.store.counters(), "headroom"))

    def pg_watermark_shared(self, _p: dict[str, Any]) -> Reply:
        return Reply(show.pg_watermark(self.s.running(), self.s.store.counters(), "shared"))

    def buffer_pool_watermark(self, _p: dict[str, Any]) -> Reply:
        return Reply(show.pool_watermark(self.s.running(), self.s.store.counters(), "buffer_pool"))

    def headroom_pool_watermark(self, _p: dict[str, Any]) -> Reply:
        return Reply(show.pool_watermark(self.s.running(), self.s.store.counters(), "headroom_pool"))

    def pfcwd_config(self, p: dict[str, Any]) -> Reply:
        return Reply(show.pfcwd_config(self.s.running(), list(p["ports"])))

    def pfcwd_stats(self, p: dict[str, Any]) -> Reply:
        return Reply(show.pfcwd_stats(self.s.running(), self.s.store.counters(), list(p["queues"]), bool(p["empty"])))

    def ecn(self, _p: dict[str, Any]) -> Reply:
        return Reply(show.ecn(self.s.running()))

    def lldp_neighbors(self, p: dict[str, Any]) -> Reply:
        args = ["show", "neighbors"]
        if p["interfacename"]:
            args += ["ports", linux_name_function()(p["interfacename"])]
        text = self._lldpcli(*args)
        if text is not None:
            text = self._intent_names(text)
            if p["interfacename"] and p["interfacename"] not in text:
                text = ""
        return Reply(show.lldp_neighbors(text))

    def _intent_names(self, text: str) -> str:
        """lldpd sees Linux names; users see intent names (``Interface:    Ethernet1_1,``)."""
        ifname = linux_name_function()
        for port in self.s.running().get("PORT", {}):
            linux = ifname(port)
            if linux != port:
                text = text.replace(f"Interface:    {linux},", f"Interface:    {port},")
        return text

    def lldp_table(self, _p: dict[str, Any]) -> Reply:
        text = self._lldpcli("-f", "json", "show", "neighbors")
        data = json.loads(text) if text else None
        if data is not None:
            ifname = linux_name_function()
            back = {ifname(port): port for port in self.s.running().get("PORT", {})}
            for item in show._as_list(data.get("lldp", {}).get("interface", [])):
                for linux in list(item):
                    if linux in back and back[linux] != linux:
                        item[back[linux]] = item.pop(linux)
        return Reply(show.lldp_table(data))

    def bgp_summary(self, _p: dict[str, Any]) -> Reply:
        text = self._vtysh("show ip bgp summary json")
        if text is None:
            return Reply(f"{VTYSH_NO_DAEMONS}\n", 1)
        summary = json.loads(text)
        extra = None
        if "ipv4Unicast" not in summary:
            extra = json.loads(self._vtysh("show ip bgp json") or "{}")
        return Reply(show.bgp_summary(summary, extra, self.s.running()))


# --- host wrappers of the containers' tools --------------------------------------------------------
# SONiC installs /usr/bin/vtysh (docker-fpm-frr) and /usr/bin/lldpctl (docker-lldp) on the host as
# ``docker exec -i <container> <tool> "$@"``, so both run from the admin shell.

VTYSH_USAGE = "Usage : vtysh [OPTION...]\n"


def vtysh(s: SonicSession, args: list[str]) -> Reply:
    """``vtysh -c CMD [-c CMD ...]``: FRR's own output (commands run in order, as vtysh does)."""
    commands = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-c"]
    if not commands or len(commands) * 2 != len(args):
        return Reply(VTYSH_USAGE, 1)
    if s.ctx.frr_vty_dir is None:
        return Reply(f"{VTYSH_NO_DAEMONS}\n", 1)
    direct = frr_vty.ask(s.ctx.frr_vty_dir, commands[0]) if len(commands) == 1 else None
    if direct is not None:  # vtysh's output without starting vtysh
        return Reply(direct)
    argv = [*vtysh_base(s.ctx.frr_vty_dir)]
    for command in commands:
        argv += ["-c", command]
    try:
        proc = s.ctx.run_in_netns(argv, check=False)
    except (OSError, subprocess.SubprocessError):
        return Reply(f"{VTYSH_NO_DAEMONS}\n", 1)
    return Reply(proc.stdout + proc.stderr, proc.returncode)


def lldpctl(s: SonicSession, args: list[str]) -> Reply:
    """``lldpctl [-f FORMAT] [INTERFACE ...]``: lldpd's neighbours; Linux port names shown as SONiC's."""
    try:
        options, named = parse_args(args)
    except LldpctlUsageError as exc:
        return Reply(str(exc), 1)
    ports = [linux_name_function()(word) for word in named]
    # lldpctl is ``lldpcli show neighbors`` (lldpd's client/lldpcli.c, when invoked as lldpctl)
    text = ShowCommands(s)._lldpcli(*options, "show", "neighbors", *(["ports", ",".join(ports)] if ports else []))
    if text is None:
        return Reply("lldpctl: unable to connect to lldpd daemon\n", 1)
    ifname = linux_name_function()
    for port in s.running().get("PORT", {}):
        linux = ifname(port)
        if linux != port:
            text = text.replace(f'"{linux}"', f'"{port}"').replace(f"Interface:    {linux},", f"Interface:    {port},")
    return Reply(text)
