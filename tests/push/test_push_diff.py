"""The pure diff functions of each strategy: SONiC JSON Patch, EOS section tree, host state."""

from __future__ import annotations

import copy
import json

import jsonpatch

from xoff.platforms.eos.apply import RUNNING_CONFIG
from xoff.platforms.eos.apply import Strategy as Eos
from xoff.platforms.eos.config_tree import config_diff, config_lines, unmanaged_lines
from xoff.platforms.linux.observe import parse_snapshot, state_diff
from xoff.platforms.linux.restore import restore_script
from xoff.platforms.sonic.apply import Strategy as Sonic
from xoff.platforms.sonic.apply import bgp_neighbors, config_patch

RUNNING = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "hwsku": "x"}},
    "PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up"}, "Ethernet8": {"mtu": "9100"}},
    "FEATURE": {"lldp": {"state": "enabled"}},  # a factory table xoff does not render
}
DESIRED = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "hwsku": "x"}},
    "PORT": {"Ethernet0": {"mtu": "9000", "admin_status": "up", "fec": "rs"}},
    "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}},
}


def test_sonic_patch_takes_running_to_desired_in_owned_tables_only() -> None:
    ops, lines = config_patch(RUNNING, DESIRED)
    result = jsonpatch.JsonPatch(ops).apply(copy.deepcopy(RUNNING))
    assert result == {**DESIRED, "FEATURE": RUNNING["FEATURE"]}  # FEATURE untouched
    assert lines == [
        '+ PFC_WD|GLOBAL {"POLL_INTERVAL": "200"}',
        "- PORT|Ethernet8",
        "+ PORT|Ethernet0 fec='rs'",
        "~ PORT|Ethernet0 mtu='9100' -> '9000'",
    ]
    assert {op["op"] for op in ops} <= {"add", "remove", "replace"}  # no move/copy: each line is one op


def test_sonic_equal_config_is_no_change_and_keys_with_slashes_are_escaped() -> None:
    assert config_patch(DESIRED, DESIRED) == ([], [])
    ops, _ = config_patch({"INTERFACE": {}}, {"INTERFACE": {"Ethernet0|10.0.0.0/31": {}}})
    assert ops == [{"op": "add", "path": "/INTERFACE/Ethernet0|10.0.0.0~131", "value": {}}]


def test_sonic_diff_reads_show_runningconfiguration_all() -> None:
    running = json.dumps({**RUNNING, "bgpraw": "router bgp 65101\n neighbor 10.0.0.0 remote-as 65100\n"})
    change = Sonic("t").diff(running, {"config_db.json": json.dumps(DESIRED)})
    assert change.count == 4 and change.payload[0]["path"] == "/PFC_WD"


def test_frr_neighbors_leave_peer_groups_out() -> None:
    text = " neighbor FABRIC peer-group\n neighbor 10.0.0.0 remote-as 65100\n neighbor 10.0.0.0 peer-group FABRIC\n"
    assert bgp_neighbors(text) == {"10.0.0.0": "65100"}


EOS_RUNNING = """! Command: show running-config
! device: spine2 (cEOSLab, EOS-4.32.2F)
!
hostname spine2
!
interface Ethernet1/1
   mtu 9100
   shutdown
!
interface Ethernet2/1
!
no ip routing
!
end
"""
EOS_DESIRED = """!
hostname spine2
!
interface Ethernet1/1
   no shutdown
   mtu 9100
   priority-flow-control priority 0 drop
   !
   tx-queue 3
      bandwidth percent 50
!
ip routing
!
end
"""


def test_eos_diff_is_by_section_with_defaults_normalised() -> None:
    # removals of a level first, then its additions and the sections both sides have, in desired's order
    assert config_diff(EOS_RUNNING, EOS_DESIRED) == [
        "- no ip routing",
        "- interface Ethernet1/1 > shutdown",
        "+ interface Ethernet1/1 > tx-queue 3",
        "+ interface Ethernet1/1 > tx-queue 3 > bandwidth percent 50",
        "+ ip routing",
    ]
    assert config_diff(EOS_DESIRED, EOS_DESIRED) == []
    assert config_lines(EOS_DESIRED)[:3] == ["hostname spine2", "interface Ethernet1/1", "   no shutdown"]


# a switch as it ships (EOS clean-config, as cEOS 4.30+ prints it) with a site's own lines xoff does not
# render (a user, the eAPI, NTP), and xoff's configuration already pushed onto it
EOS_FACTORY_PUSHED = """! Command: show running-config
! device: spine2 (cEOSLab, EOS-4.32.2F)
!
! boot system flash:/cEOS-lab.swi
!
no aaa root
!
username admin privilege 15 role network-admin nopassword
username ops privilege 15 role network-admin nopassword
!
transceiver qsfp default-mode 4x10G
!
service routing protocols model multi-agent
!
hostname spine2
!
spanning-tree mode mstp
!
system l1
   unsupported speed action error
   unsupported error-correction action error
!
interface Ethernet1/1
   mtu 9100
   priority-flow-control priority 0 drop
   !
   tx-queue 3
      bandwidth percent 50
!
interface Ethernet2/1
!
ip routing
!
ntp server 192.0.2.123
!
management api http-commands
   no shutdown
!
end
"""


def test_eos_diff_judges_only_what_xoff_manages() -> None:
    """The clean-config's lines and a site's own (users, eAPI, NTP) are neither a change nor drift."""
    assert config_diff(EOS_FACTORY_PUSHED, EOS_DESIRED) == []
    # what xoff manages still differs, even when it is only on the switch (a stale interface, no ip routing)
    stale = EOS_FACTORY_PUSHED.replace("ip routing\n", "no ip routing\n").replace(
        "interface Ethernet2/1\n", "interface Loopback9\n   ip address 198.18.255.9/32\n"
    )
    assert config_diff(stale, EOS_DESIRED) == [
        "- interface Loopback9",
        "- interface Loopback9 > ip address 198.18.255.9/32",
        "- no ip routing",
        "+ ip routing",
    ]


def test_eos_replace_keeps_the_lines_xoff_does_not_manage() -> None:
    """``rollback clean-config`` + the payload: the running-config's unmanaged lines first, as they were,
    then xoff's file, so a replace removes nothing xoff does not render."""
    kept = unmanaged_lines(EOS_FACTORY_PUSHED, EOS_DESIRED)
    assert kept == [
        "no aaa root",
        "username admin privilege 15 role network-admin nopassword",
        "username ops privilege 15 role network-admin nopassword",
        "transceiver qsfp default-mode 4x10G",
        "service routing protocols model multi-agent",
        "spanning-tree mode mstp",
        "system l1",
        "   unsupported speed action error",
        "   unsupported error-correction action error",
        "ntp server 192.0.2.123",
        "management api http-commands",
        "   no shutdown",
    ]
    change = Eos().diff(EOS_FACTORY_PUSHED, {RUNNING_CONFIG: EOS_DESIRED})
    assert change.payload == [*kept, *config_lines(EOS_DESIRED)]
    assert change.lines == []


SNAPSHOT = """### links
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN
2: eno1@if9: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP
4: eth0@if5: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc noqueue state UP
### addrs
2: eno1    inet 198.18.1.101/24 brd 198.18.1.255 scope global eno1\\       valid_lft forever
4: eth0    inet 198.18.0.9/31 scope global eth0\\       valid_lft forever
### rules
0:\tfrom all lookup local
1000:\tfrom 198.18.0.9 lookup 100
32766:\tfrom all lookup main
### routes
198.18.0.0/24 via 198.18.0.8 dev eth0 table 100
local 127.0.0.1 dev lo table local proto kernel scope host src 127.0.0.1
### qos eth0
Priority trust state: dscp
PFC configuration:
\tpriority    0   1   2   3   4   5   6   7
\tenabled     0   0   0   1   0   0   0   0
\tprio:0 dscp:00,01,
\tprio:3 dscp:26,
### ecn eth0 roce_np/enable/3 1
### ecn eth0 roce_np/cnp_dscp 48
### roce_mode mlx5_0
RoCE v2
### roce_tos mlx5_0
106
### tclass mlx5_0
Global tclass=106
### end
"""
DESIRED_HOST = {
    "links": [{"netdev": "eth0", "mtu": 9000, "admin": "up", "addresses": ["198.18.0.9/31"]}],
    "routing": {
        "tables": [{"table": 100, "routes": [{"destination": "198.18.0.0/24", "via": "198.18.0.8", "device": "eth0"}]}],
        "rules": [{"priority": 1000, "source": "198.18.0.9/32", "table": 100}],
    },
    "qos": [
        {
            "netdev": "eth0",
            "trust": "dscp",
            "pfc": [0, 0, 0, 1, 0, 0, 0, 0],
            "dscp_to_priority": [{"dscp": 26, "priority": 3}],
        }
    ],
    "roce": [{"rdma": "mlx5_0", "mode": "RoCE v2", "tos": 106, "traffic_class": 106}],
    "ecn": [{"netdev": "eth0", "np_priorities": [3], "rp_priorities": [], "cnp_dscp": 48, "cnp_priority": 6}],
}


def test_host_snapshot_parses_to_stable_state_and_matches_desired() -> None:
    state = parse_snapshot(SNAPSHOT)
    assert state["links"]["eth0"] == {"mtu": 9000, "admin": "up", "addresses": ["198.18.0.9/31"]}
    assert state["rules"] == ["1000:\tfrom 198.18.0.9 lookup 100"]
    assert state["routes"] == {"100": ["198.18.0.0/24 via 198.18.0.8 dev eth0"]}
    assert state["qos"]["eth0"] == {"trust": "dscp", "pfc": "0,0,0,1,0,0,0,0", "dscp": {"0": 0, "1": 0, "26": 3}}
    assert state["roce"]["mlx5_0"] == {"roce_mode": "RoCE v2", "roce_tos": "106", "tclass": "106"}
    assert state_diff(state, DESIRED_HOST, None) == []


def test_host_state_diff_names_each_difference() -> None:
    state = parse_snapshot(SNAPSHOT.replace("mtu 9000", "mtu 1500").replace("Global tclass=106", ""))
    assert state_diff(state, DESIRED_HOST, "NCCL_IB_TC=106\n") == [
        "~ eth0 mtu 1500 -> 9000",
        "~ mlx5_0 tclass unset -> 106",
        "+ /etc/xoff/nccl.env",
    ]


def test_host_snapshot_cut_short_is_an_error() -> None:
    try:
        parse_snapshot(SNAPSHOT.replace("### end\n", ""))
    except ValueError as exc:
        assert "incomplete" in str(exc)
    else:
        raise AssertionError("a truncated snapshot must not read as a state")


def test_restore_script_quotes_device_values() -> None:
    state = parse_snapshot(SNAPSHOT)
    state["nccl"] = "A=1; rm -rf /\n"
    script = restore_script(state)
    assert "rm -rf /" not in script  # the file content travels base64-encoded
    assert "run ip -4 rule add from 198.18.0.9 lookup 100 priority 1000" in script
    assert "--dscp2prio set,26,3" in script
