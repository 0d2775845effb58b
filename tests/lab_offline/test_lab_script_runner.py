"""The lab's subnet-manager runner takes a batch of any size: the script goes on stdin, never as one argument
(Linux refuses an argument over 128 KiB, MAX_ARG_STRLEN: `deadlock --ib-lab ib-pod` batches ~140 KB of queries)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from xoff.connect.batch import run_batch
from xoff.lab import observe, provider
from xoff.lab.state import DeviceRecord, LabState

MAX_ARG_STRLEN = 128 * 1024


def _state(tmp_path: Path) -> LabState:
    sm = DeviceRecord(
        name="sm01",
        kind="host",
        platform="linux",
        role="host",
        netns="xl-t-sm01",
        mgmt_port="eno1",
        mgmt_ifname="eno1",
        mgmt_address="198.18.1.9/24",
        root_veth="xv0",
        dir=str(tmp_path / "sm01"),
    )
    return LabState(
        name="t",
        fabric="f",
        intent="/i",
        intent_digest="d",
        lab_dir=str(tmp_path),
        bridge="xlb0",
        controller_address="198.18.1.1/24",
        mgmt_prefix="198.18.1.0/24",
        devices={"sm01": sm},
    )


def test_a_batch_over_the_argument_limit_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    real_run = subprocess.run

    def local(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        """`ip netns exec NS cmd...` run here, without the namespace (what this test checks is the argv)."""
        assert argv[:4] == ["ip", "netns", "exec", "xl-t-sm01"]
        seen.append(argv)
        kwargs.pop("env", None)
        result: subprocess.CompletedProcess[str] = real_run(argv[4:], **kwargs)
        return result

    monkeypatch.setattr(observe.subprocess, "run", local)
    monkeypatch.setattr(observe, "exec_env", lambda *_: {})
    commands = [f"echo port-{i}-{'x' * 40}" for i in range(4000)]
    results, whole = run_batch(provider._script_runner(_state(tmp_path), "sm01"), commands, timeout=600)
    assert whole.status == 0, whole.stderr
    assert [r.stdout.strip() if r else None for r in results] == [f"port-{i}-{'x' * 40}" for i in range(4000)]
    (argv,) = seen
    assert max(len(a) for a in argv) < MAX_ARG_STRLEN < sum(len(c) for c in commands)
