"""``playbooks/verify.yml`` run alone, as AWX's verify job template runs it (no push.yml before it, so no
backup of the run): lab-mini's EOS, SONiC, Cumulus and host, pushed with Nornir, each report ``unchanged``;
after one value is changed by hand through the EOS emulator's own CLI (netmiko's arista_eos driver), exactly
that switch reports ``failed`` with that difference. The run's scratch directory is gone afterwards."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from ansible_lab_support import push, verify_alone
from netmiko import ConnectHandler

from xoff.connect.credentials import load_credentials
from xoff.connect.targets import build_targets, select
from xoff.lab.provider import LabConnection
from xoff.push import nornir_engine
from xoff.push.model import Outcome

pytestmark = pytest.mark.lab
LAB_TAG = "ver"  # the lab's name: a<pid>-ver (conftest.py)
DEVICES = ["spine2", "leaf1", "sleaf1", "gpu1"]  # EOS, SONiC, Cumulus, a host


def _scratch_dirs() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("xoff-verify-*"))


def _set_by_hand(lab: LabConnection, device: str, lines: list[str]) -> None:
    """Configure ``lines`` on an EOS switch through its CLI, as a person would (not through xoff)."""
    (target,) = select(build_targets(lab.fabric), [device])
    creds = load_credentials(lab.secrets_file, environ={}).switch
    assert creds is not None
    conn = ConnectHandler(
        device_type="arista_eos",
        host=target.address,
        username=creds.username,
        password=creds.password,
        ssh_strict=True,
        system_host_keys=False,
        alt_host_keys=True,
        alt_key_file=str(lab.known_hosts),
        timeout=60,
    )
    try:
        conn.enable()
        conn.send_config_set(lines)
    finally:
        conn.disconnect()


def test_verify_alone_reports_unchanged_then_the_one_device_changed_by_hand(lab: LabConnection, tmp_path: Path) -> None:
    summary, _ = push(lab, DEVICES, "seed", tmp_path, nornir_engine.run)
    assert {r.device: r.outcome for r in summary.results} == dict.fromkeys(DEVICES, Outcome.CHANGED), summary
    before = _scratch_dirs()

    results = verify_alone(lab, DEVICES)
    assert {d: (r.outcome, r.changes, r.diff) for d, r in results.items()} == dict.fromkeys(
        DEVICES, (Outcome.UNCHANGED, 0, "")
    ), {d: r.error for d, r in results.items()}
    assert not (tmp_path / "verify").exists()  # nothing written as a backup

    _set_by_hand(lab, "spine2", ["interface Ethernet1/1", "mtu 9000"])
    results = verify_alone(lab, DEVICES)
    spine2 = results.pop("spine2")
    assert {d: r.outcome for d, r in results.items()} == dict.fromkeys(DEVICES[1:], Outcome.UNCHANGED)
    assert spine2.outcome is Outcome.FAILED, spine2
    lines = spine2.diff.splitlines()
    assert [ln.split() for ln in lines] == [["-", "mtu", "9000"], ["+", "mtu", "9100"]], lines
    assert spine2.changes == 2
    assert _scratch_dirs() == before, "the run's scratch directory was removed"
