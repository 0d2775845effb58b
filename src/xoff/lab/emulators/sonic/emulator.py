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

from xoff.buffers import get_asic
from xoff.lab.emulators import shell
from xoff.lab.emulators.base import EmulatorContext, Reply
from xoff.lab.emulators.sonic import config_cmds, gcu, show_cmds
from xoff.lab.emulators.sonic.apply import apply_change
from xoff.lab.emulators.sonic.clish import Command, UsageError, resolve, resolve_first, usage_error_text
from xoff.lab.emulators.sonic.confirm import Confirm
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


class Emulator(shell.ShellEmulator):
    def __init__(self, ctx: EmulatorContext) -> None:
        super().__init__(ctx)
        self.store = Store(ctx)
        self.store.ensure_dirs()
        self.cwd = HOME
        self.root_shell = False
        self.exec_mode = False
        self._as_root = False
        self._confirm: Confirm | None = None
        self.shell = shell.Shell(
            self._simple, lambda name: self.store.host_path(name, self.cwd), _cat_only, self._intercept
        )
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
        if self.shell.in_heredoc:
            return "> "
        if self._confirm is not None:
            return self._confirm.prompt
        where = (
            "~" if self.cwd == HOME else ("~" + self.cwd[len(HOME) :] if self.cwd.startswith(HOME + "/") else self.cwd)
        )
        if self.root_shell:
            return f"root@{self.hostname()}:{where}# "
        return f"admin@{self.hostname()}:{where}$ "

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

    # --- one line of input (the shell is shared; the question click asked is SONiC's) ----------

    def _intercept(self, text: str) -> Reply | None:
        return self._answer(text.strip().lower()) if self._confirm is not None else None

    def _answer(self, answer: str) -> Reply:
        assert self._confirm is not None
        confirm = self._confirm
        if answer in {"y", "yes"}:
            self._confirm = None
            assert confirm.then is not None
            return confirm.then()
        if answer in {"n", "no", ""}:
            self._confirm = None
            return Reply(f"{confirm.on_abort}Aborted!\n", 1)
        return Reply("Error: invalid input\n", 0)

    # --- commands --------------------------------------------------------------------------------

    def _simple(self, argv: list[str], as_root: bool = False) -> tuple[Reply, bool]:  # noqa: PLR0911 -- one return per shell built-in (exit, sudo, show, config, the rest), as bash dispatches a simple command
        if not argv:
            return Reply(), False
        name, args = argv[0], argv[1:]
        root = as_root or self.root_shell
        if name in {"exit", "logout"}:
            if self.root_shell and not as_root:
                self.root_shell = False
                return Reply("logout\n" if name == "logout" else ""), False
            return Reply(), True
        if name == "sudo":
            return self._sudo(args)
        if name == "show":
            return self._click(self._show, args, root), False
        if name == "config":
            return self._click(self._config, args, root), False
        builtin = getattr(self, f"_cmd_{name}", None)
        self._as_root = root
        if builtin is not None:
            result: Reply = builtin(args)
            return result, False
        return Reply(f"-bash: {name}: command not found\n", 127), False

    def _sudo(self, args: list[str]) -> tuple[Reply, bool]:
        while args and args[0] in {"-E", "-H", "-n"}:
            args = args[1:]
        if not args:
            return Reply("usage: sudo -h | -K | -k | -V\n", 1), False
        if args[0] in {"-i", "-s", "su", "bash"}:
            self.root_shell = True
            return Reply(), False
        if args[0] not in {"show", "config", "exit", "logout"} and not hasattr(self, f"_cmd_{args[0]}"):
            return Reply(f"sudo: {args[0]}: command not found\n", 1), False
        return self._simple(args, as_root=True)

    def _click(self, root: Command, args: list[str], as_root: bool) -> Reply:  # noqa: PLR0911 -- one return per outcome click gives a command: usage error, root required, help, fault hook, prompt, result
        try:
            if root is self._config:
                first = resolve_first(root, args)
                if first is not None and not as_root:
                    return Reply(ROOT_REQUIRED, 1)
            invocation = resolve(root, args)
        except UsageError as error:
            return Reply(error.text(), 2)
        if invocation.help:
            return Reply(invocation.command.help_text(invocation.path))
        command = invocation.command
        params = {**invocation.params, "_command": command, "_path": invocation.path}
        if root is self._config and self.reject_this_config_command():
            message = f"rejected by the lab's fault hook (reject_nth={self.counters.config_commands})"
            prefix = f"Failed to apply patch due to: {message}\n" if command.name == "apply-patch" else ""
            return Reply(prefix + usage_error_text(command, invocation.path, message), 2)
        assert command.handler is not None
        result: Reply = command.handler(params)
        if isinstance(result, Confirm):
            if self.exec_mode:  # no terminal: click reads end-of-file and aborts
                return Reply(f"{result.before}{result.prompt}\n{result.on_abort}Aborted!\n", 1)
            self._confirm = result
            return Reply(result.before)
        return result

    # --- shell builtins --------------------------------------------------------------------------

    def _cmd_echo(self, args: list[str]) -> Reply:
        return shell.echo(args)

    def _cmd_printf(self, args: list[str]) -> Reply:
        if not args:
            return Reply("printf: usage: printf [-v var] format [arguments]\n", 2)
        text = args[0].replace("\\n", "\n").replace("\\t", "\t")
        values = iter(args[1:])
        return Reply(re.sub(r"%s", lambda _: next(values, ""), text))

    def _cmd_cat(self, args: list[str]) -> Reply:
        return shell.cat(args, lambda name: self.store.host_path(name, self.cwd))

    def _cmd_rm(self, args: list[str]) -> Reply:
        return shell.rm(args, lambda name: self.store.host_path(name, self.cwd))

    def _cmd_ls(self, args: list[str]) -> Reply:
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
        return Reply(out, status)

    def _cmd_cd(self, args: list[str]) -> Reply:
        target = posixpath.normpath(posixpath.join(self.cwd, args[0].replace("~", HOME, 1))) if args else HOME
        if not self.store.is_dir(target):
            return Reply(f"-bash: cd: {args[0]}: No such file or directory\n", 1)
        self.cwd = target
        return Reply()

    def _cmd_pwd(self, _args: list[str]) -> Reply:
        return Reply(f"{self.cwd}\n")

    def _cmd_whoami(self, _args: list[str]) -> Reply:
        return Reply("root\n" if self._as_root else "admin\n")

    def _cmd_hostname(self, _args: list[str]) -> Reply:
        return Reply(f"{self.hostname()}\n")

    def _cmd_vtysh(self, args: list[str]) -> Reply:
        return show_cmds.vtysh(self, args)

    def _cmd_lldpctl(self, args: list[str]) -> Reply:
        return show_cmds.lldpctl(self, args)

    def _cmd_true(self, _args: list[str]) -> Reply:
        return Reply()

    def _cmd_false(self, _args: list[str]) -> Reply:
        return Reply("", 1)


def _cat_only(argv: list[str]) -> bool:
    """SONiC's shell here: a here-document only feeds ``cat`` (options allowed), to put a file on the switch."""
    return argv[:1] == ["cat"]
