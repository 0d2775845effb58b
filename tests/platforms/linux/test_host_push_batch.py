"""The host push in batches (issue 14): one read, a change script of only what differs, one verify
read; round trips counted through a fake Session (what is sent, not how a host answers, is the point
here: the lab test ``tests/lab/test_host_push_batch_lab.py`` runs the scripts against the shims)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from xoff.contracts.apply import ApplyError
from xoff.platforms.linux.apply import Strategy
from xoff.platforms.linux.observe import dscp_map_text, parse_snapshot, state_diff
from xoff.platforms.linux.prereq import prereq_problems, prereq_script
from xoff.platforms.linux.restore import restore_script
from xoff.platforms.linux.writes import MARK, write_script

IN_SYNC = """### links
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000
2: eno1@if9: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default qlen 1000
4: eth0@if5: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc noqueue state UP mode DEFAULT group default qlen 1000
### addrs
2: eno1    inet 198.18.1.101/24 brd 198.18.1.255 scope global eno1\\       valid_lft forever preferred_lft forever
4: eth0    inet 198.18.0.9/31 scope global eth0\\       valid_lft forever preferred_lft forever
### rules
0:\tfrom all lookup local
1000:\tfrom 198.18.0.9 lookup 100
32766:\tfrom all lookup main
32767:\tfrom all lookup default
### routes
198.18.0.0/24 via 198.18.0.8 dev eth0 table 100
local 127.0.0.1 dev lo table local proto kernel scope host src 127.0.0.1
### qos eth0
DCBX mode: OS controlled
Priority trust state: dscp
dscp2prio mapping:
\tprio:0 dscp:00,01,02,03,04,05,06,07,
\tprio:3 dscp:26,
Cable len: 5
PFC configuration:
\tpriority    0   1   2   3   4   5   6   7
\tenabled     0   0   0   1   0   0   0   0
### ecn eth0 roce_np/enable/3 1
### ecn eth0 roce_rp/enable/3 1
### ecn eth0 roce_np/cnp_dscp 48
### ecn eth0 roce_np/cnp_802p_prio 6
### roce_mode mlx5_0
RoCE v2
### roce_tos mlx5_0
106
### tclass mlx5_0
Global tclass=106
### end
"""
# the same host at factory: netdev down at MTU 1500 without its address, no rule, trust pcp, PFC off,
# RDMA-CM ToS 0, no traffic class, DCQCN off
FACTORY = (
    IN_SYNC.replace("<BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000", "<BROADCAST,MULTICAST> mtu 1500")
    .replace("4: eth0    inet 198.18.0.9/31 scope global eth0\\       valid_lft forever preferred_lft forever\n", "")
    .replace("1000:\tfrom 198.18.0.9 lookup 100\n", "")
    .replace("198.18.0.0/24 via 198.18.0.8 dev eth0 table 100\n", "")
    .replace("Priority trust state: dscp\ndscp2prio mapping:\n\tprio:0 dscp:00,01,02,03,04,05,06,07,\n\tprio:3 dscp:26,\n",
             "Priority trust state: pcp\n")
    .replace("Cable len: 5", "Cable len: 7")
    .replace("enabled     0   0   0   1", "enabled     0   0   0   0")
    .replace("### ecn eth0 roce_np/enable/3 1", "### ecn eth0 roce_np/enable/3 0")
    .replace("### ecn eth0 roce_rp/enable/3 1", "### ecn eth0 roce_rp/enable/3 0")
    .replace("### roce_tos mlx5_0\n106", "### roce_tos mlx5_0\n0")
    .replace("Global tclass=106\n", "")
)  # fmt: skip
DSCP = [*({"dscp": d, "priority": 0} for d in range(8)), {"dscp": 26, "priority": 3}]
DESIRED: dict[str, Any] = {
    "preflight": {"tools": ["ip", "mlnx_qos"], "netdevs": ["eth0"], "rdma": ["mlx5_0"]},
    "links": [{"netdev": "eth0", "mtu": 9000, "admin": "up", "addresses": ["198.18.0.9/31"]}],
    "routing": {
        "tables": [{"table": 100, "routes": [{"destination": "198.18.0.0/24", "via": "198.18.0.8", "device": "eth0"}]}],
        "rules": [{"priority": 1000, "source": "198.18.0.9/32", "table": 100}],
    },
    "qos": [
        {"netdev": "eth0", "trust": "dscp", "pfc": [0, 0, 0, 1, 0, 0, 0, 0], "dscp_to_priority": DSCP, "cable_m": 5}
    ],
    "roce": [{"rdma": "mlx5_0", "port": 1, "mode": "RoCE v2", "mode_flag": 2, "tos": 106, "traffic_class": 106}],
    "ecn": [{"netdev": "eth0", "np_priorities": [3], "rp_priorities": [3], "cnp_dscp": 48, "cnp_priority": 6}],
    "rdma": [{"rdma": "mlx5_0", "port": 1, "link_layer": "Ethernet"}],
    "gpudirect": {"nvidia_peermem": True, "acs_disabled": True, "iommu": "passthrough"},
}
RENDERED = {"xoff-host-state.json": json.dumps(DESIRED)}
PREREQ_OK = (
    "### prereq\n### link_layer mlx5_0 1 Ethernet\n### peermem yes\n### acs read\n### iommu on\n"
    "### cmdline BOOT_IMAGE=/boot/vmlinuz ro iommu=pt\n### end\n"
)


class FakeHost:
    """A Session that answers reads with the host's current snapshot and counts every exec (round trip)."""

    def __init__(self, snapshot: str) -> None:
        self.snapshot = snapshot
        self.sent: list[str] = []

    def exec_command(self, command: str, stdin: str = "", timeout: float | None = None) -> tuple[int, str, str]:
        assert command == "bash -s" and timeout
        self.sent.append(stdin)
        if "### links" in stdin:  # a read (the verify read appends the prerequisites)
            return 0, self.snapshot + (PREREQ_OK if "### prereq" in stdin else ""), ""
        self.snapshot = IN_SYNC  # the change script ran
        return 0, "xoff-host-apply: done\n", ""


def test_a_host_already_right_costs_one_read_and_no_write() -> None:
    host, strategy = FakeHost(IN_SYNC), Strategy()
    change = strategy.diff(strategy.backup(host), RENDERED)  # type: ignore[arg-type]
    assert change.empty and change.payload == ""
    assert len(host.sent) == 1


def test_a_first_push_is_read_write_verify_in_three_round_trips() -> None:
    host, strategy = FakeHost(FACTORY), Strategy()
    backup = strategy.backup(host)  # type: ignore[arg-type]
    change = strategy.diff(backup, RENDERED)
    strategy.apply(host, change, RENDERED)  # type: ignore[arg-type]
    assert strategy.verify(host, RENDERED) == []  # type: ignore[arg-type]
    assert len(host.sent) == 3
    script = host.sent[1]
    assert script == change.payload
    # one ip batch, two mlnx_qos calls (trust apart from the DSCP map), the ToS only (the mode is right)
    assert script.count("ip -batch -") == 1
    assert [ln.strip().split(" --")[0] for ln in script.splitlines() if ln.strip().startswith("mlnx_qos")] == [
        "mlnx_qos -i eth0",
        "mlnx_qos -i eth0",
    ]
    assert "--cable_len 5 --pfc 0,0,0,1,0,0,0,0 --trust dscp" in script
    assert "cma_roce_mode" not in script.split("XOFF_IP")[-1] and "cma_roce_tos -d mlx5_0 -p 1 -t 106" in script


def test_the_change_script_writes_only_what_differs() -> None:
    drifted = parse_snapshot(IN_SYNC.replace("enabled     0   0   0   1", "enabled     0   0   0   0"))
    script = write_script(drifted, DESIRED, None).split(MARK)[1]
    calls = [ln.strip() for ln in script.splitlines() if ln.startswith("\t")]
    assert calls == ["mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0 >/dev/null"]
    assert "ip -batch" not in script and "xoff_sysfs /" not in script
    assert write_script(parse_snapshot(IN_SYNC), DESIRED, None) == ""
    # a DSCP moved under trust dscp: only that entry, and no --trust
    moved = parse_snapshot(IN_SYNC.replace("prio:3 dscp:26,", "prio:0 dscp:26,"))
    calls = [ln.strip() for ln in write_script(moved, DESIRED, None).split(MARK)[1].splitlines() if ln[:1] == "\t"]
    assert calls == ["mlnx_qos -i eth0 --dscp2prio set,26,3 >/dev/null"]


def test_extra_addresses_routes_and_rules_are_removed_in_the_same_batch() -> None:
    extra = parse_snapshot(
        IN_SYNC.replace("### rules\n", "### rules\n999:\tfrom 198.18.0.7 lookup 100\n")
        .replace("### routes\n", "### routes\n10.9.0.0/16 via 198.18.0.8 dev eth0 table 100\n")
        .replace("### rules", "4: eth0    inet 198.18.7.1/24 scope global eth0\\       valid_lft forever\n### rules")
    )
    batch = write_script(extra, DESIRED, None).split("ip -batch - <<'XOFF_IP'\n")[1].split("XOFF_IP")[0]
    assert batch.splitlines() == [
        "addr del 198.18.7.1/24 dev eth0",
        "route del 10.9.0.0/16 table 100",
        "rule del priority 999 table 100",
    ]


def test_a_missing_netdev_is_refused_before_anything_is_sent() -> None:
    host, strategy = FakeHost(FACTORY.replace("4: eth0@if5", "4: eth9@if5")), Strategy()
    with pytest.raises(ApplyError, match="no network device eth0"):
        strategy.diff(strategy.backup(host), RENDERED)  # type: ignore[arg-type]
    assert len(host.sent) == 1


def test_verify_names_a_value_still_wrong_and_a_prerequisite_missing() -> None:
    strategy = Strategy()
    host = FakeHost(IN_SYNC.replace("### roce_tos mlx5_0\n106", "### roce_tos mlx5_0\n0"))
    assert strategy.verify(host, RENDERED) == ["~ mlx5_0 roce_tos 0 -> 106"]  # type: ignore[arg-type]
    facts = PREREQ_OK.replace("peermem yes", "peermem no").replace("acs read\n", "acs read\n### acs_on 00:01.1\n")
    assert prereq_problems(facts, DESIRED) == [
        "gpudirect: nvidia-peermem not loaded (no /sys/module/nvidia_peermem; modprobe nvidia-peermem)",
        "gpudirect: ACS enabled on PCI bridge 00:01.1 (ACSCtl SrcValid+)",
    ]
    no_pt = PREREQ_OK.replace(" iommu=pt", "").replace("link_layer mlx5_0 1 Ethernet", "link_layer mlx5_0 1 InfiniBand")
    assert prereq_problems(no_pt, DESIRED) == [
        "rdma: mlx5_0 port 1 link_layer InfiniBand, want Ethernet",
        "gpudirect: IOMMU translates DMA: no iommu=pt in /proc/cmdline",
    ]
    assert prereq_script(DESIRED).endswith("echo '### end'\n")


@pytest.mark.parametrize(
    ("have", "line"),
    [
        ({}, "~ eth0 dscp->priority: 0-25,27-47,49-63 -> 0; 26 -> 3; 48 -> 6 (was unset)"),
        (
            {str(d): d >> 3 for d in range(64)},  # the firmware map --trust dscp installs
            "~ eth0 dscp->priority: 8-25,27-47,49-63 -> 0 "
            "(was 8-15 -> 1; 16-23 -> 2; 24-25,27-31 -> 3; 32-39 -> 4; 40-47 -> 5; 49-55 -> 6; 56-63 -> 7)",
        ),
        ({**{str(d): 0 for d in range(64)}, "26": 0}, "~ eth0 dscp->priority: 26 -> 3; 48 -> 6 (was all 0)"),
    ],
)
def test_the_dry_run_diff_shows_the_new_dscp_map(have: dict[str, int], line: str) -> None:
    want = {d: 3 if d == 26 else 6 if d == 48 else 0 for d in range(64)}
    desired = {"qos": [{"netdev": "eth0", "trust": "dscp", "pfc": [0] * 8,
                        "dscp_to_priority": [{"dscp": d, "priority": p} for d, p in want.items()]}]}  # fmt: skip
    observed = {"links": {}, "routes": {}, "rules": [], "roce": {}, "ecn": {}, "nccl": None,
                "qos": {"eth0": {"trust": "dscp", "pfc": "0,0,0,0,0,0,0,0", "dscp": have}}}  # fmt: skip
    assert state_diff(observed, desired, None) == [line]
    assert dscp_map_text({0: 1, 1: 1, 2: 1, 5: 1}) == "0-2,5 -> 1"


def test_the_restore_sets_a_nics_qos_in_two_calls() -> None:
    script = restore_script(parse_snapshot(IN_SYNC))
    assert [ln for ln in script.splitlines() if "mlnx_qos" in ln] == [
        "run mlnx_qos -i eth0 --cable_len 5 --pfc 0,0,0,1,0,0,0,0 --trust dscp",
        "run mlnx_qos -i eth0 --dscp2prio flush"
        + "".join(f" --dscp2prio set,{d},0" for d in range(8))
        + " --dscp2prio set,26,3",
    ]
