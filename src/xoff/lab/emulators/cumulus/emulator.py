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
import threading
import time
from collections.abc import Callable
from pathlib import Path

from xoff.lab.emulators import shell
from xoff.lab.emulators.base import EmulatorContext, Reply
from xoff.lab.emulators.cumulus.nv import Nv
from xoff.lab.emulators.cumulus.store import Store
from xoff.lab.emulators.cumulus.tools import lldpctl, vtysh
from xoff.lab.emulators.cumulus.tree import get_path

USER = "cumulus"
HOME = "/home/cumulus"
FILES_DIR = "files"  # xoff.lab.sshd FILES_DIR
MOTD = (
    "Linux {host} 6.1.0-cl-1-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.94-1+cl5.9.1u1 x86_64\n\n"
    "Welcome to NVIDIA Cumulus (R) Linux (R)\n\n"
    "ZTP in progress. To disable, do 'ztp -d'\n\n"
)


class Emulator(shell.ShellEmulator):
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
        self.shell = shell.Shell(self._simple, self.path, _bare_cat)
        self.nv = Nv(ctx, USER, self.reject_this_config_command, self.path, clock)
        self.clock = clock
        self._timer: threading.Timer | None = None
        self.nv.log(self.nv.expire())
        self._arm_timer()

    # --- the session contract --------------------------------------------------------------------

    def banner(self) -> str:
        return self._eol(MOTD.format(host=self.host))

    def prompt(self) -> str:
        if self.shell.in_heredoc:
            return "> "
        where = "~" if self.cwd == HOME else self.cwd
        return f"root@{self.host}:mgmt:{where}# " if self.root else f"{USER}@{self.host}:mgmt:{where}$ "

    def path(self, name: str) -> Path:
        """Where a switch path lives under the state directory (never outside it)."""
        name = HOME + name[1:] if name.startswith("~") else name
        absolute = posixpath.normpath(posixpath.join(self.cwd, name))
        return self.files / absolute.lstrip("/")

    # --- one simple command (the shell around it is ``emulators/shell.py``) ----------------------

    def _simple(self, argv: list[str]) -> tuple[Reply, bool]:  # noqa: PLR0911 -- one return per shell built-in (exit, sudo, nv, the rest), as bash dispatches a simple command
        if not argv:
            return Reply(), False
        name, args = argv[0], argv[1:]
        if name in {"exit", "logout"}:
            if self.root:
                self.root = False
                return Reply(), False
            return Reply(), True
        if name == "sudo":
            while args and args[0] in {"-E", "-H", "-n"}:
                args = args[1:]
            if args[:1] in (["-i"], ["-s"], ["su"], ["bash"]) or not args:
                self.root = bool(args)
                return (Reply(), False) if args else (Reply("usage: sudo -h | -K | -k | -V\n", 1), False)
            return self._simple(args)
        if name == "nv":
            answer = self.nv.run(args)
            if args[:2] == ["config", "apply"]:  # the only command that starts or ends a trial
                self._arm_timer()
            return answer, False
        builtin = getattr(self, f"_cmd_{name}", None)
        if builtin is not None:
            result: Reply = builtin(args)
            return result, False
        return Reply(f"-bash: {name}: command not found\n", 127), False

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

    def _cmd_echo(self, args: list[str]) -> Reply:
        return shell.echo(args)

    def _cmd_cat(self, args: list[str]) -> Reply:
        return shell.cat(args, self.path)

    def _cmd_rm(self, args: list[str]) -> Reply:
        return shell.rm(args, self.path)

    def _cmd_hostname(self, _args: list[str]) -> Reply:
        return Reply(f"{self.host}\n")

    def _cmd_whoami(self, _args: list[str]) -> Reply:
        return Reply("root\n" if self.root else f"{USER}\n")

    def _cmd_pwd(self, _args: list[str]) -> Reply:
        return Reply(f"{self.cwd}\n")

    def _cmd_vtysh(self, args: list[str]) -> Reply:
        return Reply(*vtysh(self.ctx, args))

    def _cmd_lldpctl(self, args: list[str]) -> Reply:
        return Reply(*lldpctl(self.ctx, args))

    def _cmd_true(self, _args: list[str]) -> Reply:
        return Reply()

    def _cmd_false(self, _args: list[str]) -> Reply:
        return Reply("", 1)


def _bare_cat(argv: list[str]) -> bool:
    """This shell feeds a here-document only to a bare ``cat`` (``cat > FILE <<EOF``)."""
    return argv == ["cat"]
