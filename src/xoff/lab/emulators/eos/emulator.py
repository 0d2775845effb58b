"""The EOS CLI of one SSH session: the session contract and the dispatch of a line to its command.

Modes and prompts as EOS has them (``cli.py``): ``spine1>`` (exec), ``spine1#`` after ``enable``,
``spine1(config)#``, ``spine1(config-if-Et1/1)#``, ``spine1(config-if-Et1/1-txq-3)#``,
``spine1(config-router-bgp)#``, ``spine1(config-router-bgp-af)#``, ``spine1(config-s-NAME)#`` in a
configuration session. An exec request (``ssh spine1 'show version'``) runs at the privileged level, as
for an EOS admin user. The commands are by concern: ``exec_cmds`` (levels, entering configuration,
replace, save), ``config_mode`` (end/exit/abort/commit in configuration mode), ``show_dispatch`` (the show
commands), ``pipes`` (``| json``, ``| include``...), ``commands`` (configuration statements).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from xoff.lab.emulators.base import EmulatorBase, EmulatorContext, Reply
from xoff.lab.emulators.eos import commands, config_mode, exec_cmds, show_dispatch
from xoff.lab.emulators.eos.cli import CONF, ENABLE, EXEC, Cli
from xoff.lab.emulators.eos.grammar import Command, CommandError, ParseError, Tokens, match
from xoff.lab.emulators.eos.pipes import pipe
from xoff.lab.emulators.eos.sessions import Device
from xoff.lab.emulators.eos.store import ConfigRefusedError

PRIVILEGED = "% Invalid input (privileged mode required)"


def _furthest(a: ParseError, b: ParseError) -> ParseError:
    """Of two explanations (the meta commands' and the configuration's), the one EOS gives: an ambiguity
    first (EOS resolves abbreviations token by token over every command of the mode, so a word that is
    ambiguous stops it there), else the one that got further; at the same token a missing word says
    more than "invalid"."""
    for amb, other in ((a, b), (b, a)):
        if amb.kind == "ambiguous" and (other.kind != "ambiguous" or amb.token <= other.token):
            return amb
    rank = {"invalid": 0, "incomplete": 1, "ambiguous": 2}
    return a if (a.token, rank[a.kind]) > (b.token, rank[b.kind]) else b


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


class Emulator(EmulatorBase):
    def __init__(self, ctx: EmulatorContext, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(ctx)
        self.cli = Cli(ctx, Device(ctx, clock), clock)
        self.cli.apply_errors(self.cli.device.boot_errors + self.cli.device.expire())
        self.cli.arm_timer()
        shows = show_dispatch.unprivileged(self.cli)
        privileged = show_dispatch.privileged(self.cli)
        common = [*exec_cmds.common(self.cli), *shows]
        self._tables: dict[str, list[Command]] = {
            EXEC: common,
            ENABLE: [*common, *exec_cmds.privileged(self.cli), *privileged],
        }
        self._config_shared = [*exec_cmds.save_commands(self.cli), *shows, *privileged]
        self._config_tables: dict[bool, list[Command]] = {}  # in a configuration session or not -> its table

    # --- the session contract -------------------------------------------------------------------

    def banner(self) -> str:
        return ""

    def prompt(self) -> str:
        return self.cli.prompt()

    def execute(self, command: str) -> Reply:
        self.cli.level = ENABLE
        return self.step(command)

    def close(self) -> None:
        self.cli.flush()

    def _steady(self) -> contextlib.AbstractContextManager[None]:
        return self.cli.device.store.steady()  # the running-config and sessions.json: stat once per paste

    def handle(self, line: str) -> Reply:
        notes = self.cli.device.expire()
        out = self._run(line.strip())
        text = "".join(e + "\n" for e in notes) + out.output
        return Reply(_crlf(text), close=out.close)

    # --- dispatch -------------------------------------------------------------------------------

    def _run(self, line: str) -> Reply:
        if not line or line.startswith("!"):
            return Reply()
        command, pipes = line, ""
        if Tokens.split(line).words[0].lower() in {"show", "sho", "sh"} and "|" in line:
            command, _, pipes = line.partition("|")
        try:
            run = self._config_line if self.cli.level == CONF else self._exec_line
            out = run(command.strip(), pipes)
            return pipe(out, pipes) if pipes else out
        except ParseError as err:
            return Reply(err.message + "\n")
        except (CommandError, ConfigRefusedError) as err:
            return Reply(str(err) + "\n")

    def _exec_line(self, line: str, _pipes: str) -> Reply:
        toks = Tokens.split(line)
        try:
            cmd, args = match(self._tables[self.cli.level], toks)
        except ParseError as err:
            if self.cli.level == EXEC:
                try:
                    match(self._tables[ENABLE], toks)
                except ParseError:
                    raise err from None
                return Reply(PRIVILEGED + "\n")
            raise
        result: Reply = cmd.handler(args)
        return result

    def _config_line(self, line: str, pipes: str) -> Reply:
        toks = Tokens.split(line)
        try:
            cmd, args = match(self._config_table(), toks)
        except ParseError as meta_err:
            if pipes:
                raise
            return self._configure(line, meta_err)
        result: Reply = cmd.handler(args)
        return result

    def _config_table(self) -> list[Command]:
        """Configuration mode's meta commands (``config_mode.table``), built once per session for each of
        its two forms (in a configuration session or not): its handlers read the CLI's state when they run."""
        in_session = self.cli.session is not None
        if in_session not in self._config_tables:
            self._config_tables[in_session] = config_mode.table(self.cli, self._config_shared)
        return self._config_tables[in_session]

    def _configure(self, line: str, meta_err: ParseError) -> Reply:
        """A configuration statement, into the session or straight into the running-config."""
        if self.reject_this_config_command():
            return Reply("% Invalid input\n")
        cli = self.cli
        try:
            if cli.session is not None:
                assert cli.candidate is not None
                cli.mode = commands.execute(cli.candidate, cli.mode, line)
                cli.dirty = True
                return Reply()
            with cli.device.store.locked():
                cfg = cli.device.store.running()
                cli.mode = commands.execute(cfg, cli.mode, line)
                errors = cli.device.replace_running(cfg)
        except ParseError as err:
            raise _furthest(meta_err, err) from None
        return Reply("".join(e + "\n" for e in errors))
