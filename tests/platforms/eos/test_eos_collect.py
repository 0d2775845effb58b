"""The EOS collector on a real switch's running-config: what xoff does not model is counted, never refused;
a value it cannot read is one located error and not observed; ports that differ are named per port."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import PortSettings
from xoff.platforms.eos.collect import RUNNING, Collector

GOLDEN = ROOT / "tests" / "golden" / "render" / "eos" / "lab-mini" / "spine2" / "running-config"
# what a real switch prints around xoff's lines (the formats of the corpus' show_running-config samples)
REAL_HEAD = """! Command: show running-config
! device: spine2 (DCS-7060X6-64PE, EOS-4.33.1F)
!
! boot system flash:/EOS-4.33.1F.swi
!
no aaa root
!
username admin privilege 15 role network-admin secret sha512 $6$saltsalt$notarealhashbutshapedlikeone
!
transceiver qsfp default-mode 4x10G
!
service routing protocols model multi-agent
!
spanning-tree mode mstp
!
management api http-commands
   no shutdown
"""


def _collect(text: str, lab_mini_state: Any) -> Any:
    return Collector().parse({RUNNING.text: text}, lab_mini_state[1].devices["spine2"])


def _config(edit: str = "") -> str:
    text = REAL_HEAD + GOLDEN.read_text()
    if edit:
        old, new = edit.split(" => ")
        assert old in text
        text = text.replace(old, new, 1)
    return text


def test_a_real_switchs_extra_lines_are_unmodelled_not_refused(lab_mini_state: Any) -> None:
    obs = _collect(_config(), lab_mini_state)
    assert obs.errors == [] and obs.device is not None
    assert obs.unmodelled == {
        "interface.description": 2,
        "interface.no switchport": 4,
        "ip routing": 1,
        "management api": 1,
        "no aaa root": 1,
        "service routing": 1,
        "spanning-tree mode": 1,
        "transceiver qsfp": 1,
        "username": 1,
    }
    assert "secret" not in repr(obs.unmodelled) and "sha512" not in repr(obs.unmodelled)
    assert obs.port_settings == {}
    assert obs.device.pfc_watchdog is not None and obs.device.pfc_watchdog.action == "drop"


def test_one_ports_watchdog_differs_it_is_named_with_what_differs(lab_mini_state: Any) -> None:
    text = _config(
        "   priority-flow-control pause watchdog\n   !\n   tx-queue 0 => "
        "   priority-flow-control pause watchdog\n   priority-flow-control pause watchdog port action notify-only\n"
        "   !\n   tx-queue 0"
    )
    obs = _collect(text, lab_mini_state)
    assert obs.errors == []
    assert obs.port_settings == {"Ethernet1/1": PortSettings(watchdog_action="alert")}
    # one port each way: the device holds the value of the two the intent means, the other port is named
    assert obs.device.pfc_watchdog.action == "drop"


@pytest.mark.parametrize(
    ("edit", "message", "unobserved"),
    [
        (
            "   mtu 9100\n   speed 400g-8\n   no switchport\n   ip address 198.18.0.2/31 => "
            "   mtu 91O0\n   speed 400g-8\n   no switchport\n   ip address 198.18.0.2/31",
            "line 24: 'mtu 91O0': not an MTU in bytes",
            "interfaces.*.mtu",
        ),
        ("speed 400g-8 => speed 400g-9", "line 25: 'speed 400g-9': unknown speed '400g-9'", "interfaces.*.speed_mbps"),
        (
            "   neighbor 198.18.0.3 remote-as 65101\n => ",
            "neighbor 198.18.0.3 has no remote-as (itself or its peer group)",
            "bgp.neighbors",
        ),
        (
            "qos map dscp 26 to traffic-class 3 => qos map dscp 26 to traffic-class three",
            "'qos map dscp 26 to traffic-class three': not a 'qos map dscp ... to traffic-class N' line",
            "qos.dscp_to_tc",
        ),
    ],
)
def test_a_bad_modelled_value_is_one_located_error_and_the_rest_is_read(
    edit: str, message: str, unobserved: str | None, lab_mini_state: Any
) -> None:
    obs = _collect(_config(edit), lab_mini_state)
    assert [(e.kind, e.command) for e in obs.errors] == [("parse", RUNNING.text)]
    assert message in obs.errors[0].message
    assert obs.device is not None and obs.device.bgp is not None and obs.device.bgp.asn == 65100  # the rest read
    if unobserved is not None:
        assert unobserved not in obs.fields and "interfaces.*.addresses" in obs.fields


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"intfQueueCounters": {"Ethernet1/1": {"queueCounters": {"3": 12}}}}', "is not a count as a string"),
        ('{"intfQueueCounters": {"Ethernet1/1": {"queueCounters": {"9": "0"}}}}', "0-7"),
        ('{"intfQueueCounters": {"Ethernet1/1": {}}}', "queueCounters"),
        ("% Invalid input", "not JSON"),
    ],
)
def test_ecn_counters_of_another_shape_are_a_parse_error_naming_the_command(
    text: str, message: str, lab_mini_state: Any
) -> None:
    from xoff.platforms.eos.counters import ECN

    obs = Collector().parse({ECN.text: text}, lab_mini_state[1].devices["spine2"])
    assert [(e.kind, e.command) for e in obs.errors] == [("parse", ECN.text)]
    assert message in obs.errors[0].message and obs.counters == {}


def test_ecn_thresholds_in_another_unit_leave_ecn_not_observed(lab_mini_state: Any) -> None:
    """EOS also takes kbytes, mbytes, segments and time; FabricState holds bytes: not observed, not guessed."""
    text = _config(
        "random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes => "
        "random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes"
    )
    obs = _collect(text, lab_mini_state)
    assert obs.errors == [] and obs.device is not None
    assert "qos.ecn" not in obs.fields and "qos.schedulers" in obs.fields
    assert obs.unmodelled["interface.tx-queue.random-detect ecn (other units)"] == 1
    assert obs.port_settings == {}
