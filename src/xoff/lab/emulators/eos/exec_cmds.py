"""EOS exec-level commands: ``enable``/``disable``, ``exit``/``logout``, ``terminal length|width``, entering
configuration (``configure [terminal]``, ``configure session``), a named session's ``commit``/``abort`` from
exec, ``configure replace``, saving the startup-config."""

from __future__ import annotations

from xoff.lab.emulators.base import Reply
from xoff.lab.emulators.eos.cli import CONF, ENABLE, EXEC, Cli
from xoff.lab.emulators.eos.commands import CONFIG
from xoff.lab.emulators.eos.grammar import Args, Command, CommandError
from xoff.lab.emulators.eos.store import clean, parse


def common(cli: Cli) -> list[Command]:
    """What both exec levels have (the show commands are added by the emulator)."""
    return [
        Command("enable", lambda _a: enable(cli)),
        Command("disable", lambda _a: disable(cli)),
        Command("exit", lambda _a: Reply(close=True)),
        Command("logout", lambda _a: Reply(close=True)),
        Command("terminal length <n:length>", lambda a: terminal_length(cli, a)),
        Command("terminal width <n:width>", lambda a: terminal_width(cli, a)),
    ]


def privileged(cli: Cli) -> list[Command]:
    return [
        Command("configure [terminal]", lambda _a: configure_terminal(cli)),
        Command("configure session [<name:word>]", lambda a: configure_session(cli, a)),
        Command(
            "configure session <name:word> commit [timer <t:hhmmss>]",
            lambda a: cli.errors(cli.device.commit(a["name"], None, a.get("t")), arm=True),
        ),
        Command("configure session <name:word> abort", lambda a: cli.errors(cli.device.abort(a["name"]))),
        Command("configure replace <url:word>", lambda a: configure_replace(cli, a)),
        *save_commands(cli),
    ]


def save_commands(cli: Cli) -> list[Command]:
    return [
        Command("copy running-config startup-config", lambda _a: save(cli)),
        Command("write [memory]", lambda _a: save(cli)),
    ]


def enable(cli: Cli) -> Reply:
    if cli.level == EXEC:
        cli.level = ENABLE
    return Reply()


def disable(cli: Cli) -> Reply:
    cli.level = EXEC
    return Reply()


def terminal_length(cli: Cli, a: Args) -> Reply:
    cli.length = a["n"]
    return Reply("Pagination disabled.\n" if a["n"] == 0 else f"Pagination set to {a['n']} lines.\n")


def terminal_width(cli: Cli, a: Args) -> Reply:
    cli.width = a["n"]
    return Reply(f"Width set to {a['n']} columns.\n")


def configure_terminal(cli: Cli) -> Reply:
    cli.level, cli.mode, cli.session, cli.candidate = CONF, CONFIG, None, None
    return Reply()


def configure_session(cli: Cli, a: Args) -> Reply:
    name = a.get("name") or f"session{int(cli.clock() * 1000) % 10**9}"
    cli.candidate = cli.device.enter(name)
    cli.level, cli.mode, cli.session = CONF, CONFIG, name
    return Reply()


def configure_replace(cli: Cli, a: Args) -> Reply:
    url: str = a["url"]
    store = cli.device.store
    with store.locked():
        current = store.peek()
        if url == "clean-config":
            new = clean(current)
        else:
            text = store.startup_text() if url == "startup-config" else None
            path = store.file_for(url) if url != "startup-config" else None
            if path is not None and path.is_file():
                text = path.read_text(encoding="utf-8")
            if text is None:
                raise CommandError(f"% Error copying {url} to running-config (No such file or directory)")
            new = parse(text, clean(current))
        return cli.errors(cli.device.replace_running(new))


def save(cli: Cli) -> Reply:
    with cli.device.store.locked():
        cli.device.store.save_startup()
    return Reply("Copy completed successfully.\n")
