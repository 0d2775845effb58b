"""The session contract: the slice of netmiko's BaseConnection that strategies and collectors may use.

Engines open sessions (``xoff.connect``, ``xoff.connect.session``); strategies and collectors only talk
through one, so the same platform code serves every engine that can hand it a session.
"""

from __future__ import annotations

from typing import Any, Protocol


class Session(Protocol):
    """The slice of netmiko's BaseConnection a strategy may use."""

    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> Any: ...

    def send_command_timing(self, command_string: str, *args: Any, **kwargs: Any) -> Any: ...

    def send_config_set(self, config_commands: Any = None, *args: Any, **kwargs: Any) -> str: ...

    def enable(self, *args: Any, **kwargs: Any) -> str: ...

    def exec_command(self, command: str, stdin: str = "", timeout: float | None = None) -> tuple[int, str, str]:
        """Run ``command`` on an SSH exec channel of the same connection (no terminal, no login
        shell); ``stdin`` is its input. (exit status, stdout, stderr)."""
        ...

    def put_file(self, path: str, text: str) -> None:
        """Write ``text`` to ``path`` on the device (SFTP over the same SSH connection)."""
        ...
