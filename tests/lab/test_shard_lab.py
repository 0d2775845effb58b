"""Rollouts spread over controllers, against lab-mini for real (SSH, the NOS emulators, OpenSSH hosts):

- ``xoff push --shard 1/2`` then ``--shard 2/2`` take every device once and bring the fabric from factory to the
  intent; one push after them changes nothing (the same end state as one push);
- ``xoff collect --shard K/2`` as two processes at once, then ``xoff snapshot merge``: the merged snapshot equals
  one collect's (but for the time it was taken), and ``validate --snapshot`` judges both the same.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff.cli.push import push_command
from xoff.contracts.observed import Snapshot
from xoff.lab import netns
from xoff.lab.lab import LabError, resolve, up
from xoff.lab.state import LabState
from xoff.lab.teardown import down

pytestmark = pytest.mark.lab
INTENT = ROOT / "inventory" / "lab-mini"
LAB = f"sh{os.getpid() % 100000}"
SWITCHES = ("spine1", "spine2", "leaf1", "leaf2")


@pytest.fixture(scope="module")
def lab() -> Iterator[LabState]:
    root = Path(tempfile.mkdtemp(prefix="xl", dir="/tmp"))  # short: FRR's socket paths must fit in sun_path
    root.chmod(0o755)  # FRR runs as user frr and must reach its directory below
    old = os.environ.get("XOFF_LAB_DIR")
    os.environ["XOFF_LAB_DIR"] = str(root)
    try:
        up(INTENT, LAB, remap_addresses=True)
        yield resolve(LAB)
    finally:
        with contextlib.suppress(LabError):
            down(LAB)
        assert netns.names(f"xl-{LAB}-") == []
        shutil.rmtree(root, ignore_errors=True)
        if old is None:
            os.environ.pop("XOFF_LAB_DIR", None)
        else:
            os.environ["XOFF_LAB_DIR"] = old


def _push(tmp_path: Path, *args: str) -> tuple[int, dict[str, str], str]:
    app = typer.Typer()
    app.command()(push_command)
    result = CliRunner().invoke(
        app, [str(INTENT), "--lab", LAB, "-f", "json", "--backup-dir", str(tmp_path / "backups"), *args]
    )
    lines = [json.loads(ln) for ln in result.stdout.splitlines() if ln.startswith("{")]
    summary = lines[-1] if lines and lines[-1]["event"] == "summary" else {"results": []}
    return result.exit_code, {r["device"]: r["outcome"] for r in summary["results"]}, result.stdout + result.stderr


def _device_state(state: LabState, device: str) -> Any:
    d = state.dir / "devices" / device / "state"
    if (d / "config_db.json").exists():
        return json.loads((d / "config_db.json").read_text(encoding="utf-8"))
    return (d / "running-config").read_text(encoding="utf-8")


def test_sharded_push_covers_every_device_once_and_one_push_then_changes_nothing(lab: LabState, tmp_path: Path) -> None:
    first_status, first, out1 = _push(tmp_path, "--shard", "1/2", "--workers", "10")
    second_status, second, out2 = _push(tmp_path, "--shard", "2/2", "--workers", "10")
    assert (first_status, second_status) == (0, 0), out1 + out2
    assert first and second and not set(first) & set(second)  # each device in one shard
    assert len(first) + len(second) == len(resolve(LAB).devices) == 9
    assert set(first.values()) | set(second.values()) == {"changed"}, (first, second)
    states = {d: _device_state(lab, d) for d in SWITCHES}
    status, outcomes, out = _push(tmp_path, "--workers", "10")
    assert status == 0, out
    assert set(outcomes) == set(first) | set(second) and set(outcomes.values()) == {"unchanged"}, out
    assert {d: _device_state(lab, d) for d in SWITCHES} == states


def _xoff(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "xoff", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )


def _settled(path: Path) -> bool:
    snap = Snapshot.model_validate_json(path.read_text(encoding="utf-8"))
    sessions = [s for each in snap.bgp_sessions.values() for s in each]
    return not snap.errors and bool(sessions) and all(s.state == "Established" for s in sessions)


def _judged(snapshot: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "xoff", "validate", str(INTENT), "--snapshot", str(snapshot), "-f", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)["results"]
    return results


def test_sharded_collect_and_merge_equal_one_collect(lab: LabState, tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    deadline = time.monotonic() + SETTLE_S
    while True:  # BGP settles after the push: until then two collects may differ
        single = _xoff("collect", str(INTENT), "--lab", LAB, "-o", str(one), "-q")
        single.communicate()
        if (single.returncode == 0 and _settled(one)) or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert single.returncode == 0 and _settled(one)
    parts = [tmp_path / f"shard{k}.json" for k in (1, 2)]
    shards = [
        _xoff("collect", str(INTENT), "--lab", LAB, "-o", str(p), "-q", "--shard", f"{k}/2")
        for k, p in enumerate(parts, 1)
    ]
    for shard in shards:  # two controllers at once
        _, err = shard.communicate()
        assert shard.returncode == 0, err
    merged = tmp_path / "merged.json"
    merge = _xoff("snapshot", "merge", *map(str, parts), "-o", str(merged))
    out, err = merge.communicate()
    assert merge.returncode == 0, err
    assert out.startswith("merged 2 snapshots: ")
    a, b = (Snapshot.model_validate_json(p.read_text(encoding="utf-8")) for p in (one, merged))
    pieces = [Snapshot.model_validate_json(p.read_text(encoding="utf-8")) for p in parts]
    assert all(p.observed.devices for p in pieces)  # both shards read something
    assert b.model_dump(exclude={"collected_at"}) == a.model_dump(exclude={"collected_at"})
    assert b.collected_at == max(p.collected_at for p in pieces)
    assert _judged(merged) == _judged(one)
