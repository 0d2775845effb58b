"""A test-only NOS emulator: the smallest thing the lab's SSH server can drive.

Commands: ``hostname``, ``echo TEXT``, ``count`` (commands this session), ``config X`` (counted
as a configuration command; ``reject_nth`` refuses one), ``cat FILE`` (a file under state/files,
where SFTP/SCP put uploads), ``fail`` (exit status 3), ``boom`` (raises), ``exit``. Anything else:
``% Invalid input``.
"""

from __future__ import annotations

from xoff.lab.emulators.base import EmulatorBase, Reply

FILES = "files"


class FakeEmulator(EmulatorBase):
    def banner(self) -> str:
        return f"fake NOS on {self.ctx.device}\r\n"

    def prompt(self) -> str:
        return f"{self.ctx.device}# "

    def handle(self, line: str) -> Reply:  # noqa: PLR0911 -- one return per command the fake emulator answers
        words = line.split()
        if not words:
            return Reply()
        cmd, args = words[0], words[1:]
        if cmd == "hostname":
            return Reply(f"{self.ctx.device}\r\n")
        if cmd == "echo":
            return Reply(" ".join(args) + "\r\n")
        if cmd == "count":
            return Reply(f"{self.counters.commands}\r\n")
        if cmd == "config":
            if self.reject_this_config_command():
                return Reply("% rejected\r\n", status=1)
            return Reply()
        if cmd == "cat" and args:
            path = self.ctx.state_dir / FILES / args[0].lstrip("/")
            return (
                Reply(path.read_text(encoding="utf-8").replace("\n", "\r\n"))
                if path.exists()
                else Reply("% no such file\r\n", status=1)
            )
        if cmd == "fail":
            return Reply("failed\r\n", status=3)
        if cmd == "boom":
            raise RuntimeError("emulator bug")
        if cmd == "exit":
            return Reply(close=True)
        return Reply(f"% Invalid input: {line}\r\n", status=1)
