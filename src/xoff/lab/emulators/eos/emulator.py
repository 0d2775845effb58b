"""The EOS CLI of one SSH session: modes, prompts, exec and show commands, configuration.

Modes and prompts as EOS has them: ``spine1>`` (exec), ``spine1#`` after ``enable`` (no enable
password in the lab), ``spine1(config)#``, ``spine1(config-if-Et1/1)#``, ``spine1(config-if-Et1/1-txq-3)#``,
``spine1(config-router-bgp)#``, ``spine1(config-router-bgp-af)#``, and in a configuration session
``spine1(config-s-NAME)#`` (the first six characters of the session name, as EOS shows it). An exec
request (``ssh spine1 'show version'``) runs at the privileged level, as for an EOS admin user.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from xoff.lab.emulators.base import EmulatorBase, EmulatorContext, Reply
from xoff.lab.emulators.eos import commands, show_counters, show_net, show_qos, show_route, show_system
from xoff.lab.emulators.eos.commands import CONFIG, CommandError, Mode
from xoff.lab.emulators.eos.grammar import Args, Command, ParseError, Tokens, match
from xoff.lab.emulators.eos.model import RunningConfig, render
from xoff.lab.emulators.eos.sessions import Device
from xoff.lab.emulators.eos.store import ConfigRefusedError, clean, header, parse

EXEC, ENABLE, CONF = "exec", "enable", "config"
SESSION_PROMPT_CHARS = 6
UNCONVERTED = "% This is an unconverted command"
PRIVILEGED = "% Invalid input (privileged mode required)"


@dataclass
class Out:
    """A command's result before line endings: text, and the ``| json`` model when the command has one."""

    text: str = ""
    data: dict[str, object] | None = None
    close: bool = False


def _furthest(a: ParseError, b: ParseError) -> ParseError:
    """Of two explanations, the one that got further; at the same token an ambiguity or a missing
    word says more than "invalid"."""
    rank = {"invalid": 0, "incomplete": 1, "ambiguous": 2}
    return a if (a.token, rank[a.kind]) > (b.token, rank[b.kind]) else b


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


class Emulator(EmulatorBase):
    def __init__(self, ctx: EmulatorContext, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(ctx)
        self.device = Device(ctx, clock)
        self.clock = clock
        self.level = EXEC
        self.mode: Mode = CONFIG
        self.session: str | None = None
        self.candidate: RunningConfig | None = None
        self._dirty = False  # the candidate has lines sessions.json does not have yet (see _flush)
        self.width, self.length = 80, 24
        self._timer: threading.Timer | None = None
        self._apply_errors(self.device.boot_errors + self.device.expire())
        self._arm_timer()
        self._tables = self._build_tables()

    # --- the session contract -------------------------------------------------------------------

    def banner(self) -> str:
        return ""

    def prompt(self) -> str:
        host = self.device.store.peek().hostname
        if self.level == EXEC:
            return f"{host}>"
        if self.level == ENABLE:
            return f"{host}#"
        sess = f"-s-{self.session[:SESSION_PROMPT_CHARS]}" if self.session is not None else ""
        return f"{host}(config{sess}{self.mode.prompt_suffix()})#"

    def execute(self, command: str) -> Reply:
        self.level = ENABLE
        return self.step(command)

    def close(self) -> None:
        self._flush()

    def handle(self, line: str) -> Reply:
        notes = self.device.expire()
        out = self._run(line.strip())
        text = "".join(e + "\n" for e in notes) + out.text
        return Reply(output=_crlf(text), close=out.close)

    # --- dispatch -------------------------------------------------------------------------------

    def _run(self, line: str) -> Out:
        if not line or line.startswith("!"):
            return Out()
        command, pipes = line, ""
        if Tokens.split(line).words[0].lower() in {"show", "sho", "sh"} and "|" in line:
            command, _, pipes = line.partition("|")
        try:
            run = self._config_line if self.level == CONF else self._exec_line
            out = run(command.strip(), pipes)
            return self._pipe(out, pipes) if pipes else out
        except ParseError as err:
            return Out(err.message + "\n")
        except (CommandError, ConfigRefusedError) as err:
            return Out(str(err) + "\n")

    def _exec_line(self, line: str, _pipes: str) -> Out:
        toks = Tokens.split(line)
        table = self._tables[self.level]
        try:
            cmd, args = match(table, toks)
        except ParseError as err:
            if self.level == EXEC:
                try:
                    match(self._tables[ENABLE], toks)
                except ParseError:
                    raise err from None
                return Out(PRIVILEGED + "\n")
            raise
        result: Out = cmd.handler(args)
        return result

    def _config_line(self, line: str, pipes: str) -> Out:
        toks = Tokens.split(line)
        try:
            cmd, args = match(self._meta_table(), toks)
        except ParseError as meta_err:
            if pipes:
                raise
            return self._configure(line, meta_err)
        result: Out = cmd.handler(args)
        return result

    def _configure(self, line: str, meta_err: ParseError) -> Out:
        """A configuration statement, into the session or straight into the running-config."""
        if self.reject_this_config_command():
            return Out("% Invalid input\n")
        try:
            if self.session is not None:
                assert self.candidate is not None
                self.mode = commands.execute(self.candidate, self.mode, line)
                self._dirty = True
                return Out()
            with self.device.store.locked():
                cfg = self.device.store.running()
                self.mode = commands.execute(cfg, self.mode, line)
                errors = self.device.replace_running(cfg)
        except ParseError as err:
            raise _furthest(meta_err, err) from None
        return Out("".join(e + "\n" for e in errors))

    # --- output pipes ---------------------------------------------------------------------------

    def _pipe(self, out: Out, pipes: str) -> Out:
        as_json = False
        text = out.text
        for segment in pipes.split("|"):
            cmd, args = match(PIPES, Tokens.split(segment))
            how = cmd.pattern.split()[0]
            if how == "json":
                as_json = True
            elif how != "no-more":
                try:
                    text = show_system.filter_output(text, how, args["re"])
                except re.error:
                    return Out(f"% Invalid regular expression: {args['re']}\n")
        if as_json:
            if out.data is None:
                return Out(UNCONVERTED + "\n")
            return Out(json.dumps(out.data, indent=2) + "\n")
        return Out(text)

    # --- tables ---------------------------------------------------------------------------------

    def _build_tables(self) -> dict[str, list[Command]]:
        self._shows = self._show_commands(privileged=False) + self._show_commands(privileged=True)
        common = [
            Command("enable", self._enable),
            Command("disable", self._disable),
            Command("exit", self._logout),
            Command("logout", self._logout),
            Command("terminal length <n:length>", self._terminal_length),
            Command("terminal width <n:width>", self._terminal_width),
            *self._show_commands(privileged=False),
        ]
        privileged = [
            Command("configure [terminal]", self._configure_terminal),
            Command("configure session [<name:word>]", self._configure_session),
            Command("configure session <name:word> commit [timer <t:hhmmss>]", self._session_commit),
            Command("configure session <name:word> abort", self._session_abort),
            Command("configure replace <url:word>", self._configure_replace),
            *self._save_commands(),
            *self._show_commands(privileged=True),
        ]
        return {EXEC: common, ENABLE: common + privileged}

    def _save_commands(self) -> list[Command]:
        return [Command("copy running-config startup-config", self._save), Command("write [memory]", self._save)]

    def _show_commands(self, privileged: bool) -> list[Command]:
        if not privileged:
            return [
                Command(
                    "show version", lambda _a: Out(*show_system.version(self.ctx.device, self.device.store.boot()))
                ),
                Command("show hostname", lambda _a: Out(*show_system.hostname(self.device.store.peek().hostname))),
                Command("show interfaces status", lambda _a: self._with_links(show_net.interfaces_status)),
                Command("show ip interface brief", lambda _a: self._with_links(show_net.ip_interface_brief)),
                Command(
                    "show lldp neighbors", lambda _a: Out(*show_net.lldp_neighbors(self.ctx, self.device.store.peek()))
                ),
                Command(
                    "show ip bgp summary", lambda _a: Out(*show_net.bgp_summary(self.ctx, self.device.store.peek()))
                ),
                Command("show ip route", lambda _a: Out(*show_route.ip_route(self.ctx, self.device.store.peek()))),
                Command("show priority-flow-control", lambda _a: self._with_links(show_qos.priority_flow_control)),
                Command("show qos maps", lambda _a: Out(*show_qos.qos_maps(self.device.store.peek()))),
                *self._counter_commands(),
            ]
        return [
            Command("show running-config", self._show_running),
            Command("show startup-config", self._show_startup),
            Command("show configuration sessions [<detail:=detail>]", self._show_sessions),
            Command("show session-config named <name:word> [<diffs:=diffs>]", self._show_named_session),
        ]

    def _counter_commands(self) -> list[Command]:
        """The ASIC's counters (``show_counters``): what the state dir's hook file holds, else zero."""

        def shown(fn: Callable[..., tuple[str, dict[str, object]]], *args: object) -> Out:
            return Out(*fn(self.device.store.peek(), show_counters.Counters.load(self.ctx.state_dir), *args))

        return [
            Command("show priority-flow-control counters", lambda _a: shown(show_counters.pfc_counters)),
            Command(
                "show priority-flow-control counters watchdog",
                lambda _a: shown(show_counters.pfc_watchdog_counters),
            ),
            Command(
                "show interfaces [<port:intf>] priority-flow-control counters detail",
                lambda a: shown(show_counters.pfc_counters_detail, a.get("port")),
            ),
            Command(
                "show interfaces [<port:intf>] counters queue detail",
                lambda a: shown(show_counters.queue_counters_detail, a.get("port")),
            ),
        ]

    def _meta_table(self) -> list[Command]:
        table = [
            Command("end", self._end),
            Command("exit", self._exit),
            Command("abort", self._abort),
            *self._save_commands(),
            *self._shows,
        ]
        if self.session is not None:
            table += [
                Command("commit [timer <t:hhmmss>]", self._commit),
                Command("rollback clean-config", self._rollback_clean),
                Command("show session-config [<diffs:=diffs>]", self._show_session_config),
            ]
        return table

    # --- exec handlers --------------------------------------------------------------------------

    def _enable(self, _a: Args) -> Out:
        if self.level == EXEC:
            self.level = ENABLE
        return Out()

    def _disable(self, _a: Args) -> Out:
        self.level = EXEC
        return Out()

    def _logout(self, _a: Args) -> Out:
        return Out(close=True)

    def _terminal_length(self, a: Args) -> Out:
        self.length = a["n"]
        return Out("Pagination disabled.\n" if a["n"] == 0 else f"Pagination set to {a['n']} lines.\n")

    def _terminal_width(self, a: Args) -> Out:
        self.width = a["n"]
        return Out(f"Width set to {a['n']} columns.\n")

    def _configure_terminal(self, _a: Args) -> Out:
        self.level, self.mode, self.session, self.candidate = CONF, CONFIG, None, None
        return Out()

    def _configure_session(self, a: Args) -> Out:
        name = a.get("name") or f"session{int(self.clock() * 1000) % 10**9}"
        self.candidate = self.device.enter(name)
        self.level, self.mode, self.session = CONF, CONFIG, name
        return Out()

    def _session_commit(self, a: Args) -> Out:
        return self._errors(self.device.commit(a["name"], None, a.get("t")), arm=True)

    def _session_abort(self, a: Args) -> Out:
        return self._errors(self.device.abort(a["name"]))

    def _configure_replace(self, a: Args) -> Out:
        url: str = a["url"]
        with self.device.store.locked():
            current = self.device.store.peek()
            if url == "clean-config":
                new = clean(current)
            else:
                text = self.device.store.startup_text() if url == "startup-config" else None
                path = self.device.store.file_for(url) if url != "startup-config" else None
                if path is not None and path.is_file():
                    text = path.read_text(encoding="utf-8")
                if text is None:
                    raise CommandError(f"% Error copying {url} to running-config (No such file or directory)")
                new = parse(text, clean(current))
            return self._errors(self.device.replace_running(new))

    def _save(self, _a: Args) -> Out:
        with self.device.store.locked():
            self.device.store.save_startup()
        return Out("Copy completed successfully.\n")

    # --- show handlers --------------------------------------------------------------------------

    def _with_links(
        self, fn: Callable[[RunningConfig, dict[str, show_net.Link] | None], tuple[str, dict[str, object]]]
    ) -> Out:
        return Out(*fn(self.device.store.peek(), show_net.links(self.ctx)))

    def _show_running(self, _a: Args) -> Out:
        text = self.device.store.running_text()
        lines = text.splitlines()
        head = [ln for ln in lines[:2] if ln.startswith("! ")]
        return Out(text, show_system.running_config_tree(text, head))

    def _show_startup(self, _a: Args) -> Out:
        text = self.device.store.startup_text()
        if text is None:
            raise CommandError("% Error: startup-config does not exist")
        return Out(text)

    def _show_sessions(self, a: Args) -> Out:
        sessions = self.device.store.sessions()
        return Out(*show_system.configuration_sessions(sessions, self.session, self.clock(), "detail" in a))

    def _show_named_session(self, a: Args) -> Out:
        self._flush()
        s = self.device.store.sessions().get(a["name"])
        if s is None:
            raise CommandError(f"% Session {a['name']} does not exist")
        cfg = parse(s.config)
        if "diffs" in a:
            return Out(self.device.diffs(a["name"], cfg))
        return Out(header(cfg.hostname, "show session-config") + render(cfg))

    def _show_session_config(self, a: Args) -> Out:
        assert self.session is not None and self.candidate is not None
        if "diffs" in a:
            return Out(self.device.diffs(self.session, self.candidate))
        return Out(header(self.candidate.hostname, "show session-config") + render(self.candidate))

    # --- configuration-mode handlers ------------------------------------------------------------

    def _flush(self) -> None:
        """Write the session's candidate to ``sessions.json`` if lines changed it since the last write.

        Per line that write (render + rewrite) was most of a line's cost; the candidate is written
        instead when it leaves this SSH session's hands: on leaving the session's configuration mode
        (``end``, ``exit``; ``commit`` and ``abort`` write or drop it themselves), when the SSH session
        ends or drops (``close``), and before a command that reads it back from the store. Until then
        another SSH session sees the session as it was when this one last wrote it."""
        if self._dirty and self.session is not None and self.candidate is not None:
            self.device.save(self.session, self.candidate)
        self._dirty = False

    def _leave(self) -> None:
        self._flush()
        self.level, self.mode, self.session, self.candidate = ENABLE, CONFIG, None, None

    def _end(self, _a: Args) -> Out:
        self._leave()
        return Out()

    def _exit(self, _a: Args) -> Out:
        parent = self.mode.parent
        if parent is None:
            self._leave()
        else:
            self.mode = parent
        return Out()

    def _abort(self, _a: Args) -> Out:
        name = self.session
        self._dirty = False
        self._leave()
        return self._errors(self.device.abort(name)) if name is not None else Out()

    def _commit(self, a: Args) -> Out:
        assert self.session is not None
        errors = self.device.commit(self.session, self.candidate, a.get("t"))
        self._dirty = False
        self._leave()
        return self._errors(errors, arm=True)

    def _rollback_clean(self, _a: Args) -> Out:
        assert self.session is not None
        self.candidate = self.device.rollback_clean()
        self.mode = CONFIG
        self._dirty = True
        return Out()

    # --- commit timers --------------------------------------------------------------------------

    def _errors(self, errors: list[str], arm: bool = False) -> Out:
        if arm:
            self._arm_timer()
        return Out("".join(e + "\n" for e in errors))

    def _apply_errors(self, errors: list[str]) -> None:
        """Errors from a rollback no session asked for: kept in the state dir for whoever looks."""
        if errors:
            with (self.ctx.state_dir / "apply-errors.log").open("a", encoding="utf-8") as fh:
                fh.write("".join(f"{time.time():.3f} {e}\n" for e in errors))

    def _arm_timer(self) -> None:
        """A timer thread for the next commit-timer deadline (the persisted one is also checked on every command)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.device.next_deadline()
        if deadline is None:
            return
        self._timer = threading.Timer(max(0.0, deadline - self.clock()) + 0.05, self._timer_fired)
        self._timer.daemon = True
        self._timer.start()

    def _timer_fired(self) -> None:
        self._apply_errors(self.device.expire())
        self._arm_timer()


PIPES = [
    Command("json", lambda _a: None),
    Command("no-more", lambda _a: None),
    Command("include <re:line>", lambda _a: None),
    Command("exclude <re:line>", lambda _a: None),
    Command("begin <re:line>", lambda _a: None),
    Command("section <re:line>", lambda _a: None),
]
