"""Host-key checking through the Ansible engine, against the EOS emulator's SSH harness on 127.0.0.1:
a known_hosts entry with another key is refused by both transports the playbooks use (paramiko under
network_cli for EOS, OpenSSH for SONiC and hosts) before any login, so nothing reaches the device;
with the right key the same run logs in and works (a dry run: the device is not changed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from tests.support.eos_cli_helpers import rendered
from tests.support.eos_ssh_harness import PASSWORD, USERNAME, Server, eos_ssh_server
from xoff.connect.credentials import Credentials, CredentialSet
from xoff.connect.targets import Target
from xoff.lab.emulators.base import EmulatorContext
from xoff.push.ansible_engine import run
from xoff.push.job import PushJob, PushOptions
from xoff.push.model import Outcome, PushEvent, Step


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    state = tmp_path / "state"
    state.mkdir()
    with eos_ssh_server(EmulatorContext(device="spine2", state_dir=state, netns=None), tmp_path) as srv:
        yield srv


def _known_hosts(path: Path, server: Server, key: str) -> Path:
    path.write_text(f"[{server.host}]:{server.port} {key}\n", encoding="utf-8")
    return path


def _push(server: Server, known: Path, tmp_path: Path, platforms: list[str]) -> tuple[list[PushEvent], list]:  # type: ignore[type-arg]
    targets = [Target(f"dev-{p}", p, "switch", "spine", None, server.host, port=server.port) for p in platforms]
    job = PushJob(
        fabric="t",
        run_id="hk",
        targets=targets,
        desired={t.name: {"running-config": rendered("lab-mini", "spine2")} for t in targets},
        credentials=CredentialSet(switch=Credentials(USERNAME, PASSWORD), host=None),
        known_hosts=known,
    )
    events: list[PushEvent] = []
    summary = run(job, PushOptions(dry_run=True, workers=2, backup_dir=tmp_path / "backups"), events.append)
    return events, summary.results


def test_a_changed_host_key_is_refused_before_login(server: Server, tmp_path: Path) -> None:
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key("openssh").decode().split()
    known = _known_hosts(tmp_path / "known_hosts", server, f"{other[0]} {other[1]}")
    events, results = _push(server, known, tmp_path, ["eos", "sonic"])
    for r in results:
        assert r.outcome is Outcome.FAILED and r.failed_step in (Step.CONNECT, Step.BACKUP), r
        assert r.error and PASSWORD not in r.error
        assert "host key" in r.error.lower() or "REMOTE HOST IDENTIFICATION HAS CHANGED" in r.error, r.error
    assert not (server.ctx.state_dir / "running-config").exists(), "no session ever reached the emulator"
    assert not list((tmp_path / "backups").glob("*/dev-*")), "no backup: nothing was read"
    assert all(PASSWORD not in e.message for e in events)


def test_the_right_host_key_logs_in(server: Server, tmp_path: Path) -> None:
    pub = (tmp_path / "ssh_host_ed25519_key").read_text(encoding="utf-8")  # the harness's private key
    key = asyncssh.import_private_key(pub).export_public_key("openssh").decode().split()
    known = _known_hosts(tmp_path / "known_hosts", server, f"{key[0]} {key[1]}")
    _, results = _push(server, known, tmp_path, ["eos"])
    (r,) = results
    assert r.outcome is Outcome.DRY_RUN and r.changes > 50, r
    assert r.backup is not None and Path(r.backup).read_text(encoding="utf-8").startswith(
        "! Command: show running-config"
    )
    assert Path(r.backup).stat().st_mode & 0o777 == 0o600
