"""xoff.api on lab-mini, offline: each job's typed result, InputError for bad input, nothing printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff import api
from xoff.errors import InputError

MINI = ROOT / "inventory" / "lab-mini"


@pytest.fixture(scope="module")
def loaded() -> api.Loaded:
    return api.load(MINI)


def test_load_plans_once_and_is_reused(loaded: api.Loaded) -> None:
    assert loaded.intent.name == loaded.state.fabric and {"leaf1", "spine2", "gpu1"} <= set(loaded.state.devices)
    assert api.load(loaded) is loaded, "a Loaded is taken as it is, not loaded again"


def test_bad_intent_raises_input_error_with_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "fabric.yaml"
    bad.write_text("name: x\nunknown_key: 1\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        api.load(bad)
    assert exc.value.problems and all(p.location is not None for p in exc.value.problems)
    assert capsys.readouterr() == ("", ""), "the API prints nothing"


def test_plan_is_the_desired_state_and_device_is_checked(loaded: api.Loaded) -> None:
    whole = api.plan(loaded)
    assert json.loads(whole.to_json())["fabric"] == loaded.state.fabric
    one = api.plan(loaded, api.PlanOptions(device="leaf1"))
    assert json.loads(one.to_json()) == json.loads(loaded.state.devices["leaf1"].model_dump_json())
    with pytest.raises(InputError, match="no device named 'nope'"):
        api.plan(loaded, api.PlanOptions(device="nope"))


def test_check_runs_the_pre_change_catalog(loaded: api.Loaded) -> None:
    report = api.check(loaded)
    assert report.results and not report.failed
    assert any(r.id == "deadlock.cbd" for r in report.results)


def test_render_in_memory_to_disk_and_diff(loaded: api.Loaded, tmp_path: Path) -> None:
    memory = api.render(loaded, api.RenderOptions(output=None, devices=("leaf1",)))
    assert memory.manifest is None and memory.devices == 1
    assert {f.name for f in memory.files} >= {"config_db.json", "frr.conf"}
    out = tmp_path / "render"
    written = api.render(loaded, api.RenderOptions(output=out))
    assert written.manifest == out / "manifest.json" and (out / "leaf1" / "config_db.json").is_file()
    same = api.render(loaded, api.RenderOptions(diff_against=out))
    assert same.diff == "" and same.manifest is None
    with pytest.raises(InputError, match="--diff: not a directory"):
        api.render(loaded, api.RenderOptions(diff_against=tmp_path / "missing"))
    with pytest.raises(InputError, match="no device named 'nope'"):
        api.render(loaded, api.RenderOptions(devices=("nope",)))


def test_validate_offline_and_on_a_snapshot_file(loaded: api.Loaded, tmp_path: Path) -> None:
    offline = api.validate(loaded, api.ValidateOptions(offline=True))
    assert offline.source == "offline" and not offline.blocking and not offline.not_collected
    assert offline.validation.results
    with pytest.raises(InputError, match="give one of --offline"):
        api.validate(loaded, api.ValidateOptions(offline=True, lab="mini"))
    bad = tmp_path / "snap.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(InputError):
        api.validate(loaded, api.ValidateOptions(snapshot=bad))


def test_deadlock_of_the_intent_and_its_exported_snapshot(tmp_path: Path) -> None:
    baseline = tmp_path / "fwd.yaml"
    result = api.deadlock(api.DeadlockOptions(intent=MINI, failures=1, export_snapshot=baseline))
    assert result.kind == "intent" and result.exported and result.exported > 0
    assert result.risk is False and result.to_json()["deadlock_risk"] is False and result.to_text()
    again = api.deadlock(api.DeadlockOptions(snapshot=baseline))
    assert again.kind == "snapshot" and again.risk is False and "deadlock" in again.to_text().lower()
    with pytest.raises(InputError, match="give one input"):
        api.deadlock(api.DeadlockOptions())
    with pytest.raises(InputError, match="--routing: 'rip' is not known"):
        api.deadlock(api.DeadlockOptions(intent=MINI, routing="rip"))
    with pytest.raises(InputError, match="--network"):
        api.deadlock(api.DeadlockOptions(intent=MINI, network="nope"))


def test_push_preflight_refuses_bad_input_before_any_device(loaded: api.Loaded, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no push engine 'salt'"):
        api.prepare_push(loaded, api.PushOptions(engine="salt"))
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text("{}\n", encoding="utf-8")
    secrets.chmod(0o600)
    with pytest.raises(InputError, match="no credentials for this device's kind"):
        api.prepare_push(loaded, api.PushOptions(secrets=secrets, limit=("leaf1",)))


def test_inventory_export_writes_no_credentials(loaded: api.Loaded, tmp_path: Path) -> None:
    result = api.export_inventory(loaded, api.InventoryOptions(output=tmp_path / "inv"))
    assert result.devices >= 3 and result.format == "nornir"
    assert (tmp_path / "inv").is_dir() and any((tmp_path / "inv").iterdir())
