"""The intent's ``headroom_rows``: a row may name its ASIC(s); the plan and ``lossless.headroom`` use the same rows.

The fabric: minimal.yaml with an EOS Tomahawk 5 spine and 100 m leaf-spine cables, a length the Tomahawk 5
lookup table has no row for, so the spine's 400G 100 m ports need the intent's row. The Spectrum-4 leaves have
no table row for that length either (static means the table), so a second row, tied to spectrum4, is theirs; a
row meant for the spine must not touch them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.models import Buffers
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.mirror import mirror_snapshot

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
ROW = "{speed: 400G, cable: 100, xon: 0, xoff: 700000, size: 18796}"
INTENT_ROW = "intent: qos_policies.rdma.buffers.headroom_rows[0]"
LEAF_ROW = "{asics: [spectrum4], speed: 400G, cable: 100, xon: 19456, xoff: 400000, size: 419456}"


def _plan(tmp_path: Path, row: str) -> FabricState:
    text = MINIMAL.read_text(encoding="utf-8")
    edits = [
        (
            "  - {name: spine1, role: spine, mgmt: 192.0.2.11}",
            "  - {name: spine1, role: spine, mgmt: 192.0.2.11, platform: eos, asic: tomahawk5}",
        ),
        (
            "    pfc_watchdog: {poll_interval_ms: 200, detection_ms: 400, restoration_ms: 800}\n",
            "    pfc_watchdog: {poll_interval_ms: 200, detection_ms: 400, restoration_ms: 800}\n"
            "    cable_lengths: {leaf_spine: 100}\n"
            f"    buffers:\n      headroom_rows:\n        - {row}\n        - {LEAF_ROW}\n",
        ),
    ]
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "intent.yaml"
    path.write_text(text, encoding="utf-8")
    return build_fabric_state(load_intent(path))


def _buffers(state: FabricState, device: str) -> Buffers:
    buffers = state.devices[device].buffers
    assert buffers is not None
    return buffers


def _uplink_source(state: FabricState, device: str, port: str) -> str:
    buffers = _buffers(state, device)
    (profile,) = set(buffers.port_priority_groups[port].values())
    return buffers.profiles[profile].source


@pytest.mark.parametrize(
    ("asics", "spine_rules", "leaf_rules"),
    [
        ("asics: [tomahawk5], ", 1, 1),  # named: the spine only (the leaves keep their own row)
        ("asics: [TH5, sp4], ", 1, 2),  # aliases, as a switch's asic accepts them
        ("asics: [spectrum4], ", None, 2),  # named for the leaves: the spine has no rule for 100 m
        ("", 1, 2),  # no ASIC named: every switch, as before
    ],
)
def test_a_row_applies_to_the_asics_it_names(
    asics: str, spine_rules: int | None, leaf_rules: int, tmp_path: Path
) -> None:
    row = ROW.replace("{", "{" + asics, 1)
    if spine_rules is None:
        with pytest.raises(InputError, match=r"spine1 ports Ethernet0, .*: no static headroom for .*tomahawk5"):
            _plan(tmp_path, row)
        return
    state = _plan(tmp_path, row)
    assert len(_buffers(state, "spine1").headroom_rules) == spine_rules
    assert _uplink_source(state, "spine1", "Ethernet0") == INTENT_ROW
    assert len(_buffers(state, "leaf1").headroom_rules) == leaf_rules
    leaf_source = _uplink_source(state, "leaf1", "Ethernet32")
    assert (leaf_source == INTENT_ROW) is (leaf_rules == 2), leaf_source


def _shrunk(state: FabricState, device: str, xoff: int) -> FabricState:
    buffers = _buffers(state, device)
    profiles = {n: p.model_copy(update={"xoff": xoff}) for n, p in buffers.profiles.items()}
    dev = state.devices[device].model_copy(update={"buffers": buffers.model_copy(update={"profiles": profiles})})
    return state.model_copy(update={"devices": {**state.devices, device: dev}})


SPINE_BELOW_ROW = (
    f"spine1: Ethernet0 PG 3 - xoff of pg_lossless_400000_100m_profile below the rule for 400G 100 m ({INTENT_ROW})"
    " - Expected: >= 700000 Actual: 600000"
)


@pytest.mark.parametrize(
    ("row", "device", "xoff", "status", "first"),
    [
        # The plan itself: judged against the intent's row (was "no headroom rule applies").
        ("{asics: [tomahawk5], " + ROW[1:], None, None, Status.SUCCESS, None),
        # The spine's profile lost headroom: judged against the intent's row, which the finding names.
        ("{asics: [tomahawk5], " + ROW[1:], "spine1", 600000, Status.FAILURE, SPINE_BELOW_ROW),
        # A row for every ASIC lands on the Spectrum-4 leaves too, and is wrong there: the check says so.
        (
            ROW,
            None,
            None,
            Status.FAILURE,
            "leaf1: Ethernet32 PG 3 - size of pg_lossless_400000_100m_profile below xon + xoff"
            " - Expected: >= 700000 Actual: 18796",
        ),
    ],
)
def test_the_check_judges_against_the_intents_row(
    row: str, device: str | None, xoff: int, status: Status, first: str | None, tmp_path: Path
) -> None:
    desired = _plan(tmp_path, row)
    subject = desired if device is None else _shrunk(desired, device, xoff)
    (result,) = run_checks(subject, ["lossless.headroom"])
    assert result.status is status, [str(f) for f in result.findings]
    if first is None:
        assert not result.findings
    else:
        assert str(result.findings[0]).startswith(first)


def test_observed_state_is_judged_against_the_desired_row(tmp_path: Path) -> None:
    """A collected device carries no intent rows: the rule comes from the plan, for both outcomes."""
    desired = _plan(tmp_path, "{asics: [tomahawk5], " + ROW[1:])
    for shrink, status in ((None, Status.SUCCESS), (600000, Status.FAILURE)):
        seen = desired if shrink is None else _shrunk(desired, "spine1", shrink)
        devices = {
            name: dev.model_copy(update={"buffers": dev.buffers.model_copy(update={"headroom_rules": []})})
            if dev.buffers is not None
            else dev
            for name, dev in seen.devices.items()
        }
        snap = mirror_snapshot(seen.model_copy(update={"devices": devices}))
        (result,) = run_checks(desired, ["lossless.headroom"], observed=snap)
        assert result.status is status, [str(f) for f in result.findings]
        if shrink is not None:
            assert str(result.findings[0]).startswith(SPINE_BELOW_ROW)


def test_skipped_when_no_buffers_were_observed(tmp_path: Path) -> None:
    desired = _plan(tmp_path, "{asics: [tomahawk5], " + ROW[1:])
    devices = {n: d.model_copy(update={"buffers": None}) for n, d in desired.devices.items()}
    snap = mirror_snapshot(desired.model_copy(update={"devices": devices}))
    (result,) = run_checks(desired, ["lossless.headroom"], observed=snap)
    assert result.status is Status.SKIPPED, result
    assert result.message
