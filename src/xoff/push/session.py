"""A netmiko connection as a strategy ``Session``: netmiko's own methods, plus ``put_file`` (SFTP
over the same SSH transport, so no second login and the same host-key check)."""

from __future__ import annotations

from typing import Any

from netmiko import BaseConnection


class NetmikoSession:
    def __init__(self, conn: BaseConnection) -> None:
        self.conn = conn

    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> Any:
        return self.conn.send_command(command_string, *args, **kwargs)

    def send_command_timing(self, command_string: str, *args: Any, **kwargs: Any) -> Any:
        return self.conn.send_command_timing(command_string, *args, **kwargs)

    def send_config_set(self, config_commands: Any = None, *args: Any, **kwargs: Any) -> str:
        return str(self.conn.send_config_set(config_commands, *args, **kwargs))

    def enable(self, *args: Any, **kwargs: Any) -> str:
        return str(self.conn.enable(*args, **kwargs))

    def _client(self) -> Any:
        client = self.conn.remote_conn_pre
        if client is None:
            raise OSError("no SSH transport")
        return client

    def exec_command(self, command: str, stdin: str = "", timeout: float | None = None) -> tuple[int, str, str]:
        chan_in, chan_out, chan_err = self._client().exec_command(command, timeout=timeout)
        if stdin:
            chan_in.write(stdin)
        chan_in.channel.shutdown_write()
        out = chan_out.read().decode(errors="replace")
        err = chan_err.read().decode(errors="replace")
        return int(chan_out.channel.recv_exit_status()), out, err

    def put_file(self, path: str, text: str) -> None:
        sftp = self._client().open_sftp()
        try:
            with sftp.open(path, "w") as handle:
                handle.write(text.encode())
        finally:
            sftp.close()
