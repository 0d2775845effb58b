"""A slow device must not fail a push that would succeed; a dead one fails, naming the knob to turn.

Against a real SSH server on 127.0.0.1 (``tests.support.eos_ssh_harness``, the EOS emulator behind it)
that writes every answer (the login prompt, each command's echo, each reply) late, pushed by the Nornir
engine exactly as ``xoff push`` does. ``--timeout-factor 0.1`` shrinks every timeout to a tenth, so a
lag of 1.5 s is already "slow": with a fixed timeout it fails; with timeouts that follow the device's
pace (measured at its login) the same device is read and diffed.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from tests.support.eos_cli_helpers import rendered
from tests.support.eos_ssh_harness import PASSWORD, USERNAME, Server, eos_ssh_server
from xoff.connect.credentials import Credentials, CredentialSet
from xoff.connect.targets import Target
from xoff.lab.emulators.base import EmulatorContext
from xoff.push.job import PushJob, PushOptions
from xoff.push.model import DeviceResult, Outcome, PushEvent, Step
from xoff.push.nornir_engine import run

LAG_S = 1.5  # every answer this late
FACTOR = 0.1  # netmiko's 10 s echo wait becomes 1 s: shorter than the lag


@pytest.fixture
def slow(tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    state = tmp_path / "state"
    state.mkdir()
    with eos_ssh_server(EmulatorContext(device="spine2", state_dir=state, netns=None), tmp_path, LAG_S) as srv:
        private = (tmp_path / "ssh_host_ed25519_key").read_text(encoding="utf-8")
        kind, key = asyncssh.import_private_key(private).export_public_key("openssh").decode().split()[:2]
        known = tmp_path / "known_hosts"
        known.write_text(f"[{srv.host}]:{srv.port} {kind} {key}\n", encoding="utf-8")
        yield srv, known


@pytest.fixture
def dead() -> Iterator[int]:
    """A TCP port that accepts connections and never says a word (no SSH banner)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(10)
        for conn in held:
            conn.close()
        listener.close()


def _push(
    host: str, port: int, known: Path, tmp_path: Path, options: PushOptions
) -> tuple[DeviceResult, list[PushEvent]]:
    target = Target("spine2", "eos", "switch", "spine", None, host, port=port)
    job = PushJob(
        fabric="t",
        run_id="slow",
        targets=[target],
        desired={"spine2": {"running-config": rendered("lab-mini", "spine2")}},
        credentials=CredentialSet(switch=Credentials(USERNAME, PASSWORD), host=None),
        known_hosts=known,
    )
    events: list[PushEvent] = []
    (result,) = run(job, options, events.append).results
    return result, events


def test_a_slow_device_is_read_at_its_own_pace(slow: tuple[Server, Path], tmp_path: Path) -> None:
    server, known = slow
    options = PushOptions(dry_run=True, timeout_factor=FACTOR, backup_dir=tmp_path / "backups")
    result, events = _push(server.host, server.port, known, tmp_path, options)
    assert (result.outcome, result.error) == (Outcome.DRY_RUN, None), result
    assert result.changes > 0 and result.backup and Path(result.backup).read_text(encoding="utf-8").startswith("!")
    (connected,) = [e for e in events if (e.step, e.status) == (Step.CONNECT, "ok")]
    assert connected.message.startswith("login ") and "read timeouts x" in connected.message, connected.message
    scale = float(connected.message.rsplit("x", 1)[1])
    assert scale * 10 > LAG_S, f"the echo wait ({scale * 10:.1f} s) follows the device's pace past its lag"


def test_the_same_device_with_a_fixed_timeout_fails_naming_the_knob(slow: tuple[Server, Path], tmp_path: Path) -> None:
    server, known = slow
    options = PushOptions(dry_run=True, timeout_s=LAG_S / 2, backup_dir=tmp_path / "backups")
    result, _ = _push(server.host, server.port, known, tmp_path, options)
    assert (result.outcome, result.failed_step, result.backup) == (Outcome.FAILED, Step.CONNECT, None), result
    assert f"raise --timeout (now {LAG_S / 2:g} s)" in (result.error or ""), result.error


def test_a_dead_device_fails_at_connect_naming_the_knob(dead: int, tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    known.write_text("", encoding="utf-8")
    options = PushOptions(timeout_factor=FACTOR, backup_dir=tmp_path / "backups")
    result, events = _push("127.0.0.1", dead, known, tmp_path, options)
    assert (result.outcome, result.failed_step, result.backup) == (Outcome.FAILED, Step.CONNECT, None), result
    assert f"raise --timeout-factor (now {FACTOR:g})" in (result.error or ""), result.error
    assert [(e.step.value, e.status) for e in events] == [
        ("connect", "start"),
        ("connect", "failed"),
        ("done", "failed"),
    ]
