"""The lab's switch SSH server: line discipline (offline), then a real asyncssh server in a namespace
of its own, driving the test-only emulator (tests/lab_offline/lab_fake_emulator.py) through ``step()``."""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncssh
import pytest
from lab_fake_emulator import FILES, FakeEmulator

from tests.support.waiting import SETTLE_S
from xoff.lab import netns
from xoff.lab.daemons import switch_ssh_processes
from xoff.lab.emulators.base import EmulatorBase, EmulatorContext, SessionFaults
from xoff.lab.sshd import (
    LOGIN_LOG,
    EmulatorMissingError,
    LineDiscipline,
    Listener,
    _shard_arg,
    boot,
    default_lookup,
    serve,
    shard,
)

USER, PASSWORD = "admin", "s3cret-lab"
ADDRESS = "198.18.0.1"  # on lo of a namespace that only this test uses
TIMEOUT_S = SETTLE_S  # an upper bound for each SSH step (a busy machine is slow)


# --- line discipline (no root) ---------------------------------------------------------------------


def _events(data: str, echo: bool = True) -> list[tuple[str, str]]:
    return list(LineDiscipline(echo).feed(data))


def test_lines_end_at_cr_lf_or_crlf() -> None:
    assert [t for k, t in _events("a\rb\nc\r\nd") if k == "line"] == ["a", "b", "c"]
    assert [t for k, t in _events("a\r\n\r\n") if k == "line"] == ["a", ""]
    assert [t for k, t in _events("a\rb\nc") if k == "line"] == ["a", "b"]  # typed text between CR and LF


def test_echo_editing_and_control_keys() -> None:
    ev = _events("shx\x7fow\r")
    assert ("line", "show") in ev
    assert "".join(t for k, t in ev if k == "echo") == "shx\b \bow\r\n"
    assert _events("abc\x15d\r")[-1] == ("line", "d")
    assert ("interrupt", "^C\r\n") in _events("abc\x03")
    assert _events("\x04") == [("eof", "")]
    assert _events("a\x04") == [("echo", "a")]  # ^D only ends an empty line
    assert [k for k, _ in _events("x\x1b[A\x1bOB\x1b[1;5C\r")] == ["echo", "echo", "line"]  # arrows ignored
    assert _events("ab\r", echo=False) == [("line", "ab")]


def test_what_the_terminal_shows_does_not_depend_on_how_input_arrives() -> None:
    """A paste in one packet, or typed a key at a time: the same lines, the same echo, the same keys' effects."""
    import random

    keys = [
        "a",
        "b",
        " ",
        "\t",
        "é",
        "\r",
        "\n",
        "\r\n",
        "\x7f",
        "\x08",
        "\x15",
        "\x03",
        "\x04",
        "\x1b[A",
        "\x1bOB",
        "\x1bx",
    ]
    rng = random.Random(19)
    for _ in range(300):
        data = "".join(rng.choice(keys) for _ in range(rng.randint(1, 40)))
        whole = LineDiscipline(echo=True)
        by_key = LineDiscipline(echo=True)
        one = list(whole.feed(data))
        each = [e for ch in data for e in by_key.feed(ch)]

        def shown(events: list[tuple[str, str]]) -> list[tuple[str, str]]:
            out: list[tuple[str, str]] = []
            for kind, text in events:  # runs of echo merged: how many writes carry it is not what is shown
                if kind == "echo" and out and out[-1][0] == "echo":
                    out[-1] = ("echo", out[-1][1] + text)
                else:
                    out.append((kind, text))
            return out

        assert shown(one) == shown(each), repr(data)
        assert whole.line == by_key.line and whole.escape == by_key.escape


# --- a real server in a namespace ------------------------------------------------------------------


@pytest.fixture
def ns() -> Iterator[str]:
    name = f"xl-t{os.getpid()}-sshd"
    netns.ip(["netns", "add", name])
    try:
        netns.ip_batch(["link set lo up", f"addr add {ADDRESS}/32 dev lo"], netns=name)
        yield name
    finally:
        netns.ip(["netns", "del", name], check=False)


def _lookup(platform: str) -> type[EmulatorBase]:
    if platform == "fake":
        return FakeEmulator
    return default_lookup(platform)


def _listener(ns: str, tmp: Path, device: str, platform: str, port: int) -> Listener:
    key = tmp / f"{device}.key"
    if not key.exists():
        key.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key("openssh"))
    ctx = EmulatorContext(device=device, state_dir=tmp / device / "state", netns=ns)
    return Listener(device, platform, ns, ADDRESS, port, key, ctx)


def _client_socket(ns: str, port: int) -> socket.socket:
    with netns.entered(ns):
        sock = socket.create_connection((ADDRESS, port), timeout=TIMEOUT_S)
    sock.setblocking(False)
    return sock


@asynccontextmanager
async def _server(listeners: list[Listener]) -> AsyncIterator[None]:
    acceptors = await serve(listeners, USER, PASSWORD, lookup=_lookup)
    try:
        yield
    finally:
        for a in acceptors:
            a.close()
            await a.wait_closed()


def _connect(
    ns: str, listener: Listener, password: str = PASSWORD, known: str | None = None
) -> asyncssh.SSHClientConnection:
    return asyncssh.connect(
        sock=_client_socket(ns, listener.port),
        host=ADDRESS,
        username=USER,
        password=password,
        known_hosts=None if known is None else asyncssh.import_known_hosts(known),
        client_keys=None,
    )  # type: ignore[return-value]


async def _read_until(proc: asyncssh.SSHClientProcess[str], marker: str) -> str:
    text = ""
    while not text.endswith(marker):
        chunk = await asyncio.wait_for(proc.stdout.read(4096), TIMEOUT_S)
        if not chunk:
            break
        text += chunk
    return text


@pytest.mark.lab
def test_exec_sessions(ns: str, tmp_path: Path) -> None:
    sw = _listener(ns, tmp_path, "sw1", "fake", 22)

    async def main() -> None:
        async with _server([sw]), _connect(ns, sw) as conn:
            r = await conn.run("echo hello lab", check=False, timeout=TIMEOUT_S)
            assert (r.stdout, r.exit_status) == ("hello lab\r\n", 0)
            r = await conn.run("fail", check=False, timeout=TIMEOUT_S)
            assert r.exit_status == 3
            r = await conn.run("nonsense", check=False, timeout=TIMEOUT_S)
            assert (r.stdout, r.exit_status) == ("% Invalid input: nonsense\r\n", 1)
            r = await conn.run("count", check=False, timeout=TIMEOUT_S)
            assert r.stdout == "1\r\n"  # every exec is a new session with a new emulator

    asyncio.run(main())


@pytest.mark.lab
def test_pty_shell_echoes_edits_and_keeps_typeahead_in_order(ns: str, tmp_path: Path) -> None:
    sw = _listener(ns, tmp_path, "sw1", "fake", 22)

    async def main() -> None:
        async with _server([sw]), _connect(ns, sw) as conn:
            proc = await conn.create_process(term_type="vt100")
            assert await _read_until(proc, "sw1# ") == "fake NOS on sw1\r\nsw1# "
            proc.stdin.write("hostnamx\x7fe\r")
            assert await _read_until(proc, "sw1# ") == "hostnamx\b \be\r\nsw1\r\nsw1# "
            proc.stdin.write("echo a\recho b\rcount\r")  # typed ahead: each echoed when read
            out = await _read_until(proc, "4\r\nsw1# ")
            assert out == "echo a\r\na\r\nsw1# echo b\r\nb\r\nsw1# count\r\n4\r\nsw1# "
            proc.stdin.write("exit\r")
            await asyncio.wait_for(proc.wait(), TIMEOUT_S)

    asyncio.run(main())


@pytest.mark.lab
def test_shell_without_pty_does_not_echo(ns: str, tmp_path: Path) -> None:
    sw = _listener(ns, tmp_path, "sw1", "fake", 22)

    async def main() -> None:
        async with _server([sw]), _connect(ns, sw) as conn:
            proc = await conn.create_process()
            await _read_until(proc, "sw1# ")
            proc.stdin.write("echo x\n")
            assert await _read_until(proc, "sw1# ") == "x\r\nsw1# "
            proc.stdin.write_eof()
            await asyncio.wait_for(proc.wait(), TIMEOUT_S)

    asyncio.run(main())


@pytest.mark.lab
def test_refusals_wrong_password_and_host_key_checking(
    ns: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    sw = _listener(ns, tmp_path, "sw1", "fake", 22)
    missing = _listener(ns, tmp_path, "sw2", "no-such-platform", 2222)
    public = asyncssh.read_private_key(sw.host_key).export_public_key("openssh").decode().strip()
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key("openssh").decode().strip()

    async def main() -> None:
        async with _server([sw, missing]):
            async with _connect(ns, missing) as conn:
                r = await conn.run("show version", check=False, timeout=TIMEOUT_S)
                assert r.exit_status == 1
                assert "session refused: no NOS emulator for platform 'no-such-platform'" in str(r.stderr)
            with pytest.raises(asyncssh.PermissionDenied):
                async with _connect(ns, sw, password="wrong"):
                    pass
            async with _connect(ns, sw, known=f"{ADDRESS} {public}\n") as conn:  # host key checked
                assert (await conn.run("hostname", check=False)).stdout == "sw1\r\n"
            with pytest.raises(asyncssh.HostKeyNotVerifiable):
                async with _connect(ns, sw, known=f"{ADDRESS} {other}\n"):
                    pass

    asyncio.run(main())
    # one login line per accepted login (sw2's session was accepted, then refused by the missing emulator;
    # sw1: once with the checked host key); none for the wrong password or the forged host key
    logins = [line for line in capfd.readouterr().out.splitlines() if line.startswith(LOGIN_LOG)]
    assert logins == [f"{LOGIN_LOG} sw2 user {USER} from {ADDRESS}", f"{LOGIN_LOG} sw1 user {USER} from {ADDRESS}"]
    assert not any(PASSWORD in line for line in logins)


@pytest.mark.lab
def test_faults_drop_and_emulator_errors(ns: str, tmp_path: Path) -> None:
    sw = _listener(ns, tmp_path, "sw1", "fake", 22)

    async def main() -> None:
        async with _server([sw]):
            async with _connect(ns, sw) as conn:
                r = await conn.run("boom", check=False, timeout=TIMEOUT_S)
                assert r.exit_status == 1 and "RuntimeError: emulator bug" in str(r.stderr)
            SessionFaults(reject_nth=2).save(sw.context.state_dir)
            async with _connect(ns, sw) as conn:
                proc = await conn.create_process(term_type="vt100")
                await _read_until(proc, "sw1# ")
                proc.stdin.write("config a\rconfig b\r")
                assert "% rejected" in await _read_until(proc, "% rejected\r\nsw1# ")
            SessionFaults(drop_after=1).save(sw.context.state_dir)
            async with _connect(ns, sw) as conn:
                proc = await conn.create_process(term_type="vt100")
                await _read_until(proc, "sw1# ")
                proc.stdin.write("echo one\r")
                await _read_until(proc, "sw1# ")
                proc.stdin.write("echo two\r")
                rest = await asyncio.wait_for(proc.stdout.read(), TIMEOUT_S)  # the connection drops
                assert rest == "echo two\r\n"  # the echo, then nothing: no output, no prompt
                await asyncio.wait_for(conn.wait_closed(), TIMEOUT_S)
            SessionFaults().save(sw.context.state_dir)
            async with _connect(ns, sw) as conn:  # the server is still serving
                assert (await conn.run("hostname", check=False)).stdout == "sw1\r\n"

    asyncio.run(main())


@pytest.mark.lab
def test_sftp_and_scp_land_in_the_device_files(ns: str, tmp_path: Path) -> None:
    sw = _listener(ns, tmp_path, "sw1", "fake", 22)
    local = tmp_path / "config_db.json"
    local.write_text('{"DEVICE_METADATA": {}}\n', encoding="utf-8")

    async def main() -> None:
        async with _server([sw]), _connect(ns, sw) as conn:
            async with conn.start_sftp_client() as sftp:
                await sftp.makedirs("/etc/sonic", exist_ok=True)
                await sftp.put(str(local), "/etc/sonic/config_db.json")
            await asyncssh.scp(str(local), (conn, "/tmp/copy.json"))
            r = await conn.run("cat /etc/sonic/config_db.json", check=False)
            assert r.stdout == '{"DEVICE_METADATA": {}}\r\n'

    asyncio.run(main())
    files = sw.context.state_dir / FILES
    assert (files / "etc/sonic/config_db.json").read_text(encoding="utf-8") == local.read_text(encoding="utf-8")
    assert (files / "tmp/copy.json").exists()


def test_default_lookup_explains_what_is_missing() -> None:
    with pytest.raises(EmulatorMissingError, match=r"no NOS emulator for platform 'no-such-nos'"):
        default_lookup("no-such-nos")


# --- several server processes (no root) ----------------------------------------------------------


def _unbound(tmp: Path, device: str, platform: str = "fake") -> Listener:
    ctx = EmulatorContext(device=device, state_dir=tmp / device, netns=None)
    return Listener(device, platform, None, ADDRESS, 22, tmp / "key", ctx)


def test_shards_split_the_switches_between_processes(tmp_path: Path) -> None:
    found = [_unbound(tmp_path, f"sw{i:02d}") for i in (5, 1, 3, 2, 4)]
    parts = [[x.device for x in shard(found, i, 2)] for i in range(2)]
    assert parts == [["sw01", "sw03", "sw05"], ["sw02", "sw04"]]  # name order, every other one
    assert [x.device for x in shard(found, 0, 1)] == ["sw01", "sw02", "sw03", "sw04", "sw05"]
    assert [switch_ssh_processes(n, cpus=2) for n in (1, 16, 17, 32, 64, 1000)] == [1, 1, 2, 2, 4, 4]
    assert switch_ssh_processes(1000, cpus=8) == 16
    with pytest.raises(argparse.ArgumentTypeError, match=r"I must be in 0\.\.N-1"):
        _shard_arg("2/2")
    with pytest.raises(argparse.ArgumentTypeError, match="expected I/N"):
        _shard_arg("two")


def test_boot_opens_every_switch_once_before_listening(tmp_path: Path) -> None:
    opened: list[str] = []

    class Booting(FakeEmulator):
        def __init__(self, ctx: EmulatorContext) -> None:
            super().__init__(ctx)
            if ctx.device == "bad":
                raise RuntimeError("no factory configuration")
            opened.append(ctx.device)

    found = [_unbound(tmp_path, "sw1"), _unbound(tmp_path, "bad"), _unbound(tmp_path, "sw2")]
    failed = boot(found, lambda _platform: Booting)
    assert opened == ["sw1", "sw2"]
    assert failed == ["bad: RuntimeError: no factory configuration"]
