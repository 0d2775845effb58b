"""``xoff runs`` and ``xoff rollback`` against lab-mini: a push from factory state to intent on one device
of every platform (SONiC spine1, EOS spine2, Cumulus sleaf1, the host gpu1), listed by ``xoff runs``,
rolled back on one device (``--limit``), then on all, each restore verified by the platform and a
collect showing the pre-push state; then the rollback itself rolled back (Nornir), and that one through
the Ansible engine."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from xoff.api.collect import CollectOptions, collect
from xoff.cli.push import push_command
from xoff.cli.rollback import rollback_command
from xoff.cli.runs import runs_command
from xoff.lab.lab import resolve
from xoff.lab.state import LabState
from xoff.push import runs

pytestmark = pytest.mark.lab
INTENT = ROOT / "inventory" / "lab-mini"
LAB = f"rb{os.getpid()}"
DEVICES = ("spine1", "spine2", "sleaf1", "gpu1")  # SONiC, EOS, Cumulus, a host


@pytest.fixture(scope="module")
def lab() -> Iterator[LabState]:
    with running_lab(INTENT, LAB, prefix="xoff-rollback-labs-"):
        yield resolve(LAB)


def _invoke(command: Callable[..., None], *args: str) -> tuple[int, str]:
    app = typer.Typer()
    app.command()(command)
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout + result.stderr


def _json_lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]


def _results(out: str) -> tuple[str, dict[str, str]]:
    summary = _json_lines(out)[-1]
    assert summary["event"] == "summary", out
    return summary["run_id"], {r["device"]: r["outcome"] for r in summary["results"]}


def _observed() -> dict[str, Any]:
    """What a collect reads of the four devices (their configuration as xoff models it)."""
    snapshot = collect(INTENT, CollectOptions(lab=LAB, limit=DEVICES)).snapshot
    return {d: snapshot.observed.devices[d].model_dump(mode="json") for d in DEVICES}


def test_push_runs_rollback_limit_all_and_the_rollback_of_a_rollback(lab: LabState, tmp_path: Path) -> None:
    backups = str(tmp_path / "backups")
    limit = [f"--limit={d}" for d in DEVICES]
    before = _observed()

    status, out = _invoke(push_command, str(INTENT), "--lab", LAB, "-f", "json", "--backup-dir", backups, *limit)
    assert status == 0, out
    pushed_run, outcomes = _results(out)
    assert outcomes == dict.fromkeys(DEVICES, "changed"), out
    pushed = _observed()
    assert all(pushed[d] != before[d] for d in DEVICES)

    status, out = _invoke(runs_command, "--backup-dir", backups, "-f", "json")
    assert status == 0, out
    (listed,) = json.loads(out)
    assert (listed["run_id"], listed["kind"], listed["status"]) == (pushed_run, "push", "done")
    assert {d["name"]: d["outcome"] for d in listed["devices"]} == outcomes
    assert listed["options"]["lab"] == LAB and listed["intent_sha256"]

    # --limit: spine2 alone goes back; the others keep the push
    status, out = _invoke(rollback_command, pushed_run, "--backup-dir", backups, "--limit", "spine2", "-f", "json")
    assert status == 0, out
    one_run, outcomes = _results(out)
    assert outcomes == {"spine2": "changed"}, out
    now = _observed()
    assert now["spine2"] == before["spine2"] and now["spine1"] == pushed["spine1"], out

    # all: spine2 is already at its backup (nothing sent), the three others are restored and verified
    status, out = _invoke(rollback_command, pushed_run, "--backup-dir", backups, "-f", "json")
    assert status == 0, out
    all_run, outcomes = _results(out)
    assert outcomes == {"spine1": "changed", "spine2": "unchanged", "sleaf1": "changed", "gpu1": "changed"}, out
    assert _observed() == before

    status, out = _invoke(runs_command, "--backup-dir", backups)
    assert status == 0, out
    assert out.index(f"{all_run}  rollback of {pushed_run}  done") < out.index(f"{one_run}  rollback of {pushed_run}")
    assert out.index(f"{one_run}  rollback of") < out.index(f"{pushed_run}  push  done"), out

    # the rollback rolled back: the devices it changed get the push's state again; spine2 it skips, saying so
    status, out = _invoke(rollback_command, all_run, "--backup-dir", backups, "-f", "json")
    assert status == 0, out
    skipped = {e["device"]: e["message"] for e in _json_lines(out) if e["event"] == "skipped"}
    assert skipped == {"spine2": f"run {all_run} did not change it (unchanged)"}, out
    undo_run, outcomes = _results(out)
    assert outcomes == {"spine1": "changed", "sleaf1": "changed", "gpu1": "changed"}, out
    again = _observed()
    assert {d: again[d] for d in ("spine1", "sleaf1", "gpu1")} == {d: pushed[d] for d in ("spine1", "sleaf1", "gpu1")}

    # and that one undone through the Ansible engine (playbooks/restore.yml): the pre-push state again
    status, out = _invoke(rollback_command, undo_run, "--backup-dir", backups, "--engine", "ansible", "-f", "json")
    assert status == 0, out
    ansible_run, outcomes = _results(out)
    assert outcomes == {"spine1": "changed", "sleaf1": "changed", "gpu1": "changed"}, out
    assert _observed() == before
    assert runs.read(Path(backups), ansible_run).engine == "ansible"
    password = str(yaml.safe_load((lab.dir / "secrets.yaml").read_text(encoding="utf-8"))["switch"]["password"])
    for f in Path(backups).rglob("*"):
        assert not f.is_file() or password not in f.read_text(encoding="utf-8"), f
