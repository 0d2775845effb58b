"""The Cumulus Linux session: a bash-like login shell for ``cumulus`` with NVUE's ``nv`` command.

Prompt ``cumulus@<hostname>:mgmt:~$`` (bash in the management VRF, as Cumulus Linux 5 logs SSH sessions
in); ``sudo -i``/``sudo -s`` give ``root@<hostname>:mgmt:~#`` (the cumulus user's sudo needs no password
here). The hostname is read when the session opens, as the login shell's prompt has it; a hostname
applied later shows in the next session.

The shell understands ``;``/``&&``/``||``, ``| grep|head|tail``, ``> FILE``/``>> FILE``, ``cat > FILE
<<EOF`` (to put a command file on the switch for ``nv config patch``), and ``echo``, ``cat``, ``rm``,
``hostname``, ``whoami``, ``pwd``, ``true``, ``false``, ``exit``/``logout``, and the native tools
``vtysh`` and ``lldpctl`` on the device's real FRR and lldpd (``tools.py``). Anything else is
``-bash: foo: command not found`` (127). Files live under ``<state_dir>/files`` (what SFTP/SCP see).
"""

from __future__ import annotations

import posixpath
import re
import shlex
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from xoff.lab.emulators.base import EmulatorBase, EmulatorContext, Reply
from xoff.lab.emulators.cumulus.nv import Nv, Out
from xoff.lab.emulators.cumulus.store import Store
from xoff.lab.emulators.cumulus.tools import lldpctl, vtysh
from xoff.platforms.cumulus.patch import get_path

USER = "cumulus"
HOME = "/home/cumulus"
FILES_DIR = "files"  # xoff.lab.sshd FILES_DIR
OPERATORS = {";", "&&", "||"}
MOTD = (
    "Linux {host} 6.1.0-cl-1-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.94-1+cl5.9.1u1 x86_64\n\n"
    "Welcome to NVIDIA Cumulus (R) Linux (R)\n\n"
    "ZTP in progress. To disable, do 'ztp -d'\n\n"
)


@dataclass
class Heredoc:
    delimiter: str
    file: Path
    append: bool
    lines: list[str] = field(default_factory=list)


class Emulator(EmulatorBase):
    def __init__(self, ctx: EmulatorContext, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(ctx)
        self.files = ctx.state_dir / FILES_DIR
        (self.files / HOME.lstrip("/")).mkdir(parents=True, exist_ok=True)
        (self.files / "tmp").mkdir(parents=True, exist_ok=True)
        applied = Store(ctx.state_dir, ctx).read().applied_tree()
        self.host = str(get_path(applied, ("system", "hostname")) or "cumulus")
        self.root = False
        self.exec_mode = False
        self.cwd = HOME
        self._heredoc: Heredoc | None = None
        self.nv = Nv(ctx, USER, self.reject_this_config_command, self.path, clock)
        self.clock = clock
        self._timer: threading.Timer | None = None
        self.nv.log(self.nv.expire())
        self._arm_timer()

    # --- the session contract --------------------------------------------------------------------

    def banner(self) -> str:
        return self._eol(MOTD.format(host=self.host))

    def prompt(self) -> str:
        if self._heredoc is not None:
            return "> "
        where = "~" if self.cwd == HOME else self.cwd
        return f"root@{self.host}:mgmt:{where}# " if self.root else f"{USER}@{self.host}:mgmt:{where}$ "

    def execute(self, command: str) -> Reply:
        self.exec_mode = True
        reply = self.step(command)
        if self._heredoc is not None:
            self._finish_heredoc()
        return reply

    def handle(self, line: str) -> Reply:
        out, status = "", 0
        for physical in line.replace("\r\n", "\n").split("\n"):
            result, close = self._line(physical.rstrip("\r"))
            out += result.text
            status = result.status
            if close:
                return Reply(self._eol(out), close=True, status=status)
        return Reply(self._eol(out), status=status)

    def _eol(self, text: str) -> str:
        return text if self.exec_mode else text.replace("\n", "\r\n")

    def path(self, name: str) -> Path:
        """Where a switch path lives under the state directory (never outside it)."""
        name = HOME + name[1:] if name.startswith("~") else name
        absolute = posixpath.normpath(posixpath.join(self.cwd, name))
        return self.files / absolute.lstrip("/")

    # --- one line --------------------------------------------------------------------------------

    def _line(self, text: str) -> tuple[Out, bool]:
        if self._heredoc is not None:
            if text == self._heredoc.delimiter:
                self._finish_heredoc()
            else:
                self._heredoc.lines.append(text)
            return Out(), False
        if not text.strip() or text.lstrip().startswith("#"):
            return Out(), False
        try:
            lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            return Out("-bash: unexpected EOF while looking for matching quote\n", 2), False
        out, status, skip = "", 0, False
        segment: list[str] = []
        for token in [*tokens, ";"]:
            if token not in OPERATORS:
                segment.append(token)
                continue
            if segment and not skip:
                result, close = self._pipeline(segment)
                out += result.text
                status = result.status
                if close:
                    return Out(out, status), True
            segment = []
            skip = (token == "&&" and status != 0) or (token == "||" and status == 0)
        return Out(out, status), False

    def _finish_heredoc(self) -> None:
        doc = self._heredoc
        assert doc is not None
        self._heredoc = None
        doc.file.parent.mkdir(parents=True, exist_ok=True)
        with doc.file.open("a" if doc.append else "w", encoding="utf-8") as handle:
            handle.write("".join(f"{line}\n" for line in doc.lines))

    def _pipeline(self, tokens: list[str]) -> tuple[Out, bool]:
        stages: list[list[str]] = [[]]
        for token in tokens:
            if token == "|":
                stages.append([])
            else:
                stages[-1].append(token)
        argv: list[str] = []
        redirect, append, heredoc = None, False, None
        words = stages[0]
        i = 0
        while i < len(words):
            if words[i] in {">", ">>"} and i + 1 < len(words):
                redirect, append = words[i + 1], words[i] == ">>"
                i += 2
            elif words[i] == "<<" and i + 1 < len(words):
                heredoc = words[i + 1].lstrip("-")
                i += 2
            else:
                argv.append(words[i])
                i += 1
        if heredoc is not None:
            if argv != ["cat"] or redirect is None:
                return Out("-bash: here-documents are only supported as: cat > FILE <<EOF\n", 2), False
            self._heredoc = Heredoc(heredoc, self.path(redirect), append)
            return Out(), False
        result, close = self._simple(argv)
        for stage in stages[1:]:
            result = _filter(stage, result)
        if redirect is not None and not close:
            file = self.path(redirect)
            file.parent.mkdir(parents=True, exist_ok=True)
            with file.open("a" if append else "w", encoding="utf-8") as handle:
                handle.write(result.text)
            result = Out("", result.status)
        return result, close

    def _simple(self, argv: list[str]) -> tuple[Out, bool]:
        if not argv:
            return Out(), False
        name, args = argv[0], argv[1:]
        if name in {"exit", "logout"}:
            if self.root:
                self.root = False
                return Out(), False
            return Out(), True
        if name == "sudo":
            while args and args[0] in {"-E", "-H", "-n"}:
                args = args[1:]
            if args[:1] in (["-i"], ["-s"], ["su"], ["bash"]) or not args:
                self.root = bool(args)
                return (Out(), False) if args else (Out("usage: sudo -h | -K | -k | -V\n", 1), False)
            return self._simple(args)
        if name == "nv":
            answer = self.nv.run(args)
            if args[:2] == ["config", "apply"]:  # the only command that starts or ends a trial
                self._arm_timer()
            return answer, False
        builtin = getattr(self, f"_cmd_{name}", None)
        if builtin is not None:
            result: Out = builtin(args)
            return result, False
        return Out(f"-bash: {name}: command not found\n", 127), False

    # --- the commit-confirm clock ----------------------------------------------------------------

    def _arm_timer(self) -> None:
        """A timer thread for the trial's deadline, so NVUE rolls back with nobody typing (the deadline
        is persisted, and also checked before every ``nv`` command)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.nv.deadline()
        if deadline is None:
            return
        self._timer = threading.Timer(max(0.0, deadline - self.clock()) + 0.05, self._timer_fired)
        self._timer.daemon = True
        self._timer.start()

    def _timer_fired(self) -> None:
        self.nv.log(self.nv.expire())
        self._arm_timer()

    # --- builtins ----------------------------------------------------------------------------------

    def _cmd_echo(self, args: list[str]) -> Out:
        return Out(" ".join(args[1:]) if args[:1] == ["-n"] else " ".join(args) + "\n")

    def _cmd_cat(self, args: list[str]) -> Out:
        out, status = "", 0
        for name in args:
            file = self.path(name)
            if file.is_file():
                out += file.read_text(encoding="utf-8")
            else:
                out, status = out + f"cat: {name}: No such file or directory\n", 1
        return Out(out, status)

    def _cmd_rm(self, args: list[str]) -> Out:
        force = any(a.startswith("-") and "f" in a for a in args)
        out, status = "", 0
        for name in [a for a in args if not a.startswith("-")]:
            file = self.path(name)
            if file.is_file():
                file.unlink()
            elif not force:
                out, status = out + f"rm: cannot remove '{name}': No such file or directory\n", 1
        return Out(out, status)

    def _cmd_hostname(self, _args: list[str]) -> Out:
        return Out(f"{self.host}\n")

    def _cmd_whoami(self, _args: list[str]) -> Out:
        return Out("root\n" if self.root else f"{USER}\n")

    def _cmd_pwd(self, _args: list[str]) -> Out:
        return Out(f"{self.cwd}\n")

    def _cmd_vtysh(self, args: list[str]) -> Out:
        return Out(*vtysh(self.ctx, args))

    def _cmd_lldpctl(self, args: list[str]) -> Out:
        return Out(*lldpctl(self.ctx, args))

    def _cmd_true(self, _args: list[str]) -> Out:
        return Out()

    def _cmd_false(self, _args: list[str]) -> Out:
        return Out("", 1)


def _filter(stage: list[str], result: Out) -> Out:
    lines = result.text.splitlines()
    name, args = (stage[0], stage[1:]) if stage else ("", [])
    if name == "grep":
        flags = [a for a in args if a.startswith("-")]
        words = [a for a in args if not a.startswith("-")]
        if not words:
            return Out("Usage: grep [OPTION]... PATTERNS [FILE]...\n", 2)
        regex = re.compile(words[0], re.IGNORECASE if "-i" in flags else 0)
        keep = [line for line in lines if bool(regex.search(line)) != ("-v" in flags)]
        return Out("".join(f"{line}\n" for line in keep), 0 if keep else 1)
    if name in {"head", "tail"}:
        count = 10
        for i, arg in enumerate(args):
            if arg == "-n" and i + 1 < len(args):
                count = int(args[i + 1])
            elif re.fullmatch(r"-\d+", arg):
                count = int(arg[1:])
        picked = lines[:count] if name == "head" else lines[-count:] if count else []
        return Out("".join(f"{line}\n" for line in picked))
    return Out(f"-bash: {name}: command not found\n", 127)
