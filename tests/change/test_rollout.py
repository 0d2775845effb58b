"""The rollout a change report shows is the one push runs: by failure domain when the touched devices have one
(``push --canary-by``), else one canary switch first (``push --canary 1``)."""

from __future__ import annotations

import pytest

from tests.support.paths import INVENTORY
from xoff.api import load
from xoff.change.model import DeviceChange
from xoff.change.rollout import blast_radius, rollout
from xoff.desired.models import FabricState


def _touched(state: FabricState, names: list[str]) -> list[DeviceChange]:
    devs = state.devices
    return [DeviceChange(name=n, kind=devs[n].kind, platform=devs[n].platform, status="changed") for n in names]


@pytest.mark.parametrize(
    ("placed", "names", "stages", "by"),
    [
        (True, ["gpu1", "spine1", "leaf1"], [("canary", "su1", ["gpu1", "leaf1"]), ("batch 1", "-", ["spine1"])], "su"),
        (
            False,
            ["gpu1", "spine1", "leaf1"],
            [
                ("canary", None, ["leaf1"]),
                ("batch 1", None, ["gpu1", "spine1"]),
            ],  # a leaf: 4 hosts behind, as the spine
            None,
        ),
        (False, ["gpu1", "gpu2"], [("canary", None, ["gpu1"]), ("batch 1", None, ["gpu2"])], None),
    ],
)
def test_rollout(
    placed: bool, names: list[str], stages: list[tuple[str, str | None, list[str]]], by: str | None
) -> None:
    state = load(INVENTORY / "lab-mini").state
    if not placed:  # a fabric whose intent and cabling give no failure domain
        state = state.model_copy(
            update={"devices": {n: d.model_copy(update={"placement": None}) for n, d in state.devices.items()}}
        )
    touched = _touched(state, names)
    radius, _, _ = blast_radius(state, state, touched)
    got, kind = rollout(state, touched, radius)
    assert [(s.stage, s.domain, s.devices) for s in got] == stages and kind == by
