"""SONiC reads back what xoff renders for EVPN: each VRF's L3 VNI (CONFIG_DB ``VRF|<name>`` ``vni``), and a
wrong one is drift; the VXLAN tables it does not model are counted as unmodelled, never refused."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.evpn import TENANTS, drift_judged, sonic_only
from xoff.desired.build import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.platforms.frr.render import render_frr_conf
from xoff.platforms.sonic.collect import RUNNING, Collector
from xoff.platforms.sonic.config_db import build_config_db
from xoff.validate.model import Status

VXLAN_TABLES = {"VLAN", "VLAN_INTERFACE", "VXLAN_EVPN_NVO", "VXLAN_TUNNEL", "VXLAN_TUNNEL_MAP"}


def _drift(tmp_path: Path, intent: Path, fabric: FabricState, vni: str) -> tuple[list[tuple[str, ...]], Status]:
    device = fabric.devices["leaf1"]
    db = build_config_db(device, fabric)
    db["VRF"]["Vrf-blue"]["vni"] = vni
    obs = Collector().parse({RUNNING.text: json.dumps({**db, "bgpraw": render_frr_conf(device, fabric)})}, device)
    assert obs.errors == [] and obs.device is not None
    assert [(v.name, v.vni) for v in obs.device.vrfs] == [("Vrf-blue", int(vni)), ("Vrf-red", 50002)]
    assert set(obs.unmodelled) == VXLAN_TABLES
    return drift_judged(intent, fabric, tmp_path, "sonic", obs)


def test_the_vni_is_read_back_and_a_wrong_one_is_drift(tmp_path: Path) -> None:
    intent = sonic_only(tmp_path, TENANTS)
    fabric = build_fabric_state(load_intent(intent))
    assert _drift(tmp_path, intent, fabric, "50001") == ([], Status.SUCCESS)
    findings, status = _drift(tmp_path, intent, fabric, "50009")
    assert status is Status.FAILURE
    assert findings == [("leaf1", "vrfs.Vrf-blue.vni", "50001", "50009")]
