"""Opening a read-only session to one device: netmiko over SSH, host keys checked.

A small adapter (``Connector``) so the engine does not care how a session is opened: the default
opens netmiko directly with the same safety settings as the push inventory (paramiko RejectPolicy
against the given known_hosts only, no agent, no system host keys). Failures are classified into
``CollectError`` kinds here, in one place.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import paramiko  # type: ignore[import-untyped]
from netmiko import ConnectHandler, NetmikoAuthenticationException, NetmikoTimeoutException, ReadTimeout

from xoff.collect import batch
from xoff.connect.credentials import Credentials
from xoff.connect.targets import Target


class CollectSession(Protocol):
    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> Any: ...

    def disconnect(self) -> None: ...


@dataclass(frozen=True)
class ConnectSpec:
    target: Target
    credentials: Credentials | None
    known_hosts: Path | None
    device_type: str
    timeout_s: float
    enable: bool  # enter the privileged level after login (EOS: show running-config)
    exec_channel: bool = False  # SSH exec channels (exit statuses kept; commands batched) instead of a CLI shell


Connector = Callable[[ConnectSpec], CollectSession]


class CommandFailedError(RuntimeError):
    """A command ran and exited non-zero (exec channel): a ``command`` error."""


class ExecSession:
    """Commands over SSH exec channels (what ``ssh host CMD`` does): the login shell's profile is not
    read, and each command's exit status is known. Host key checked against ``known_hosts`` only."""

    def __init__(self, spec: ConnectSpec, creds: Credentials) -> None:
        self.client = paramiko.SSHClient()
        if spec.known_hosts is not None:
            self.client.load_host_keys(str(spec.known_hosts))
        self.client.set_missing_host_key_policy(paramiko.RejectPolicy())
        self.timeout = spec.timeout_s
        self.client.connect(
            spec.target.address,
            port=spec.target.port,
            username=creds.username,
            password=creds.password,
            key_filename=str(creds.key_file) if creds.key_file is not None else None,
            look_for_keys=False,
            allow_agent=False,
            timeout=spec.timeout_s,
            auth_timeout=spec.timeout_s,
            banner_timeout=spec.timeout_s,
        )

    def _exec(self, command: str, timeout: float) -> batch.Ran:
        _, stdout, stderr = self.client.exec_command(command, timeout=timeout)
        out = str(stdout.read().decode("utf-8", errors="replace"))
        err = str(stderr.read().decode("utf-8", errors="replace"))
        return batch.Ran(stdout.channel.recv_exit_status(), out, err)

    def send_command(self, command_string: str, *_args: Any, **kwargs: Any) -> str:
        return _output(self._exec(command_string, float(kwargs.get("read_timeout", self.timeout))))

    def run_batch(self, commands: list[str], read_timeout: float) -> list[str | Exception]:
        """Every command in one exec channel (``collect.batch``): each one's output, or the
        CommandFailedError its exit status gives, or a TimeoutError when its end never came."""
        marker = batch.new_marker()
        ran = self._exec(batch.script(commands, marker), read_timeout)
        results: list[str | Exception] = []
        for one in batch.split(ran.stdout, ran.stderr, marker, len(commands)):
            if one is None:
                results.append(TimeoutError(f"the batch ended before this command did (exit status {ran.status})"))
                continue
            try:
                results.append(_output(one))
            except CommandFailedError as exc:
                results.append(exc)
        return results

    def disconnect(self) -> None:
        self.client.close()


def _output(ran: batch.Ran) -> str:
    """The command's output, or CommandFailedError for a non-zero exit status (its first error line)."""
    if ran.status != 0:
        first = (ran.stderr.strip() or ran.stdout.strip() or "no output").splitlines()[0]
        raise CommandFailedError(f"exit status {ran.status}: {first}")
    return ran.stdout


class PromptSession:
    """A netmiko CLI session that reads each command's output up to the prompt found at login.

    netmiko's ``send_command`` looks for the prompt again before every command (``find_prompt``:
    two buffer reads and a 0.25 s sleep with the default delays): about 0.45 s of waiting per
    command, most of a collect's time on a CLI device. A collector's session is read-only, so the
    prompt does not change after login (and ``enable``); each command reads until that prompt ends
    the output, which is also stricter than netmiko's default (the prompt anywhere in the output).
    """

    TERMINATORS = "#>$%"  # what netmiko's set_base_prompt strips from the prompt

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        base = str(conn.base_prompt)
        self.expect = re.escape(base) + "[" + re.escape(self.TERMINATORS) + r"][ \t]*$"

    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("expect_string", self.expect)
        kwargs.setdefault("auto_find_prompt", False)
        return self.conn.send_command(command_string, *args, **kwargs)

    def disconnect(self) -> None:
        self.conn.disconnect()

    def __getattr__(self, name: str) -> Any:  # everything else is the netmiko connection's (SFTP, config, ...)
        return getattr(self.conn, name)


def netmiko_connect(spec: ConnectSpec) -> CollectSession:
    creds = spec.credentials
    if creds is None:
        raise PermissionError(f"no credentials for {spec.target.kind}s (secrets file or XOFF_* environment)")
    if spec.exec_channel:
        return ExecSession(spec, creds)
    params: dict[str, Any] = {
        "device_type": spec.device_type,
        "host": spec.target.address,
        "port": spec.target.port,
        "username": creds.username,
        "ssh_strict": True,
        "system_host_keys": False,
        "allow_agent": False,
        "conn_timeout": spec.timeout_s,
        "auth_timeout": spec.timeout_s,
        "banner_timeout": spec.timeout_s,
        "read_timeout_override": spec.timeout_s,
        "fast_cli": False,
    }
    if creds.password:
        params["password"] = creds.password
        params["secret"] = creds.password
    if creds.key_file is not None:
        params["use_keys"] = True
        params["key_file"] = str(creds.key_file)
    if spec.known_hosts is not None:
        params["alt_host_keys"] = True
        params["alt_key_file"] = str(spec.known_hosts)
    conn = ConnectHandler(**params)
    if spec.enable:
        conn.enable()
    return PromptSession(conn)


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
