"""A small SSH server on 127.0.0.1 (random port) that drives the EOS emulator, for netmiko and Ansible.

It does what the lab's switch SSH server (``xoff.lab.sshd``) does inside namespaces, reduced to
what these tests need: password auth, one ``Emulator`` per session, a shell with echo when a PTY is
requested (CR, LF and CRLF end a line), exec requests, and ``step()`` run off the event loop; and, for
tests of slow devices, a lag on every answer.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.eos import Emulator

USERNAME, PASSWORD = "admin", "xoff-lab"


class _Auth(asyncssh.SSHServer):
    def __init__(self, connections: set[asyncssh.SSHServerConnection]) -> None:
        self._connections = connections
        self._conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        self._connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._conn is not None:
            self._connections.discard(self._conn)

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        return username == USERNAME and password == PASSWORD


async def _write(process: asyncssh.SSHServerProcess[str], text: str, lag_s: float) -> None:
    """Write ``text`` ``lag_s`` late: a loaded device's answers (its echo too) arrive late."""
    if not text:
        return
    if lag_s:
        await asyncio.sleep(lag_s)
    process.stdout.write(text)


async def _session(ctx: EmulatorContext, process: asyncssh.SSHServerProcess[str], lag_s: float = 0.0) -> None:
    loop = asyncio.get_running_loop()
    emu = await loop.run_in_executor(None, Emulator, ctx)
    if process.command is not None:
        reply = await loop.run_in_executor(None, emu.execute, process.command)
        process.stdout.write(reply.output)
        process.exit(reply.status)
        return
    echo = process.get_terminal_type() is not None
    await _write(process, emu.banner() + emu.prompt(), lag_s)
    line: list[str] = []
    last_cr = False
    while True:
        data = await process.stdin.read(4096)
        if not data:
            process.exit(0)
            return
        echoed: list[str] = []
        for ch in data:
            if ch == "\n" and last_cr:
                last_cr = False
                continue
            last_cr = ch == "\r"
            if ch not in "\r\n":
                line.append(ch)
                if echo:
                    echoed.append(ch)
                continue
            if echo:
                echoed.append("\r\n")
            await _write(process, "".join(echoed), lag_s)
            echoed = []
            text, line = "".join(line), []
            reply = await loop.run_in_executor(None, emu.step, text)
            if reply.close:
                await _write(process, reply.output, lag_s)
                process.exit(reply.status)
                return
            await _write(process, reply.output + emu.prompt(), lag_s)
        await _write(process, "".join(echoed), lag_s)


@dataclass
class Server:
    host: str
    port: int
    ctx: EmulatorContext


@contextmanager
def eos_ssh_server(ctx: EmulatorContext, key_dir: Path, lag_s: float = 0.0) -> Iterator[Server]:
    """Serve ``ctx``'s device on 127.0.0.1 from a background thread; stopped on exit. ``lag_s``: every
    answer of a shell session (the login banner, each echo, each reply) is written that late."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_path = key_dir / "ssh_host_ed25519_key"
    key.write_private_key(str(key_path))
    loop = asyncio.new_event_loop()
    started: list[asyncssh.SSHAcceptor] = []
    connections: set[asyncssh.SSHServerConnection] = set()
    ready = threading.Event()

    async def start() -> None:
        acceptor = await asyncssh.listen(
            "127.0.0.1",
            0,
            server_factory=lambda: _Auth(connections),
            server_host_keys=[str(key_path)],
            process_factory=lambda p: _session(ctx, p, lag_s),
            line_editor=False,
            encoding="utf-8",
        )
        started.append(acceptor)
        ready.set()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    thread = threading.Thread(target=run, name="eos-ssh-harness", daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("the SSH harness did not start")
    port = started[0].sockets[0].getsockname()[1]
    try:
        yield Server("127.0.0.1", port, ctx)
    finally:

        async def stop() -> None:
            started[0].close()
            await started[0].wait_closed()
            for conn in list(connections):
                conn.close()
                await conn.wait_closed()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
