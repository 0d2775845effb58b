"""Which EOS show command prints what: the show tables of the exec levels (the formats themselves are in
``show_system``, ``show_net``, ``show_route``, ``show_qos``, ``show_counters``, ``show_optics``). Each answer carries its
``| json`` model where EOS has one (``Reply.data``)."""

from __future__ import annotations

from collections.abc import Callable

from xoff.lab.emulators.base import Reply
from xoff.lab.emulators.eos import show_counters, show_lanz, show_net, show_optics, show_qos, show_route, show_system
from xoff.lab.emulators.eos.cli import Cli
from xoff.lab.emulators.eos.grammar import Args, Command, CommandError
from xoff.lab.emulators.eos.model import RunningConfig, render
from xoff.lab.emulators.eos.store import header, parse

Shown = tuple[str, dict[str, object]]  # a show command's text and its | json model


def shown(text: str, data: dict[str, object] | None = None) -> Reply:
    return Reply(text, data=data)


def unprivileged(cli: Cli) -> list[Command]:
    ctx, store = cli.ctx, cli.device.store
    return [
        Command("show version", lambda _a: shown(*show_system.version(ctx.device, store.boot()))),
        Command("show hostname", lambda _a: shown(*show_system.hostname(store.peek().hostname))),
        Command("show interfaces status", lambda _a: _with_links(cli, show_net.interfaces_status)),
        Command("show ip interface brief", lambda _a: _with_links(cli, show_net.ip_interface_brief)),
        Command("show lldp neighbors", lambda _a: shown(*show_net.lldp_neighbors(ctx, store.peek()))),
        Command("show ip bgp summary", lambda _a: shown(*show_net.bgp_summary(ctx, store.peek()))),
        Command("show ip route", lambda _a: shown(*show_route.ip_route(ctx, store.peek()))),
        Command("show priority-flow-control", lambda _a: _with_links(cli, show_qos.priority_flow_control)),
        Command("show qos maps", lambda _a: shown(*show_qos.qos_maps(store.peek()))),
        *_counters(cli),
    ]


def privileged(cli: Cli) -> list[Command]:
    return [
        Command("show running-config", lambda _a: show_running(cli)),
        Command("show startup-config", lambda _a: show_startup(cli)),
        Command("show configuration sessions [<detail:=detail>]", lambda a: show_sessions(cli, a)),
        Command("show session-config named <name:word> [<diffs:=diffs>]", lambda a: show_named_session(cli, a)),
    ]


def _counters(cli: Cli) -> list[Command]:
    """The ASIC's counters (``show_counters``): what the state dir's hook file holds, else zero."""

    def read(fn: Callable[..., Shown], *args: object) -> Reply:
        counters = show_counters.Counters.load(cli.ctx.state_dir)
        show_optics.check(counters.data, cli.ctx.state_dir / show_counters.FILE)
        return shown(*fn(cli.device.store.peek(), counters, *args))

    return [
        Command("show priority-flow-control counters", lambda _a: read(show_counters.pfc_counters)),
        Command("show priority-flow-control counters watchdog", lambda _a: read(show_counters.pfc_watchdog_counters)),
        Command("show interfaces phy detail", lambda _a: read(show_optics.phy_detail)),
        Command(
            "show queue-monitor length",
            lambda _a: read(lambda cfg, c: show_lanz.queue_monitor_length(cfg, c.data.get("lanz", {}))),
        ),
        Command("show interfaces transceiver dom thresholds", lambda _a: read(show_optics.dom_thresholds)),
        Command(
            "show interfaces [<port:intf>] priority-flow-control counters detail",
            lambda a: read(show_counters.pfc_counters_detail, a.get("port")),
        ),
        Command(
            "show interfaces [<port:intf>] counters queue detail",
            lambda a: read(show_counters.queue_counters_detail, a.get("port")),
        ),
        Command(
            "show qos interfaces [<port:intf>] ecn counters queue",
            lambda a: read(show_counters.ecn_counters, a.get("port")),
        ),
    ]


def _with_links(cli: Cli, fn: Callable[[RunningConfig, dict[str, show_net.Link] | None], Shown]) -> Reply:
    return shown(*fn(cli.device.store.peek(), show_net.links(cli.ctx)))


def show_running(cli: Cli) -> Reply:
    text = cli.device.store.running_text()
    head = [ln for ln in text.splitlines()[:2] if ln.startswith("! ")]
    return shown(text, show_system.running_config_tree(text, head))


def show_startup(cli: Cli) -> Reply:
    text = cli.device.store.startup_text()
    if text is None:
        raise CommandError("% Error: startup-config does not exist")
    return Reply(text)


def show_sessions(cli: Cli, a: Args) -> Reply:
    sessions = cli.device.store.sessions()
    return shown(*show_system.configuration_sessions(sessions, cli.session, cli.clock(), "detail" in a))


def show_named_session(cli: Cli, a: Args) -> Reply:
    cli.flush()
    s = cli.device.store.sessions().get(a["name"])
    if s is None:
        raise CommandError(f"% Session {a['name']} does not exist")
    cfg = parse(s.config)
    if "diffs" in a:
        return Reply(cli.device.diffs(a["name"], cfg))
    return Reply(header(cfg.hostname, "show session-config") + render(cfg))
