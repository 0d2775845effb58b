"""The lab's switch SSH server: asyncssh processes, one listening socket per switch.

``python -m xoff.lab.sshd --lab-dir DIR [--shard I/N]`` reads the lab's ``lab.json`` and
``secrets.yaml`` and listens on ``<mgmt address>:22`` inside every switch namespace (with ``--shard``,
every N-th switch from the I-th in name order: the lab runs N processes so that many sessions at once
are not bound to one interpreter) (the socket is made inside the
namespace with ``setns`` and then served from here). Authentication is by password (the lab's
switch credentials). Each session, shell (with or without a PTY) or exec, gets a new
emulator (the class its platform's record names, ``Platform.emulator``) and is driven line by line through ``step()``; SFTP and
SCP write under the device's ``state/files/`` (so ``/etc/sonic/x.json`` lands in
``state/files/etc/sonic/x.json``), where emulators read the files a command names.

The shell is a cooked-mode line discipline as network CLIs have it: characters are echoed (with a
PTY), Backspace/^U edit, ^C drops the line, ^D on an empty line ends the session, CR, LF and CRLF
end a line, and escape sequences (arrow keys) are ignored. Input typed while a command runs is
echoed when it is read, after that command's output and prompt.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import re
import signal
import socket
import sys
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import asyncssh

from xoff.lab import credentials, daemons, netns
from xoff.lab.emulators.base import EmulatorBase, EmulatorContext, Reply, SessionFaults
from xoff.lab.state import FABRIC_FILE, LabState, load
from xoff.platforms.record import Ref
from xoff.platforms.registry import platforms

EMULATORS = "xoff.lab.emulators"  # what a platform record's relative emulator reference (".eos:Emulator") is under

FILES_DIR = "files"  # under the device's state dir: the root of what SFTP/SCP see
SEEDED_DIRS = ("tmp", "etc", "home")
SSH_PORT = 22
LOGIN_LOG = "xoff lab sshd: login on"  # + "<device> user <name> from <address>", one line per accepted login
IP_FREEBIND = 15  # bind even before the address is up (linux/in.h)


class EmulatorMissingError(LookupError):
    """No emulator for a platform: the session is refused with this message."""


Lookup = Callable[[str], type[EmulatorBase]]


def default_lookup(platform: str) -> type[EmulatorBase]:
    """The emulator class the platform's record names (``Platform.emulator``), or EmulatorMissingError
    saying why not."""
    record = platforms().get(platform)
    if record is None or record.emulator is None:
        why = "no such platform" if record is None else "its platform record names none"
        raise EmulatorMissingError(f"no NOS emulator for platform {platform!r} ({why})")
    try:
        cls = Ref[object](record.emulator).load(anchor=EMULATORS)
    except ImportError as exc:
        raise EmulatorMissingError(f"no NOS emulator for platform {platform!r} ({exc})") from None
    if not (isinstance(cls, type) and issubclass(cls, EmulatorBase)):
        raise EmulatorMissingError(f"{record.emulator} is not an Emulator class (a subclass of EmulatorBase)")
    return cls


@dataclass(frozen=True)
class Listener:
    device: str
    platform: str
    netns: str | None
    address: str
    port: int
    host_key: Path
    context: EmulatorContext


def listeners(state: LabState, port: int = SSH_PORT) -> list[Listener]:
    """One listener per switch of the lab."""
    out: list[Listener] = []
    for d in state.devices.values():
        if d.kind != "switch":
            continue
        frr = daemons.frr_dir(state.dir, d.name)
        ctx = EmulatorContext(
            device=d.name,
            state_dir=daemons.state_dir(state.dir, d.name),
            netns=d.netns,
            frr_vty_dir=frr if frr.is_dir() else None,
            fabric_state=state.dir / FABRIC_FILE,
        )
        address = d.mgmt_address.split("/")[0]
        out.append(Listener(d.name, d.platform, d.netns, address, port, credentials.host_key(state.dir, d.name), ctx))
    return out


def bound_socket(listener: Listener) -> socket.socket:
    """A listening TCP socket on the listener's address, made inside its namespace."""

    def make() -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_IP, IP_FREEBIND, 1)
        sock.bind((listener.address, listener.port))
        sock.listen(128)
        sock.setblocking(False)
        return sock

    if listener.netns is None:
        return make()
    with netns.entered(listener.netns):
        return make()


class _Auth(asyncssh.SSHServer):
    """Password authentication against the lab's switch credentials; each accepted login is logged (device,
    user, client address; never the password), so tests can tell a refused connection from a session."""

    def __init__(self, username: str, password: str, device: str = "") -> None:
        self._username = username.encode()
        self._password = password.encode()
        self._device = device
        self._user = ""
        self._peer = "?"

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        peer = conn.get_extra_info("peername")
        self._peer = str(peer[0]) if peer else "?"

    def begin_auth(self, username: str) -> bool:
        self._user = username
        return True  # always ask for a password

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        ok_user = hmac.compare_digest(username.encode(), self._username)
        return hmac.compare_digest(password.encode(), self._password) and ok_user

    def auth_completed(self) -> None:
        print(f"{LOGIN_LOG} {self._device} user {self._user} from {self._peer}", flush=True)


class _Session:
    """One SSH session on one device: the line discipline around an emulator.

    What a read of the channel brought is answered as one write: a pasted block of a hundred lines
    (a push's configuration) is run line by line in one call to the worker thread, and the echoes,
    outputs and prompts go out together, in the order a terminal shows them. Per line (a worker
    hand-off and an SSH packet each) that was most of the server's CPU in a push."""

    def __init__(self, process: asyncssh.SSHServerProcess[str], emulator: EmulatorBase, pool: ThreadPoolExecutor):
        self.process = process
        self.emulator = emulator
        self.pool = pool
        self.echo = process.get_terminal_type() is not None
        self.pending: list[str] = []

    def write(self, text: str) -> None:
        if text:
            self.pending.append(text)

    def flush(self) -> None:
        if self.pending:
            self.process.stdout.write("".join(self.pending))
            self.pending.clear()

    def _fail(self, echo: str, trace: str) -> None:
        """An emulator bug: say so on the session (the server stays up)."""
        self.write(echo)
        self.flush()
        self.process.stderr.write(f"\r\nxoff lab: emulator error on {self.emulator.ctx.device}:\r\n")
        self.process.stderr.write(trace.replace("\n", "\r\n"))
        self.process.exit(1)

    def _dropped(self, reply: Reply, echo: str) -> bool:
        """Whether a closing reply is the drop_after fault: the connection is cut, as a broken link would."""
        if not reply.close:
            return False
        faults = SessionFaults.load(self.emulator.ctx.state_dir)
        if faults.drop_after is not None and self.emulator.counters.commands > faults.drop_after:
            self.write(echo)
            self.flush()
            self.process.channel.get_connection().abort()
            return True
        return False

    def _steps(self, lines: list[str]) -> list[tuple[Reply, str] | str]:
        """In the worker: each line's reply and the prompt after it; stops after a closing reply, or at an
        emulator error (its traceback, as the last item)."""
        out: list[tuple[Reply, str] | str] = []
        try:
            with self.emulator.steady():  # the device's files read once for the whole paste, not per line
                for line in lines:
                    reply = self.emulator.step(line)
                    out.append((reply, "" if reply.close else self.emulator.prompt()))
                    if reply.close:
                        break
        except Exception:  # an emulator bug: reported on the session
            out.append(traceback.format_exc())
        return out

    async def exec(self, command: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            reply = await loop.run_in_executor(self.pool, self.emulator.execute, command)
        except Exception:
            self._fail("", traceback.format_exc())
            return
        if self._dropped(reply, ""):
            return
        self.write(reply.output)
        self.flush()
        self.process.exit(reply.status)

    async def shell(self) -> None:
        self.write(self.emulator.banner())
        self.write(self.emulator.prompt())
        self.flush()
        discipline = LineDiscipline(echo=self.echo)
        loop = asyncio.get_running_loop()
        while True:
            data = await self.process.stdin.read(4096)
            if not data:
                self.process.exit(0)
                return
            echo = ""
            for segment in _segments(list(discipline.feed(data))):
                lines = [text for kind, text in segment if kind == "line"]
                results = await loop.run_in_executor(self.pool, self._steps, lines) if lines else []
                left = self._answer(segment, results, echo)
                if left is None:
                    return
                echo = left
            self.write(echo)
            self.flush()

    def _answer(self, events: list[tuple[str, str]], results: list[tuple[Reply, str] | str], echo: str) -> str | None:
        """Write what the terminal shows for ``events``: a line's echo, its output, the prompt, then the echo
        of what was typed meanwhile (sent in one write by the caller). The echo not yet written, or None
        when the session ended."""
        done = iter(results)
        for kind, text in events:
            if kind == "echo":
                echo += text
            elif kind == "interrupt":
                self.write(echo + text + self.emulator.prompt())
                echo = ""
            elif kind == "eof":
                self.write(echo)
                self.flush()
                self.process.exit(0)
                return None
            else:
                result = next(done)
                if isinstance(result, str):
                    self._fail(echo, result)
                    return None
                reply, prompt = result
                if self._dropped(reply, echo):
                    return None
                if reply.close:
                    self.write(echo + reply.output)
                    self.flush()
                    self.process.exit(reply.status)
                    return None
                self.write(echo + reply.output + prompt)
                echo = ""
        return echo


def _segments(events: list[tuple[str, str]]) -> Iterator[list[tuple[str, str]]]:
    """The events cut after each ^C: the prompt an interrupt prints is the mode's after the lines before it."""
    segment: list[tuple[str, str]] = []
    for event in events:
        segment.append(event)
        if event[0] == "interrupt":
            yield segment
            segment = []
    if segment:
        yield segment


_PLAIN = re.compile(r"[^\x00-\x08\x0a-\x1f\x7f]+")  # printable characters and tab: what goes into the line as typed


class LineDiscipline:
    """Cooked-mode input: ``feed(data)`` yields ("echo", text), ("line", text), ("interrupt", echo)
    and ("eof", "") events, in order."""

    def __init__(self, echo: bool) -> None:
        self.echo = echo
        self.line: list[str] = []
        self.escape = ""
        self.last_cr = False

    def _echo(self, text: str) -> Iterator[tuple[str, str]]:
        if self.echo and text:
            yield ("echo", text)

    def feed(self, data: str) -> Iterator[tuple[str, str]]:  # noqa: C901, PLR0912 -- a terminal's line discipline, one branch per control byte (CR/LF, ESC sequences, DEL/BS, ^C, ^D)
        at = 0
        while at < len(data):
            plain = None if self.escape else _PLAIN.match(data, at)
            if (
                plain is not None
            ):  # typed text (a pasted configuration is mostly this): one event per run, not per character
                self.line.extend(plain.group())
                self.last_cr = False
                yield from self._echo(plain.group())
                at = plain.end()
                continue
            ch = data[at]
            at += 1
            if self.escape:  # ESC x, or ESC [ / ESC O, parameters, then one final byte
                if self.escape == "\x1b" and ch in "[O":
                    self.escape += ch
                elif self.escape == "\x1b" or "@" <= ch <= "~" or len(self.escape) > 16:
                    self.escape = ""
                else:
                    self.escape += ch
                continue
            if ch == "\n" and self.last_cr:  # CRLF is one end of line
                self.last_cr = False
                continue
            self.last_cr = ch == "\r"
            if ch in "\r\n":
                yield from self._echo("\r\n")
                text = "".join(self.line)
                self.line.clear()
                yield ("line", text)
            elif ch == "\x1b":
                self.escape = ch
            elif ch in "\x7f\x08":
                if self.line:
                    self.line.pop()
                    yield from self._echo("\b \b")
            elif ch == "\x15":  # ^U
                yield from self._echo("\b \b" * len(self.line))
                self.line.clear()
            elif ch == "\x03":  # ^C
                self.line.clear()
                yield ("interrupt", "^C\r\n" if self.echo else "\r\n")
            elif ch == "\x04":  # ^D: end of input on an empty line
                if not self.line:
                    yield ("eof", "")
            elif ch >= " " or ch == "\t":
                self.line.append(ch)
                yield from self._echo(ch)


async def _handle(
    listener: Listener, lookup: Lookup, pool: ThreadPoolExecutor, process: asyncssh.SSHServerProcess[str]
) -> None:
    try:
        cls = lookup(listener.platform)
    except EmulatorMissingError as exc:
        process.stderr.write(f"xoff lab: {listener.device}: session refused: {exc}\r\n")
        process.exit(1)
        return
    loop = asyncio.get_running_loop()
    try:
        emulator = await loop.run_in_executor(pool, cls, listener.context)
    except Exception as exc:
        process.stderr.write(
            f"xoff lab: {listener.device}: the {listener.platform} emulator failed to start: {exc}\r\n"
        )
        process.exit(1)
        return
    session = _Session(process, emulator, pool)
    try:
        if process.command is not None:
            await session.exec(process.command)
        else:
            await session.shell()
    finally:  # closed, dropped or cancelled: the emulator persists what outlives the session
        await asyncio.shield(loop.run_in_executor(pool, emulator.close))


def _sftp(root: Path, chan: asyncssh.SSHServerChannel[bytes]) -> asyncssh.SFTPServer:
    for top in SEEDED_DIRS:  # what every switch's filesystem has
        (root / top).mkdir(parents=True, exist_ok=True)
    return asyncssh.SFTPServer(chan, chroot=str(root).encode())


async def serve(
    found: list[Listener],
    username: str,
    password: str,
    lookup: Lookup = default_lookup,
    pool: ThreadPoolExecutor | None = None,
) -> list[asyncssh.SSHAcceptor]:
    """Start listening for every listener; the caller keeps the loop running and closes the acceptors."""
    workers = pool or ThreadPoolExecutor(max_workers=64, thread_name_prefix="xoff-lab-emulator")
    acceptors = []
    for listener in found:
        acceptors.append(
            await asyncssh.listen(
                sock=bound_socket(listener),
                server_factory=partial(_Auth, username, password, listener.device),
                server_host_keys=[str(listener.host_key)],
                encryption_algs=daemons.LAB_CIPHERS.split(","),  # see there: the clients' choice, cheaper
                process_factory=partial(_handle, listener, lookup, workers),
                sftp_factory=partial(_sftp, listener.context.state_dir / FILES_DIR),
                allow_scp=True,
                line_editor=False,
                encoding="utf-8",
                agent_forwarding=False,
                x11_forwarding=False,
                login_timeout=30,
            )
        )
    return acceptors


def boot(found: list[Listener], lookup: Lookup = default_lookup) -> list[str]:
    """Boot every switch before the server says it is listening, as a real switch has its running
    configuration before anyone logs in: one emulator per switch, opened and closed (the NOS modules
    imported, the lab's FabricState read, each factory configuration built once). What failed, one
    line per switch (its sessions will say why again)."""
    failed = []
    for listener in found:
        try:
            lookup(listener.platform)(listener.context).close()
        except Exception as exc:  # a session will report it; the server still serves the others
            failed.append(f"{listener.device}: {type(exc).__name__}: {exc}")
    return failed


def shard(found: list[Listener], index: int, count: int) -> list[Listener]:
    """The listeners process ``index`` of ``count`` serves: every ``count``-th in device-name order."""
    return sorted(found, key=lambda x: x.device)[index::count]


def _shard_arg(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected I/N, e.g. 0/2") from None
    if not 0 <= i < n:
        raise argparse.ArgumentTypeError(f"{text!r}: I must be in 0..N-1")
    return i, n


async def _main(lab_dir: Path, index: int, count: int) -> None:
    state = load(lab_dir)
    if state is None:
        raise SystemExit(f"{lab_dir}: no lab.json")
    secrets = credentials.Secrets.load(lab_dir)
    found = shard(listeners(state), index, count)
    for line in boot(found):
        print(f"xoff lab sshd: boot failed: {line}", flush=True)
    acceptors = await serve(found, secrets.switch_username, secrets.switch_password)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"{daemons.SWITCH_SSH_READY} on {len(found)} switches", flush=True)
    await stop.wait()
    for acceptor in acceptors:
        acceptor.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m xoff.lab.sshd", description=__doc__.split("\n")[0])
    parser.add_argument("--lab-dir", required=True, type=Path)
    parser.add_argument("--shard", type=_shard_arg, default=(0, 1), help="I/N: serve every N-th switch from the I-th")
    args = parser.parse_args(argv)
    asyncio.run(_main(args.lab_dir, *args.shard))
    sys.exit(0)


if __name__ == "__main__":
    main()
