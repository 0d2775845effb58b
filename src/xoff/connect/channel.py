"""SSH exec channels: what ``ssh host CMD`` does, the login shell's profile not read, each command's
exit status known. ``exec_on`` is the one implementation, used by the collector's host sessions
(``ExecSession``) and by push strategies through ``NetmikoSession.exec_command``.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from xoff.connect import batch
from xoff.connect.credentials import Credentials
from xoff.connect.paramiko_lean import paramiko
from xoff.connect.targets import Target


class CommandFailedError(RuntimeError):
    """A command ran and exited non-zero (exec channel): a ``command`` error."""


def exec_on(client: Any, command: str, timeout: float | None, stdin: str = "") -> batch.Ran:
    """Run ``command`` on a new exec channel of the paramiko ``client``; ``stdin`` is its whole input."""
    chan_in, chan_out, chan_err = client.exec_command(command, timeout=timeout)
    if stdin:
        chan_in.write(stdin)
    chan_in.channel.shutdown_write()  # end of input: a command reading stdin does not wait for more
    out = str(chan_out.read().decode("utf-8", errors="replace"))
    err = str(chan_err.read().decode("utf-8", errors="replace"))
    return batch.Ran(int(chan_out.channel.recv_exit_status()), out, err)


def output(ran: batch.Ran) -> str:
    """The command's output, or CommandFailedError for a non-zero exit status (its first error line)."""
    if ran.status != 0:
        first = (ran.stderr.strip() or ran.stdout.strip() or "no output").splitlines()[0]
        raise CommandFailedError(f"exit status {ran.status}: {first}")
    return ran.stdout


def results(ran: list[batch.Ran | None], whole: batch.Ran) -> list[str | Exception]:
    """A batch's results as a session gives them: each output, or the CommandFailedError its exit
    status gives, or a TimeoutError when its end never came."""
    out: list[str | Exception] = []
    for one in ran:
        if one is None:
            out.append(TimeoutError(f"the batch ended before this command did (exit status {whole.status})"))
            continue
        try:
            out.append(output(one))
        except CommandFailedError as exc:
            out.append(exc)
    return out


@functools.lru_cache(maxsize=8)
def _parsed_known_hosts(path: str, mtime_ns: int, size: int) -> Any:
    """A known_hosts file as paramiko reads it, once per file version (shared, read only): parsing every
    entry's key is ~8 ms for a 112-device lab, per session, and a collect opens one per device."""
    del mtime_ns, size  # the cache key: a rewritten file is read again
    return paramiko.HostKeys(path)


@functools.lru_cache(maxsize=4096)
def _looked_up(path: str, mtime_ns: int, size: int, name: str) -> tuple[tuple[str, Any], ...]:
    """``HostKeys.lookup`` of one name, once per file version: a lookup walks every entry (an HMAC per
    hashed one), and a collect asks for each device twice (netmiko's file, then the session)."""
    return tuple((_parsed_known_hosts(path, mtime_ns, size).lookup(name) or {}).items())


def _entries(known_hosts: Path, address: str, port: int) -> tuple[str, dict[str, Any]]:
    """The name paramiko looks ``address:port`` up by (the address, or ``[address]:port`` off port 22) and
    the keys ``known_hosts`` has for it (keytype -> key; empty: the host is unknown)."""
    st = known_hosts.stat()
    name = address if port == 22 else f"[{address}]:{port}"  # port 22: the bare address, as paramiko names hosts
    return name, dict(_looked_up(str(known_hosts), st.st_mtime_ns, st.st_size, name))


def load_host_keys(client: Any, known_hosts: Path, address: str, port: int) -> None:
    """Give ``client`` the entries of ``known_hosts`` that paramiko checks ``address:port`` against."""
    name, keys = _entries(known_hosts, address, port)
    for keytype, key in keys.items():
        client.get_host_keys().add(name, keytype, key)


def known_hosts_for(known_hosts: Path, address: str, port: int) -> Path:
    """A known_hosts file with only the entries paramiko checks ``address:port`` against, for netmiko (which
    loads the whole file it is given at every connection: each entry's key parsed, per session, so a push
    to N devices parses N x N keys; 45% of the controller's CPU in a 64-switch push). Written once per
    known_hosts version and host, in a directory of this process removed at its exit; with no entry for the
    host the file is empty and the host unknown, as it was in the whole file."""
    name, keys = _entries(known_hosts, address, port)
    st = known_hosts.stat()
    tag = hashlib.sha256(f"{known_hosts.resolve()}\0{st.st_mtime_ns}\0{st.st_size}\0{name}".encode()).hexdigest()
    path = _host_files_dir() / tag[:32]
    if not path.exists():
        one = paramiko.HostKeys()
        for keytype, key in keys.items():
            one.add(name, keytype, key)
        staged = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}")
        one.save(str(staged))
        staged.replace(path)  # whole or absent, for a thread reading it meanwhile
    return path


@functools.cache
def _host_files_dir() -> Path:
    where = Path(tempfile.mkdtemp(prefix="xoff-known-hosts-"))
    atexit.register(shutil.rmtree, where, True)
    return where


class ExecSession:
    """Commands over SSH exec channels, host key checked against ``known_hosts`` only."""

    def __init__(self, target: Target, creds: Credentials, known_hosts: Path | None, timeout_s: float) -> None:
        self.client = paramiko.SSHClient()
        if known_hosts is not None:
            load_host_keys(self.client, known_hosts, target.address, target.port)
        self.client.set_missing_host_key_policy(paramiko.RejectPolicy())
        self.timeout = timeout_s
        self.client.connect(
            target.address,
            port=target.port,
            username=creds.username,
            password=creds.password,
            key_filename=str(creds.key_file) if creds.key_file is not None else None,
            look_for_keys=False,
            allow_agent=False,
            timeout=timeout_s,
            auth_timeout=timeout_s,
            banner_timeout=timeout_s,
        )

    def _exec(self, command: str, timeout: float) -> batch.Ran:
        return exec_on(self.client, command, timeout)

    def send_command(self, command_string: str, *_args: Any, **kwargs: Any) -> str:
        return output(self._exec(command_string, float(kwargs.get("read_timeout", self.timeout))))

    def run_batch(self, commands: list[str], read_timeout: float) -> list[str | Exception]:
        """Every command in one exec channel (``connect.batch``)."""
        return results(*batch.run_batch(self._exec, commands, read_timeout))

    def disconnect(self) -> None:
        self.client.close()
