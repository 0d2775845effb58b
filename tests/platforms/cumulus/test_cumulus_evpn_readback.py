"""Cumulus reads back each tenant VRF's L3 VNI (``vrf X evpn vni``, the corpus sample cl59-evpn-l3vni), and a VNI
other than the intent's is drift on ``vrfs.<VRF>.vni``."""

from __future__ import annotations

from typing import Any

from tests.support.paths import ROOT
from xoff.desired.models import FabricState, Vrf
from xoff.platforms.cumulus.config_read import read_config
from xoff.platforms.cumulus.observe import observe
from xoff.validate.drift import device_drift

SAMPLE = ROOT / "tests" / "fixtures" / "real" / "cumulus" / "nv_config_show_-o_json" / "cl59-evpn-l3vni.txt"


def test_the_l3vni_is_read_back_and_a_wrong_one_is_drift(lab_mini_state: Any) -> None:
    state: FabricState = lab_mini_state[1]
    reading = read_config(SAMPLE.read_text(encoding="utf-8"))
    assert reading.vrf_vnis == {"BLUE": 4002} and reading.errors == []
    for vni, drift in ((4002, []), (4009, [("vrfs.BLUE.vni", 4009, 4002)])):
        desired = state.devices["sleaf1"].model_copy(update={"vrfs": [Vrf(name="BLUE", tenant="blue", vni=vni)]})
        device, fields, _ = observe(reading, desired)
        assert [(v.name, v.vni) for v in device.vrfs] == [("BLUE", 4002)]
        assert {"vrfs", "vrfs.*.vni"} <= set(fields)
        found = device_drift(desired.model_dump(mode="json"), device.model_dump(mode="json"), ["vrfs", "vrfs.*.vni"])
        assert [(d.path, d.desired, d.observed) for d in found] == drift
