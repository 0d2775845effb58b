"""topology.planes: switch-to-switch cables stay inside their plane (table-driven over small intent edits)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import INVENTORY, ROOT
from xoff import api
from xoff.validate import Status, run_checks
from xoff.validate.mirror import mirror_snapshot

HPN = ROOT / "examples" / "designs" / "alibaba-hpn.yaml"
PLANE2 = 'spines: "agg{3..4}"}'

CASES = [
    ("dual plane, every cable inside its plane", HPN, (), Status.SUCCESS, None),
    (
        "plane 2 ToRs cabled to a plane 1 aggregation switch",
        HPN,
        ((PLANE2, "spines: [agg3, agg1]}"),),
        Status.FAILURE,
        "agg1: Ethernet16 -> tor1b:Ethernet264 - cable crosses planes - Expected: plane 1 Actual: plane 2",
    ),
    (
        "a ToR written into the other plane",
        HPN,
        (("{name: tor2b, role: leaf, plane: 2}", "{name: tor2b, role: leaf, plane: 1}"),),
        Status.FAILURE,
        "agg3: Ethernet8 -> tor2b:Ethernet256 - cable crosses planes - Expected: plane 2 Actual: plane 1",
    ),
    ("no planes at all: nothing to judge", INVENTORY / "lab-mini", (), Status.SKIPPED, None),
]


def _intent(src: Path, edits: tuple[tuple[str, str], ...], tmp: Path) -> Path:
    if not edits:
        return src
    text = src.read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    out = tmp / src.name
    out.write_text(text)
    return out


@pytest.mark.parametrize(("what", "src", "edits", "status", "first"), CASES, ids=[c[0] for c in CASES])
def test_planes(
    what: str, src: Path, edits: tuple[tuple[str, str], ...], status: Status, first: str | None, tmp_path: Path
) -> None:
    (result,) = run_checks(api.load(_intent(src, edits, tmp_path)).state, ["topology.planes"])
    assert result.status is status, what
    if first is None:
        assert result.findings == []
    else:
        assert str(result.findings[0]) == first
    if status is Status.SKIPPED:
        assert result.message == "not a multi-plane fabric: fewer than two planes among the switches"


def test_on_a_snapshot_planes_are_not_observed_so_it_is_skipped() -> None:
    """A device's plane is a fact of the intent no collector reads: judged on a snapshot, the check is skipped
    (the cables a snapshot shows are judged against the intent by cabling.lldp), never a success."""
    desired = api.load(HPN).state
    (result,) = run_checks(desired, ["topology.planes"], observed=mirror_snapshot(desired))
    assert result.status is Status.SKIPPED
    assert result.message is not None
    assert result.message.endswith("placement.plane not observed")
