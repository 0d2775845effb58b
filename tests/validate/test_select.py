"""``validate --limit / --checks / --tags`` (``validate.select``, ``xoff.api.validate``): unselected devices are not
judged and are reported as not selected, never as passed; checks are chosen by id glob or tag; the library, like the
command line, needs an explicit mode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import INVENTORY, ROOT
from xoff import api
from xoff.contracts.observed import Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.report.html import html_report
from xoff.validate import CHECKS
from xoff.validate.catalog import load_catalog
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.model import Status
from xoff.validate.run import Validation, validate
from xoff.validate.select import Selection, select_checks, select_devices

LAB_MINI = INVENTORY / "lab-mini"


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(LAB_MINI))


def _faulty(desired: FabricState) -> Snapshot:
    """lab-mini as intended, but leaf1's port to gpu1 at MTU 1500."""
    clean = mirror_snapshot(desired)
    leaf = clean.observed.devices["leaf1"]
    port = next(i for i in leaf.interfaces.values() if i.pfc_priorities)
    broken = leaf.model_copy(
        update={"interfaces": {**leaf.interfaces, port.name: port.model_copy(update={"mtu": 1500})}}
    )
    observed = clean.observed.model_copy(update={"devices": {**clean.observed.devices, "leaf1": broken}})
    return clean.model_copy(update={"observed": observed})


def _run(desired: FabricState, limit: list[str], snapshot: Snapshot | None) -> Validation:
    devices = select_devices(desired, limit)
    left = tuple(sorted(set(desired.devices) - devices)) if devices is not None else ()
    source = "snapshot" if snapshot is not None else "offline"
    return validate(desired, load_catalog("default"), snapshot, source, Selection(devices, left))


def _status(v: Validation, check_id: str) -> Status:
    return next(r.status for r in v.results if r.id == check_id)


@pytest.mark.parametrize(
    ("limit", "link_mtu", "drift"),
    [
        ([], Status.FAILURE, Status.FAILURE),  # everything judged: leaf1's port fails
        (["leaf1"], Status.FAILURE, Status.FAILURE),  # leaf1 selected: still found
        (["spine*", "leaf2"], Status.SUCCESS, Status.SUCCESS),  # leaf1 not selected: not judged
        (["gpu1"], Status.SUCCESS, Status.SUCCESS),  # the host end is fine; the finding is leaf1's
    ],
)
def test_findings_only_about_selected_devices(
    desired: FabricState, limit: list[str], link_mtu: Status, drift: Status
) -> None:
    v = _run(desired, limit, _faulty(desired))
    assert _status(v, "lossless.link_mtu") is link_mtu
    assert _status(v, "drift.state") is drift
    chosen = select_devices(desired, limit) or frozenset(desired.devices)
    named = {f.device for r in v.results for f in r.findings}
    assert named <= chosen


def test_unselected_devices_are_reported_as_not_selected_never_as_not_observed_or_passed(
    desired: FabricState,
) -> None:
    v = _run(desired, ["leaf1"], _faulty(desired))
    assert v.not_selected["devices"] == sorted(set(desired.devices) - {"leaf1"})
    for r in v.results:
        message = r.message or ""
        assert "gpu1" not in message.split("not selected")[0], (r.id, message)  # never "gpu1: not observed"
    judged = [r for r in v.results if r.status is Status.SUCCESS and r.message]
    assert judged and all("judged on the selected devices only (8 not selected)" in (r.message or "") for r in judged)


def test_a_check_with_no_selected_subject_is_skipped_saying_why(desired: FabricState) -> None:
    """Only switches selected: the host checks have nothing to judge (skipped, not passed)."""
    v = _run(desired, ["kind_switch"], mirror_snapshot(desired))
    host_mtu = next(r for r in v.results if r.id == "lossless.host_mtu")
    assert host_mtu.status is Status.SKIPPED and "no selected device holds host.nics" in (host_mtu.message or "")


def test_a_whole_fabric_check_on_running_state_needs_every_device_selected(desired: FabricState) -> None:
    cbd = next(r for r in _run(desired, ["leaf1"], mirror_snapshot(desired)).results if r.id == "deadlock.cbd")
    assert cbd.status is Status.SKIPPED
    assert cbd.message == (
        "judges every switch's running state together; not selected (--limit): spine1, spine2, leaf2, sleaf1"
    )
    for limit in ([], ["kind_switch"]):  # every switch selected: the hosts are destinations, from the intent
        whole = next(r for r in _run(desired, limit, mirror_snapshot(desired)).results if r.id == "deadlock.cbd")
        assert whole.status is Status.SUCCESS, whole.message


CATALOG_IDS = load_catalog("default").ids


@pytest.mark.parametrize(
    ("checks", "tags", "chosen"),
    [
        ([], [], CATALOG_IDS),
        (["drift.state"], [], ["drift.state"]),
        (["infiniband.*"], [], [i for i in CATALOG_IDS if i.startswith("infiniband.")]),
        ([], ["buffers"], [i for i in CATALOG_IDS if "buffers" in CHECKS.get(i).tag_set()]),
        (["drift.state"], ["deadlock"], ["infiniband.routing_deadlock_free", "deadlock.cbd", "drift.state"]),
        (["cabling.lldp,bgp.*"], [], ["cabling.lldp", "bgp.sessions"]),
    ],
)
def test_checks_by_id_glob_or_tag(checks: list[str], tags: list[str], chosen: list[str]) -> None:
    got = select_checks(CATALOG_IDS, CHECKS, checks, tags)
    assert got == [i for i in CATALOG_IDS if i in chosen]


def test_a_check_pattern_or_tag_that_chooses_nothing_is_bad_input_all_at_once() -> None:
    with pytest.raises(InputError) as exc:
        select_checks(CATALOG_IDS, CHECKS, ["lossles.*"], ["lossless", "nosuchtag"])
    lines = [str(p) for p in exc.value.sorted()]
    assert len(lines) == 2
    assert lines[0].startswith("--checks:1:1: lossles.*: matches no check (allowed: a check id or glob")
    assert lines[1].startswith("--tags:1:1: nosuchtag: tags no check (allowed: ")
    assert "hosts" in lines[1] and "deadlock" in lines[1]


def test_the_tags_the_issue_names_each_choose_checks() -> None:
    for tag in ("lossless", "buffers", "drift", "deadlock", "infiniband", "cabling", "hosts"):
        assert [i for i in CHECKS.ids() if tag in CHECKS.get(i).tag_set()], tag


def test_api_validate_needs_an_explicit_mode() -> None:
    with pytest.raises(InputError, match="say where the state comes from: --offline, --snapshot FILE"):
        api.validate(LAB_MINI, api.ValidateOptions())
    with pytest.raises(InputError, match=r"give one of .* \(allowed: one\)"):
        api.validate(LAB_MINI, api.ValidateOptions(offline=True, live=True))


def test_api_validate_limit_checks_and_tags(desired: FabricState) -> None:
    options = api.ValidateOptions(offline=True, limit=("leaf*",), checks=("lossless.link_mtu",), tags=("hosts",))
    v = api.validate(LAB_MINI, options).validation
    ran = [r.id for r in v.results]
    assert "lossless.link_mtu" in ran and "lossless.host_mtu" in ran and "drift.state" not in ran
    assert v.not_selected["devices"] == sorted(set(desired.devices) - {"leaf1", "leaf2"})
    assert "drift.state" in v.not_selected["checks"]
    page = html_report(v)  # the audit page says what was left out, apart from what passed
    section = page[page.index('<section id="not-selected">') :]
    assert "spine1" in section[: section.index("</section>")] and "drift.state" in section
    with pytest.raises(InputError) as exc:  # a bad --limit and a bad --tags together
        api.validate(LAB_MINI, api.ValidateOptions(offline=True, limit=("nope",), tags=("nope",)))
    assert len(exc.value.problems) == 2


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xoff.cli.validate", *args], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_cli_validate_limit_and_tags(tmp_path: Path, desired: FabricState) -> None:
    snap = tmp_path / "faulty.json"
    snap.write_text(_faulty(desired).model_dump_json(), encoding="utf-8")
    spines = _cli(str(LAB_MINI), "--snapshot", str(snap), "--limit", "spine*", "--tags", "lossless", "-f", "json")
    assert spines.returncode == 0, spines.stderr  # leaf1's fault is not judged when leaf1 is not selected
    doc = json.loads(spines.stdout)
    assert "leaf1" in doc["not_selected"]["devices"] and "spine1" not in doc["not_selected"]["devices"]
    assert {r["check"] for r in doc["results"]} <= {i for i in CHECKS.ids() if "lossless" in CHECKS.get(i).tag_set()}
    leaf = _cli(str(LAB_MINI), "--snapshot", str(snap), "--limit", "leaf1", "--checks", "lossless.link_mtu")
    assert leaf.returncode == 1 and "MTU below host gpu1:eth0" in leaf.stdout
    assert "not selected (not contacted, not judged): 8 device(s)" in leaf.stdout
    bad = _cli(str(LAB_MINI), "--offline", "--limit", "leaf9", "--checks", "nope.*")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.splitlines()[0].startswith("--checks:1:1: nope.*: matches no check")
    assert bad.stderr.splitlines()[1].startswith("--limit:1:1: leaf9: matches no device")


def test_live_validate_contacts_only_the_selected_devices(
    monkeypatch: pytest.MonkeyPatch, desired: FabricState
) -> None:
    """``--live --limit leaf*,gpu1``: the collect engine is handed gpu1, leaf1 and leaf2 only (here it answers with the intent's
    state), each reported as a step of ``collect`` before the checks run."""
    from xoff.collect import engine
    from xoff.progress import ProgressEvent, stage

    asked: list[str] = []

    def fake_collect(
        fabric: FabricState, targets: list, _creds: object, _hosts: object, options: engine.CollectOptions, **_: object
    ) -> Snapshot:  # type: ignore[type-arg]
        with stage(options.progress, "collect", len(targets)) as steps:
            for t in targets:
                asked.append(t.name)
                steps.step(t.name)
        snap = mirror_snapshot(fabric)
        kept = {n: d for n, d in snap.observed.devices.items() if n in asked}
        per_device = {  # what a collect of these devices alone holds: their state, facts and counters only
            name: {k: v for k, v in value.items() if k in asked}
            for name, value in snap
            if isinstance(value, dict) and name not in {"observed"}
        }
        observed = snap.observed.model_copy(update={"devices": kept})
        return snap.model_copy(update={"observed": observed, **per_device})

    monkeypatch.setattr(engine, "collect", fake_collect)
    monkeypatch.setattr("xoff.connect.credentials.load_credentials", lambda _secrets: None)
    events: list[ProgressEvent] = []
    result = api.validate(LAB_MINI, api.ValidateOptions(live=True, limit=("leaf*", "gpu1")), events.append)
    assert asked == ["gpu1", "leaf1", "leaf2"]
    assert [e.stage for e in events if e.phase == "start"] == ["collect", "checks"]
    assert result.source == "live" and not result.blocking
    unselected = result.validation.not_selected["devices"]
    assert unselected == ["gpu2", "gpu3", "gpu4", "sleaf1", "spine1", "spine2"]
    for r in result.validation.results:  # a device not read is named as not selected, never as not observed
        said = (r.message or "").split("not selected")[0]
        assert not [n for n in unselected if n in said], (r.id, r.message)


@pytest.mark.parametrize(("limit", "reads_infiniband"), [((), True), (("gpu01",), False), (("gpu01", "sm01"), True)])
def test_the_subnet_manager_host_is_contacted_only_when_chosen(
    monkeypatch: pytest.MonkeyPatch, limit: tuple[str, ...], reads_infiniband: bool
) -> None:
    """The InfiniBand fabric is read on the SM host (sm01 of ib-pod): under a limit that leaves it out, not at all."""
    from xoff.collect import engine

    seen: dict[str, object] = {}

    def fake_collect(
        fabric: FabricState, targets: list, *_: object, infiniband: object = None, **__: object
    ) -> Snapshot:  # type: ignore[type-arg]
        seen["infiniband"] = infiniband
        return mirror_snapshot(fabric)

    monkeypatch.setattr(engine, "collect", fake_collect)
    monkeypatch.setattr("xoff.connect.credentials.load_credentials", lambda _secrets: None)
    api.collect(INVENTORY / "ib-pod", api.CollectOptions(limit=limit))
    assert (seen["infiniband"] is not None) is reads_infiniband
