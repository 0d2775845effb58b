"""Long runs speak through a hook (``xoff.progress``), never by printing: the stages each run reports, and the CLI's
rendering of them on stderr only (``--format json`` stdout stays one JSON document; ``--quiet`` silences it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import INVENTORY, ROOT
from tests.support.progress_recorder import Recorder
from xoff import api
from xoff.collect import engine
from xoff.connect.credentials import CredentialSet
from xoff.connect.targets import build_targets
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.platforms.infiniband.collect import collect_sm
from xoff.platforms.infiniband.observe import load_captures
from xoff.progress import stage

LAB_MINI = INVENTORY / "lab-mini"
RING = ROOT / "tests" / "fixtures" / "deadlock" / "ib" / "ring_updn"
DUMPS = ROOT / "tests" / "fixtures" / "parse" / "infiniband" / "dumps"
SA_KEY = "0x00000000000000AB"


def test_a_stage_says_start_each_step_and_end_also_when_it_raises() -> None:
    hook = Recorder()
    with pytest.raises(RuntimeError), stage(hook, "collect", 3) as s:
        s.step("leaf1")
        s.step("leaf2", "failed: timeout")
        raise RuntimeError("cut short")
    assert [(e.phase, e.item, e.done, e.total, e.detail) for e in hook.events] == [
        ("start", None, 0, 3, ""),
        ("step", "leaf1", 1, 3, ""),
        ("step", "leaf2", 2, 3, "failed: timeout"),
        ("end", None, 2, 3, ""),
    ]


def test_validate_reports_each_check_as_a_step() -> None:
    hook = Recorder()
    result = api.validate(LAB_MINI, api.ValidateOptions(offline=True, catalog="pre-change"), hook)
    assert hook.stages() == ["checks"]
    assert hook.items("checks") == [r.id for r in result.validation.results]
    assert hook.bracketed()


def test_collect_reports_each_device_read_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every device is a step of ``collect``, the one that could not be reached with why."""
    desired = build_fabric_state(load_intent(LAB_MINI))
    targets = [t for t in build_targets(desired) if t.name in {"gpu1", "gpu2", "leaf1"}]

    def refuse(_spec: object) -> object:
        raise ConnectionRefusedError("refused")

    hook = Recorder()
    options = engine.CollectOptions(workers=2, timeout_s=5.0, progress=hook)
    snapshot = engine.collect(desired, targets, CredentialSet(switch=None, host=None), None, options, connect=refuse)
    assert {e.device for e in snapshot.errors} == {"gpu1", "gpu2", "leaf1"}
    assert hook.stages() == ["collect"]
    assert sorted(hook.items("collect")) == ["gpu1", "gpu2", "leaf1"]
    assert {e.detail for e in hook.events if e.phase == "step"} == {"failed: unreachable"}
    assert hook.bracketed()


@dataclass(frozen=True)
class _Ran:
    status: int
    stdout: str
    stderr: str = ""


class _ReplaySm:
    """A subnet manager host answering infiniband-diags from the saved captures of a ring (its OpenSM's config file
    names an SA key, which the SA trusts)."""

    host = "sm01"
    source = "replay ring"
    opensm_log: str | None = None
    opensm_argv: list[str] | None = None
    speed_cap: str | None = None

    def __init__(self) -> None:
        self.captures = {**load_captures(DUMPS / "ring_saquery")[0], **load_captures(DUMPS / "ring_smpquery")[0]}

    def run(self, argv: list[str]) -> _Ran:
        if argv[0] == "cat":
            return _Ran(0, f"sa_key {SA_KEY}\n")
        if argv[0] == "saquery":
            lid, port = argv[4].split("/")
            return _Ran(0, self.captures[f"saquery_pkeys/{lid}_{port}.txt"])
        name = f"{argv[1]}/{argv[2]}_{argv[3]}.txt" if argv[0] == "smpquery" else f"{argv[0]}.txt"
        return _Ran(0, self.captures[name])

    def run_batch(self, argvs: list[list[str]]) -> list[_Ran]:
        return [self.run(a) for a in argvs]


def test_infiniband_collect_reports_the_sweep_and_the_lft_dump() -> None:
    hook = Recorder()
    got = collect_sm(_ReplaySm(), progress=hook)
    assert got.observation.nodes
    assert hook.stages() == ["SM sweep", "LFT dump"]
    assert hook.items("SM sweep") == ["ibnetdiscover", "iblinkinfo"]
    assert hook.items("LFT dump")[0] == "dump_fts" and len(hook.items("LFT dump")) > 1
    assert hook.bracketed()


def test_deadlock_ib_lab_stages_lab_sweep_lft_dump_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    """``deadlock --ib-lab``: the lab's SM host (here a replay of a ring), then the sweep, the LFT dump and the
    analysis, in that order."""
    from xoff.connect import sources

    class Source:
        def subnet_manager(self) -> _ReplaySm:
            return _ReplaySm()

    monkeypatch.setattr(sources, "open_source", lambda _kind, _name, _option="--lab": Source())
    hook = Recorder()
    result = api.deadlock(api.DeadlockOptions(ib_lab="ring"), hook)
    assert result.kind == "infiniband" and not result.risk
    assert hook.stages() == ["lab", "SM sweep", "LFT dump", "analysis"]
    assert hook.bracketed()


def test_deadlock_ib_dump_stages_read_and_analysis() -> None:
    hook = Recorder()
    api.deadlock(api.DeadlockOptions(ib_dump=RING), hook)
    assert hook.stages() == ["read dump", "analysis"]


@pytest.fixture
def cli_env() -> Iterator[dict[str, str]]:
    yield {**os.environ, "PYTHONPATH": str(ROOT / "src"), "XOFF_PROGRESS": "always", "COLUMNS": "120"}


def _xoff(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xoff", *args], capture_output=True, text=True, env=env, check=False, cwd=ROOT
    )


def test_json_stdout_stays_clean_while_progress_goes_to_stderr(cli_env: dict[str, str]) -> None:
    done = _xoff(cli_env, "validate", str(LAB_MINI), "--offline", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # the whole of stdout is the one document
    assert report["summary"]["success"] > 0
    assert "checks" in done.stderr  # the progress, drawn on stderr


def test_quiet_draws_no_progress(cli_env: dict[str, str]) -> None:
    done = _xoff(cli_env, "validate", str(LAB_MINI), "--offline", "--format", "json", "--quiet")
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)
    assert done.stderr == ""


def test_no_progress_when_stderr_is_not_a_terminal(cli_env: dict[str, str]) -> None:
    env = {k: v for k, v in cli_env.items() if k != "XOFF_PROGRESS"}
    done = _xoff(env, "deadlock", "--ib-dump", str(RING), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["credit_loop"] is False
    assert done.stderr == ""


def test_the_rich_display_follows_the_stages(tmp_path: Path) -> None:
    """The renderer itself: a bar per stage with its count, on the console it is given."""
    from rich.console import Console

    from xoff.progress.display import RichProgress

    with (tmp_path / "err.txt").open("w", encoding="utf-8") as fh:
        display = RichProgress(Console(file=fh, width=100, force_terminal=False))
        with stage(display, "collect", 2) as s:
            s.step("leaf1")
            s.step("leaf2", "failed: timeout")
        display.bars.stop()
    text = (tmp_path / "err.txt").read_text(encoding="utf-8")
    assert "collect: done" in text and "2/2" in text


def test_the_per_port_queries_go_in_bounded_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch is one script on the SM host: bounded (``BATCH_MAX``), so a large fabric's script stays within the
    kernel's argument limit and the dump shows progress batch by batch; the observation is the same."""
    from xoff.platforms.infiniband import collect as ib_collect

    whole = collect_sm(_ReplaySm()).observation
    sizes: list[int] = []

    class Counting(_ReplaySm):
        def run_batch(self, argvs: list[list[str]]) -> list[_Ran]:
            sizes.append(len(argvs))
            return super().run_batch(argvs)

    monkeypatch.setattr(ib_collect, "BATCH_MAX", 4)
    hook = Recorder()
    assert collect_sm(Counting(), progress=hook).observation == whole
    assert max(sizes) == 4 and len(sizes) > 2
    assert len(hook.items("LFT dump")) == len(sizes) + 1  # dump_fts, then one step per batch
