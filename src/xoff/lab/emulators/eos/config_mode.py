"""What EOS takes in configuration mode besides configuration statements: ``end``, ``exit`` (up one mode,
or out), ``abort``, and in a configuration session ``commit [timer]``, ``rollback clean-config``, ``show
session-config``; the show and save commands work there too."""

from __future__ import annotations

from xoff.lab.emulators.base import Reply
from xoff.lab.emulators.eos.cli import Cli
from xoff.lab.emulators.eos.commands import CONFIG
from xoff.lab.emulators.eos.grammar import Args, Command
from xoff.lab.emulators.eos.model import render
from xoff.lab.emulators.eos.store import header


def table(cli: Cli, shared: list[Command]) -> list[Command]:
    """The meta commands of the current mode; ``shared`` is the save and show commands."""
    commands = [
        Command("end", lambda _a: end(cli)),
        Command("exit", lambda _a: exit_mode(cli)),
        Command("abort", lambda _a: abort(cli)),
        *shared,
    ]
    if cli.session is not None:
        commands += [
            Command("commit [timer <t:hhmmss>]", lambda a: commit(cli, a)),
            Command("rollback clean-config", lambda _a: rollback_clean(cli)),
            Command("show session-config [<diffs:=diffs>]", lambda a: show_session_config(cli, a)),
        ]
    return commands


def end(cli: Cli) -> Reply:
    cli.leave()
    return Reply()


def exit_mode(cli: Cli) -> Reply:
    parent = cli.mode.parent
    if parent is None:
        cli.leave()
    else:
        cli.mode = parent
    return Reply()


def abort(cli: Cli) -> Reply:
    name = cli.session
    cli.dirty = False
    cli.leave()
    return cli.errors(cli.device.abort(name)) if name is not None else Reply()


def commit(cli: Cli, a: Args) -> Reply:
    assert cli.session is not None
    errors = cli.device.commit(cli.session, cli.candidate, a.get("t"))
    cli.dirty = False
    cli.leave()
    return cli.errors(errors, arm=True)


def rollback_clean(cli: Cli) -> Reply:
    assert cli.session is not None
    cli.candidate = cli.device.rollback_clean()
    cli.mode = CONFIG
    cli.dirty = True
    return Reply()


def show_session_config(cli: Cli, a: Args) -> Reply:
    assert cli.session is not None and cli.candidate is not None
    if "diffs" in a:
        return Reply(cli.device.diffs(cli.session, cli.candidate))
    return Reply(header(cli.candidate.hostname, "show session-config") + render(cli.candidate))
