"""Rollouts spread over controllers, against lab-mini for real (SSH, the NOS emulators, OpenSSH hosts):

- ``xoff push --shard 1/2`` then ``--shard 2/2`` take every device once and bring the fabric from factory to the
  intent; one push after them changes nothing (the same end state as one push);
- ``xoff collect --shard K/2`` as two processes at once, then ``xoff snapshot merge``: the merged snapshot equals
  one collect's (but for the time it was taken), and ``validate --snapshot`` judges both the same;
- on a 2-pod fabric, while another process holds pod1's lock, ``xoff push`` to pod2 runs and one to pod1 stops,
  naming the holder.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff.cli.push import push_command
from xoff.contracts.observed import Snapshot
from xoff.lab.lab import resolve
from xoff.lab.provider import from_lab
from xoff.lab.state import LabState
from xoff.push.lock import locks_for

pytestmark = pytest.mark.lab
INTENT = ROOT / "inventory" / "lab-mini"
LAB = f"sh{os.getpid() % 100000}"
SWITCHES = ("spine1", "spine2", "leaf1", "leaf2")


@contextlib.contextmanager
def _lab(intent: Path, name: str) -> Iterator[LabState]:
    with running_lab(intent, name, prefix="xl", parent="/tmp"):  # short: FRR's socket paths must fit in sun_path
        yield resolve(name)


@pytest.fixture(scope="module")
def lab() -> Iterator[LabState]:
    with _lab(INTENT, LAB) as state:
        yield state


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


PODS = """
fabric: {name: two-pods}
networks:
  management: {prefix: 198.19.128.0/24, gateway: 198.19.128.1}
  compute:
    kind: roce
    qos_policy: rdma
    p2p_prefix: 198.18.0.0/24
    loopback_prefix: 198.18.255.0/24
    underlay: {asn_plan: {super_spine: 65000, spine: 65100, leaf: 65201}}
qos_policies:
  rdma:
    classes:
      roce: {dscp: [26], priority: 3, lossless: true, ecn: {min_threshold: 150KB, max_threshold: 1500KB}}
      bulk: {priority: 0, scheduler: {type: dwrr, weight: 50}}
    default_class: bulk
defaults:
  switch: {platform: sonic, asic: spectrum4}
roles:
  leaf: {ports: [{name: "Ethernet{0..8..8}", speed: 400G, use: downlink}, {name: Ethernet16, speed: 400G, use: uplink}]}
  spine: {ports: [{name: "Ethernet{0..8..8}", speed: 400G, use: downlink}, {name: Ethernet16, speed: 400G, use: uplink}]}
  super-spine: {ports: [{name: "Ethernet{0..8..8}", speed: 400G, use: downlink}]}
switches:
  - {name: "leaf{1..2}", role: leaf}
  - {name: "spine{1..2}", role: spine}
  - {name: ss1, role: super-spine}
cabling:
  - {kind: clos3, pods: 2, leaves: "leaf{1..2}", spines: "spine{1..2}", super_spines: ss1}
"""

HOLDER = """
import sys
from pathlib import Path
from xoff.push.lock import domain_locks
with domain_locks([Path(p) for p in sys.argv[1:]], "fabric two-pods"):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_pushes_to_two_pods_run_at_once_and_to_one_pod_do_not(tmp_path: Path) -> None:
    intent = tmp_path / "pods.yaml"
    intent.write_text(PODS, encoding="utf-8")
    name = f"{LAB}p"
    with _lab(intent, name):
        conn = from_lab(name)
        pod1 = locks_for(conn.fabric, ["leaf1"], conn.lock_dir)
        holder = subprocess.Popen(  # another push, holding pod1 (the lock file every push of this lab takes)
            [sys.executable, "-c", HOLDER, *map(str, pod1)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert holder.stdin is not None and holder.stdout is not None
        try:
            assert holder.stdout.readline() == "held\n"
            base = ["push", str(intent), "--lab", name, "-f", "json", "--backup-dir", str(tmp_path / "b")]
            other_pod = _xoff(*base, "--limit", "leaf2", "--limit", "spine2")
            same_pod = _xoff(*base, "--limit", "leaf1")
            out, err = other_pod.communicate()
            assert other_pod.returncode == 0, out + err
            out, err = same_pod.communicate()
            assert same_pod.returncode == 2, out + err
            assert f"push.pod1.lock (pid {holder.pid}, " in err and "another push holds" in err, err
        finally:
            holder.stdin.write("\n")
            holder.stdin.close()
            holder.wait(timeout=60)
        again = _xoff(*base, "--limit", "leaf1")  # the holder gone: pod1 is free
        out, err = again.communicate()
        assert again.returncode == 0, out + err
