"""Congestion-control profiles x platforms: what each renderer writes for PFC, ECN, the watchdog and the NIC's
DCQCN (lab-mini: SONiC leaf1, EOS spine2, Cumulus sleaf1, Linux gpu1), table-driven."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.profiles import lab_mini_with
from xoff import api

# (platform, device, file, knob) -> how the rendered file shows the knob on
SHOWS = {
    ("sonic", "leaf1", "config_db.json", "pfc"): lambda t: any(
        v.get("pfc_enable") == "3" for v in json.loads(t)["PORT_QOS_MAP"].values()
    ),
    ("sonic", "leaf1", "config_db.json", "ecn"): lambda t: any(
        "wred_profile" in v for k, v in json.loads(t).get("QUEUE", {}).items() if k.endswith("|3")
    ),
    ("sonic", "leaf1", "config_db.json", "watchdog"): lambda t: "PFC_WD" in json.loads(t),
    ("eos", "spine2", "running-config", "pfc"): lambda t: "priority-flow-control priority 3 no-drop" in t,
    ("eos", "spine2", "running-config", "ecn"): lambda t: "random-detect ecn minimum-threshold" in t,
    ("eos", "spine2", "running-config", "watchdog"): lambda t: "priority-flow-control pause watchdog action drop" in t,
    ("cumulus", "sleaf1", "nvue-commands.txt", "pfc"): lambda t: "qos pfc profile" in t,
    ("cumulus", "sleaf1", "nvue-commands.txt", "ecn"): lambda t: "traffic-class 4 ecn enable" in t,
    ("cumulus", "sleaf1", "nvue-commands.txt", "watchdog"): lambda t: "qos pfc-watchdog state enable" in t,
    ("linux", "gpu1", "xoff-host-apply.sh", "pfc"): lambda t: "xoff_qos eth0 dscp 0,0,0,1,0,0,0,0" in t,
    ("linux", "gpu1", "xoff-host-apply.sh", "nic_dcqcn"): lambda t: "xoff_ecn eth0 rp 3" in t,
    ("linux", "gpu1", "xoff-host-apply.sh", "nic_dcqcn_off"): lambda t: "-> 0 (DCQCN off)" in t,
}
# profile -> the knobs it turns on (the rest off)
ON = {
    "dcqcn": {"pfc", "ecn", "watchdog", "nic_dcqcn"},
    "pfc-only": {"pfc", "watchdog", "nic_dcqcn_off"},
    "ecn-only": {"ecn", "nic_dcqcn"},
}
CASES = [(profile, *key) for profile in ON for key in SHOWS]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], str]:
    tmp = tmp_path_factory.mktemp("render")
    out = {}
    for profile in ON:
        for f in api.render(lab_mini_with(tmp, profile), api.RenderOptions(output=None)).files:
            out[(profile, f.device, f.name)] = f.content
    return out


@pytest.mark.parametrize(("profile", "platform", "device", "file", "knob"), CASES, ids=["-".join(c) for c in CASES])
def test_profile_renders(
    rendered: dict[tuple[str, str, str], str], profile: str, platform: str, device: str, file: str, knob: str
) -> None:
    text = rendered[(profile, device, file)]
    assert SHOWS[(platform, device, file, knob)](text) is (knob in ON[profile])


def test_the_plan_names_departures_from_vendor_defaults(tmp_path: Path) -> None:
    plan = api.load(lab_mini_with(tmp_path, "pfc-only")).state.networks["compute"].congestion_control
    assert plan is not None and plan.profile == "pfc-only"
    assert plan.departures == [
        "ECN marking on the RoCE queue off (vendor default: on)",
        "DCQCN (ECN notification and reaction point) on the NICs off (vendor default: on)",
    ]


def test_the_text_plan_says_so(tmp_path: Path) -> None:
    from xoff.report.plan_text import congestion_notes

    assert congestion_notes(api.load(lab_mini_with(tmp_path, "ecn-only")).state)[0] == (
        "compute: profile ecn-only departs from the vendor default: PFC on the lossless classes off (vendor default:"
        " on); the PFC watchdog off (vendor default: on)"
    )
    assert congestion_notes(api.load(lab_mini_with(tmp_path, "dcqcn")).state) == []
