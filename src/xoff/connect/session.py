"""Opening a session to one device: netmiko over SSH (or an exec channel), host keys checked.

``open_session`` is the collector's default ``Connector``: a CLI session (``PromptSession``) or exec
channels (``channel.ExecSession``), opened with the options of ``options.connect_handler_args`` (the
same the Nornir inventory gives push). ``NetmikoSession`` is a netmiko connection as a push
strategy's ``Session``. Failures to connect or to run a command are classified (``classify``) here,
in one place.
"""

from __future__ import annotations

import contextlib
import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from netmiko import (
    BaseConnection,
    ConnectHandler,
    NetmikoAuthenticationException,
    NetmikoTimeoutException,
    ReadTimeout,
)

from xoff.connect import orderly_close, plain_text, waiting_reads
from xoff.connect.channel import ExecSession, exec_on, known_hosts_for
from xoff.connect.credentials import Credentials
from xoff.connect.options import connect_handler_args
from xoff.connect.pace import NETMIKO_CONFIG_READ_S, Pace, Timeouts
from xoff.connect.paramiko_lean import paramiko
from xoff.connect.targets import Target

waiting_reads.install()  # netmiko's reads wait for the device's bytes instead of polling every 10-25 ms
orderly_close.install()  # the device ends the session before the socket closes: no Broken pipe at the end
plain_text.install()  # text without ESC skips netmiko's ~35 regular expressions that strip ANSI codes


class CommandSession(Protocol):
    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> Any: ...

    def disconnect(self) -> None: ...


@dataclass(frozen=True)
class ConnectSpec:
    target: Target
    credentials: Credentials | None
    known_hosts: Path | None
    timeout_s: float
    enable: bool  # enter the privileged level after login (EOS: show running-config)
    exec_channel: bool = False  # SSH exec channels (exit statuses kept; commands batched) instead of a CLI shell


Connector = Callable[[ConnectSpec], CommandSession]


class PromptSession:
    """A netmiko CLI session that reads each command's output up to the prompt found at login.

    netmiko's ``send_command`` looks for the prompt again before every command (``find_prompt``:
    two buffer reads and a 0.25 s sleep with the default delays): about 0.45 s of waiting per
    command, most of a collect's time on a CLI device. A collector's session is read-only, so the
    prompt does not change after login (and ``enable``); each command reads until that prompt ends
    the output, which is also stricter than netmiko's default (the prompt anywhere in the output).
    Each read waits the time the caller asked (the collector's ``--timeout``) scaled by the device's
    pace measured at login (``connect.pace``, no factor); a read that still times out names the knob.
    """

    TERMINATORS = "#>$%"  # what netmiko's set_base_prompt strips from the prompt

    def __init__(self, conn: Any, login_s: float | None = None) -> None:
        self.conn = conn
        self.pace = Pace(Timeouts(), login_s)  # the collector's --timeout is each read's base, paced
        base = str(conn.base_prompt)
        self.expect = re.escape(base) + "[" + re.escape(self.TERMINATORS) + r"][ \t]*$"

    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("expect_string", self.expect)
        kwargs.setdefault("auto_find_prompt", False)
        asked = kwargs.get("read_timeout")
        kwargs["read_timeout"] = seconds = self.pace.read_timeout(asked)
        before = self.conn.read_timeout_override
        self.conn.read_timeout_override = seconds  # netmiko's echo wait too
        try:
            return self.conn.send_command(command_string, *args, **kwargs)
        except ReadTimeout as exc:
            now = f"now {asked:g} s, x{self.pace.scale:.2g} for this device's pace" if asked else "not set"
            raise ReadTimeout(f"{str(exc).strip()} (raise --timeout ({now}))") from exc
        finally:
            self.conn.read_timeout_override = before

    def disconnect(self) -> None:
        self.conn.disconnect()

    def __getattr__(self, name: str) -> Any:  # everything else is the netmiko connection's (SFTP, config, ...)
        return getattr(self.conn, name)


def handler_args(spec: ConnectSpec, creds: Credentials) -> dict[str, Any]:
    """netmiko's keywords for ``spec``, its known_hosts cut to this host's entries as the Nornir inventory cuts
    them (``channel.known_hosts_for``): netmiko checks every line of the file it loads against all the others,
    ~15 ms per session for a 64-device lab's file, and a collect opens one per switch."""
    args = connect_handler_args(spec.target, creds, spec.known_hosts, spec.timeout_s)
    if spec.known_hosts is not None and spec.known_hosts.is_file():
        args["alt_key_file"] = str(known_hosts_for(spec.known_hosts, spec.target.address, spec.target.port))
    return args


def open_session(spec: ConnectSpec) -> CommandSession:
    creds = spec.credentials
    if creds is None:
        raise PermissionError(f"no credentials for {spec.target.kind}s (secrets file or XOFF_* environment)")
    if spec.exec_channel:
        return ExecSession(spec.target, creds, spec.known_hosts, spec.timeout_s)
    started = time.monotonic()
    conn = ConnectHandler(**handler_args(spec, creds))
    login_s = time.monotonic() - started
    if spec.enable:
        conn.enable()
    return PromptSession(conn, login_s)


NETMIKO_TIMING_READ_S = 120.0  # netmiko's send_command_timing read_timeout default
CONNECT_ATTEMPTS = 2
RETRY_PAUSE_S = 1.0


class NetmikoSession:
    """A netmiko connection as a strategy ``Session``: netmiko's own methods, plus ``exec_command``
    and ``put_file`` (an exec channel and SFTP over the same SSH transport: no second login, the same
    host-key check).

    Every read waits as long as the session's ``Pace`` says (``connect.pace``): the read timeout the
    caller asked for (or netmiko's default) scaled by the device's measured pace and the user's
    factor, set as netmiko's ``read_timeout_override`` for the call, so netmiko's own fixed waits (the
    command echo's 10 s) follow it too."""

    def __init__(self, conn: BaseConnection, pace: Pace | None = None) -> None:
        self.conn = conn
        self.pace = pace or Pace(Timeouts())

    @contextlib.contextmanager
    def _waiting(self, seconds: float) -> Iterator[None]:
        before = self.conn.read_timeout_override
        self.conn.read_timeout_override = seconds
        try:
            yield
        finally:
            self.conn.read_timeout_override = before

    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> Any:
        kwargs["read_timeout"] = seconds = self.pace.read_timeout(kwargs.get("read_timeout"))
        with self._waiting(seconds):
            return self.conn.send_command(command_string, *args, **kwargs)

    def send_command_timing(self, command_string: str, *args: Any, **kwargs: Any) -> Any:
        kwargs["read_timeout"] = seconds = self.pace.read_timeout(kwargs.get("read_timeout", NETMIKO_TIMING_READ_S))
        with self._waiting(seconds):
            return self.conn.send_command_timing(command_string, *args, **kwargs)

    def send_config_set(self, config_commands: Any = None, *args: Any, **kwargs: Any) -> str:
        kwargs["read_timeout"] = seconds = self.pace.read_timeout(kwargs.get("read_timeout", NETMIKO_CONFIG_READ_S))
        with self._waiting(seconds):
            return str(self.conn.send_config_set(config_commands, *args, **kwargs))

    def enable(self, *args: Any, **kwargs: Any) -> str:
        with self._waiting(self.pace.read_timeout()):
            return str(self.conn.enable(*args, **kwargs))

    def _client(self) -> Any:
        client = self.conn.remote_conn_pre
        if client is None:
            raise OSError("no SSH transport")
        return client

    def exec_command(self, command: str, stdin: str = "", timeout: float | None = None) -> tuple[int, str, str]:
        ran = exec_on(self._client(), command, None if timeout is None else self.pace.read_timeout(timeout), stdin)
        return ran.status, ran.stdout, ran.stderr

    def put_file(self, path: str, text: str) -> None:
        sftp = self._client().open_sftp()
        try:
            with sftp.open(path, "w") as handle:
                handle.write(text.encode())
        finally:
            sftp.close()


def connect_paced(open_conn: Callable[[], BaseConnection], timeouts: Timeouts) -> NetmikoSession:
    """Open a session with ``open_conn`` and measure the device's pace by its login time.

    The connection setup is retried once when it timed out or was cut (nothing was sent to the device
    yet, so a retry is safe); a refused login or host key is not retried."""
    attempt = 1
    while True:
        started = time.monotonic()
        try:
            conn = open_conn()
        except Exception as exc:
            if attempt >= CONNECT_ATTEMPTS or classify(exc) not in ("timeout", "unreachable"):
                raise
            time.sleep(RETRY_PAUSE_S * attempt)
            attempt += 1
            continue
        return NetmikoSession(conn, timeouts.pace(time.monotonic() - started))


def is_timeout(exc: BaseException) -> bool:
    """The device did not answer in time (a read, the TCP connect, the SSH banner or the login)."""
    text = f"{type(exc).__name__} {exc}".lower()
    return classify(exc) == "timeout" or "timed out" in text or "timeout" in text


def classify(exc: BaseException) -> str:
    """The CollectError kind of a failure to connect or to run a command."""
    text = str(exc).lower()
    if isinstance(exc, paramiko.BadHostKeyException) or "known_hosts" in text or "host key" in text:
        return "host_key"
    if isinstance(exc, (NetmikoAuthenticationException, paramiko.AuthenticationException, PermissionError)):
        return "auth"
    if isinstance(exc, (ReadTimeout, socket.timeout, TimeoutError)):
        return "timeout"
    if isinstance(exc, NetmikoTimeoutException):
        return "timeout" if "timed-out reading" in text or "pattern not detected" in text else "unreachable"
    if isinstance(exc, (OSError, paramiko.SSHException, EOFError)):
        return "unreachable"
    return "command"
