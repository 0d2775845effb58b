"""The SONiC session: a bash-like shell (``admin@<hostname>:~$``) in front of ``show`` and
``config``.

The shell understands what people and automation type at a SONiC switch: ``show ...``,
``sudo config ...`` (``config`` without root is refused as on a real switch: ``Root privileges
are required for this operation``), ``sudo -i``/``sudo su`` (a root shell), ``exit``/``logout``,
``;``/``&&``/``||``, ``> FILE``/``>> FILE``, ``cat > FILE <<EOF`` (to put a patch file on the
switch), ``| grep``/``head``/``tail``, and ``echo``, ``printf``, ``cat``, ``rm``, ``ls``, ``cd``,
``pwd``, ``whoami``, ``hostname``. Anything else is ``-bash: foo: command not found`` (127).

Output uses "\\r\\n" in an interactive session (a terminal's line ends) and "\\n" on an exec
channel (``execute``).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from xoff.buffers import get_asic
from xoff.lab.emulators.base import EmulatorBase, EmulatorContext, Reply
from xoff.lab.emulators.sonic import config_cmds, gcu, show_cmds
from xoff.lab.emulators.sonic.apply import apply_change
from xoff.lab.emulators.sonic.clish import Command, UsageError, resolve, resolve_first, usage_error_text
from xoff.lab.emulators.sonic.result import Confirm, Result
from xoff.lab.emulators.sonic.show import BUILD
from xoff.lab.emulators.sonic.store import HOME, ConfigDb, Store
from xoff.platforms.sonic.yang import validate_config_db
from xoff.platforms.sonic.yang_schema import load_schema

MOTD = """You are on
  ____   ___  _   _ _  ____
 / ___| / _ \\| \\ | (_)/ ___|
 \\___ \\| | | |  \\| | | |
  ___) | |_| | |\\  | | |___
 |____/ \\___/|_| \\_|_|\\____|

-- Software for Open Networking in the Cloud --

Unauthorized access and/or use are prohibited.
All access and/or use are subject to monitoring.

Help:    https://sonic-net.github.io/SONiC/

"""
ROOT_REQUIRED = "Root privileges are required for this operation\n"
OPERATORS = {";", "&&", "||"}


@dataclass
class Heredoc:
    delimiter: str
    file: Path
    append: bool
    lines: list[str] = field(default_factory=list)


class Emulator(EmulatorBase):
    def __init__(self, ctx: EmulatorContext) -> None:
        super().__init__(ctx)
        self.store = Store(ctx)
        self.store.ensure_dirs()
        self.cwd = HOME
        self.root_shell = False
        self.exec_mode = False
        self._as_root = False
        self._confirm: Confirm | None = None
        self._heredoc: Heredoc | None = None
        self._show = show_cmds.build_tree(self)
        self._config = config_cmds.build_tree(self)

    # --- the session contract --------------------------------------------------------------------

    def hostname(self) -> str:
        meta = self.running().get("DEVICE_METADATA", {}).get("localhost", {})
        return str(meta.get("hostname") or self.ctx.device)

    def banner(self) -> str:
        linux = f"Linux {self.hostname()} {BUILD['kernel_version']} #1 SMP PREEMPT_DYNAMIC Debian 6.1.94-1 (2024-06-21) x86_64\n"
        return self._eol(linux + MOTD)

    def prompt(self) -> str:
        if self._heredoc is not None:
            return "> "
        if self._confirm is not None:
            return self._confirm.prompt
        where = (
            "~" if self.cwd == HOME else ("~" + self.cwd[len(HOME) :] if self.cwd.startswith(HOME + "/") else self.cwd)
        )
        if self.root_shell:
            return f"root@{self.hostname()}:{where}# "
        return f"admin@{self.hostname()}:{where}$ "

    def execute(self, command: str) -> Reply:
        """An exec channel: no terminal (so "\\n" line ends, and questions read end-of-file)."""
        self.exec_mode = True
        reply = self.step(command)
        if self._heredoc is not None:  # the here-document ended with the channel's input
            self._finish_heredoc()
        return reply

    def handle(self, line: str) -> Reply:
        out, status, close = "", 0, False
        for physical in line.replace("\r\n", "\n").split("\n") if "\n" in line else [line]:
            result, close = self._line(physical.rstrip("\r"))
            out += result.out
            status = result.status
            if close:
                break
        return Reply(output=self._eol(out), close=close, status=status)

    def _eol(self, text: str) -> str:
        return text if self.exec_mode else text.replace("\n", "\r\n")

    # --- services for the command modules --------------------------------------------------------

    def running(self) -> ConfigDb:
        return self.store.running()

    def validate(self, config: ConfigDb) -> list[str]:
        return validate_config_db(config)

    def updater(self) -> gcu.Updater:
        return gcu.Updater(self.validate, set(load_schema().tables))

    def commit(self, old: ConfigDb, new: ConfigDb) -> None:
        """Write an accepted configuration, then carry it into the namespace and FRR."""
        with self.store.locked():
            self.store.write_running(new)
        apply_change(self.ctx, old, new)

    def asic_type(self) -> str:
        device = self.ctx.desired_device()
        if device is not None and device.asic is not None:
            return str(get_asic(device.asic).vendor)
        return "vs"

    # --- one line of input -----------------------------------------------------------------------

    def _line(self, text: str) -> tuple[Result, bool]:
        if self._heredoc is not None:
            if text == self._heredoc.delimiter:
                self._finish_heredoc()
            else:
                self._heredoc.lines.append(text)
            return Result(), False
        if self._confirm is not None:
            return self._answer(text.strip().lower()), False
        if not text.strip() or text.lstrip().startswith("#"):
            return Result(), False
        try:
            lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            return Result("-bash: unexpected EOF while looking for matching quote\n", 2), False
        out, status, skip = "", 0, False
        segment: list[str] = []
        for token in [*tokens, ";"]:
            if token not in OPERATORS:
                segment.append(token)
                continue
            if segment and not skip:
                result, close = self._pipeline(segment)
                out += result.out
                status = result.status
                if close:
                    return Result(out, status), True
            segment = []
            skip = (token == "&&" and status != 0) or (token == "||" and status == 0)
        return Result(out, status), False

    def _answer(self, answer: str) -> Result:
        assert self._confirm is not None
        confirm = self._confirm
        if answer in {"y", "yes"}:
            self._confirm = None
            assert confirm.then is not None
            return confirm.then()
        if answer in {"n", "no", ""}:
            self._confirm = None
            return Result(f"{confirm.on_abort}Aborted!\n", 1)
        return Result("Error: invalid input\n", 0)

    def _finish_heredoc(self) -> None:
        doc = self._heredoc
        assert doc is not None
        self._heredoc = None
        doc.file.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(f"{line}\n" for line in doc.lines)
        with doc.file.open("a" if doc.append else "w", encoding="utf-8") as handle:
            handle.write(text)

    def _pipeline(self, tokens: list[str]) -> tuple[Result, bool]:
        stages: list[list[str]] = [[]]
        for token in tokens:
            if token == "|":
                stages.append([])
            else:
                stages[-1].append(token)
        argv, redirect, append, heredoc = self._redirections(stages[0])
        if heredoc is not None:
            if argv[:1] != ["cat"] or redirect is None:
                return Result("-bash: here-documents are only supported as: cat > FILE <<EOF\n", 2), False
            self._heredoc = Heredoc(heredoc, self.store.host_path(redirect, self.cwd), append)
            return Result(), False
        result, close = self._simple(argv)
        for stage in stages[1:]:
            result = self._filter(stage, result)
        if redirect is not None and not close:
            file = self.store.host_path(redirect, self.cwd)
            file.parent.mkdir(parents=True, exist_ok=True)
            with file.open("a" if append else "w", encoding="utf-8") as handle:
                handle.write(result.out)
            result = Result("", result.status)
        return result, close

    @staticmethod
    def _redirections(words: list[str]) -> tuple[list[str], str | None, bool, str | None]:
        argv: list[str] = []
        redirect, append, heredoc = None, False, None
        i = 0
        while i < len(words):
            word = words[i]
            if word in {">", ">>"} and i + 1 < len(words):
                redirect, append = words[i + 1], word == ">>"
                i += 2
            elif word == "<<" and i + 1 < len(words):
                heredoc = words[i + 1].lstrip("-")
                i += 2
            else:
                argv.append(word)
                i += 1
        return argv, redirect, append, heredoc

    @staticmethod
    def _filter(stage: list[str], result: Result) -> Result:
        lines = result.out.splitlines()
        name, args = (stage[0], stage[1:]) if stage else ("", [])
        if name == "grep":
            flags = [a for a in args if a.startswith("-")]
            words = [a for a in args if not a.startswith("-")]
            if not words:
                return Result("Usage: grep [OPTION]... PATTERNS [FILE]...\n", 2)
            regex = re.compile(words[0], re.IGNORECASE if "-i" in flags else 0)
            keep = [line for line in lines if bool(regex.search(line)) != ("-v" in flags)]
            return Result("".join(f"{line}\n" for line in keep), 0 if keep else 1)
        if name in {"head", "tail"}:
            count = 10
            for i, arg in enumerate(args):
                if arg == "-n" and i + 1 < len(args):
                    count = int(args[i + 1])
                elif re.fullmatch(r"-\d+", arg):
                    count = int(arg[1:])
            picked = lines[:count] if name == "head" else lines[-count:] if count else []
            return Result("".join(f"{line}\n" for line in picked))
        return Result(f"-bash: {name}: command not found\n", 127)

    # --- commands --------------------------------------------------------------------------------

    def _simple(self, argv: list[str], as_root: bool = False) -> tuple[Result, bool]:
        if not argv:
            return Result(), False
        name, args = argv[0], argv[1:]
        root = as_root or self.root_shell
        if name in {"exit", "logout"}:
            if self.root_shell and not as_root:
                self.root_shell = False
                return Result("logout\n" if name == "logout" else ""), False
            return Result(), True
        if name == "sudo":
            return self._sudo(args)
        if name == "show":
            return self._click(self._show, args, root), False
        if name == "config":
            return self._click(self._config, args, root), False
        builtin = getattr(self, f"_cmd_{name}", None)
        self._as_root = root
        if builtin is not None:
            result: Result = builtin(args)
            return result, False
        return Result(f"-bash: {name}: command not found\n", 127), False

    def _sudo(self, args: list[str]) -> tuple[Result, bool]:
        while args and args[0] in {"-E", "-H", "-n"}:
            args = args[1:]
        if not args:
            return Result("usage: sudo -h | -K | -k | -V\n", 1), False
        if args[0] in {"-i", "-s", "su", "bash"}:
            self.root_shell = True
            return Result(), False
        if args[0] not in {"show", "config", "exit", "logout"} and not hasattr(self, f"_cmd_{args[0]}"):
            return Result(f"sudo: {args[0]}: command not found\n", 1), False
        return self._simple(args, as_root=True)

    def _click(self, root: Command, args: list[str], as_root: bool) -> Result:
        try:
            if root is self._config:
                first = resolve_first(root, args)
                if first is not None and not as_root:
                    return Result(ROOT_REQUIRED, 1)
            invocation = resolve(root, args)
        except UsageError as error:
            return Result(error.text(), 2)
        if invocation.help:
            return Result(invocation.command.help_text(invocation.path))
        command = invocation.command
        params = {**invocation.params, "_command": command, "_path": invocation.path}
        if root is self._config and self.reject_this_config_command():
            message = f"rejected by the lab's fault hook (reject_nth={self.counters.config_commands})"
            prefix = f"Failed to apply patch due to: {message}\n" if command.name == "apply-patch" else ""
            return Result(prefix + usage_error_text(command, invocation.path, message), 2)
        assert command.handler is not None
        result: Result = command.handler(params)
        if isinstance(result, Confirm):
            if self.exec_mode:  # no terminal: click reads end-of-file and aborts
                return Result(f"{result.before}{result.prompt}\n{result.on_abort}Aborted!\n", 1)
            self._confirm = result
            return Result(result.before)
        return result

    # --- shell builtins --------------------------------------------------------------------------

    def _cmd_echo(self, args: list[str]) -> Result:
        newline = "\n"
        if args[:1] == ["-n"]:
            args, newline = args[1:], ""
        return Result(" ".join(args) + newline)

    def _cmd_printf(self, args: list[str]) -> Result:
        if not args:
            return Result("printf: usage: printf [-v var] format [arguments]\n", 2)
        text = args[0].replace("\\n", "\n").replace("\\t", "\t")
        values = iter(args[1:])
        return Result(re.sub(r"%s", lambda _: next(values, ""), text))

    def _cmd_cat(self, args: list[str]) -> Result:
        out, status = "", 0
        for name in args:
            file = self.store.host_path(name, self.cwd)
            if file.is_file():
                out += file.read_text(encoding="utf-8")
            else:
                out += f"cat: {name}: No such file or directory\n"
                status = 1
        return Result(out, status)

    def _cmd_rm(self, args: list[str]) -> Result:
        force = any(a.startswith("-") and "f" in a for a in args)
        out, status = "", 0
        for name in [a for a in args if not a.startswith("-")]:
            file = self.store.host_path(name, self.cwd)
            if file.is_file():
                file.unlink()
            elif not force:
                out += f"rm: cannot remove '{name}': No such file or directory\n"
                status = 1
        return Result(out, status)

    def _cmd_ls(self, args: list[str]) -> Result:
        names = [a for a in args if not a.startswith("-")] or ["."]
        out, status = "", 0
        for name in names:
            path = self.store.host_path(name, self.cwd)
            if path.is_dir():
                entries = sorted(p.name for p in path.iterdir())
                out += "".join(f"{e}\n" for e in entries)
            elif path.is_file():
                out += f"{name}\n"
            else:
                out += f"ls: cannot access '{name}': No such file or directory\n"
                status = 2
        return Result(out, status)

    def _cmd_cd(self, args: list[str]) -> Result:
        target = posixpath.normpath(posixpath.join(self.cwd, args[0].replace("~", HOME, 1))) if args else HOME
        if not self.store.is_dir(target):
            return Result(f"-bash: cd: {args[0]}: No such file or directory\n", 1)
        self.cwd = target
        return Result()

    def _cmd_pwd(self, _args: list[str]) -> Result:
        return Result(f"{self.cwd}\n")

    def _cmd_whoami(self, _args: list[str]) -> Result:
        return Result("root\n" if self._as_root else "admin\n")

    def _cmd_hostname(self, _args: list[str]) -> Result:
        return Result(f"{self.hostname()}\n")

    def _cmd_vtysh(self, args: list[str]) -> Result:
        return show_cmds.vtysh(self, args)

    def _cmd_lldpctl(self, args: list[str]) -> Result:
        return show_cmds.lldpctl(self, args)

    def _cmd_true(self, _args: list[str]) -> Result:
        return Result()

    def _cmd_false(self, _args: list[str]) -> Result:
        return Result("", 1)
