"""A NIC whose profile turns DCQCN off (pfc-only): the batch push writes 0 to every priority still on, the dry-run
diff says so, and a NIC already off needs nothing."""

from __future__ import annotations

from typing import Any

from tests.platforms.linux.test_host_push_batch import DESIRED, IN_SYNC
from xoff.platforms.linux.observe import parse_snapshot, state_diff
from xoff.platforms.linux.writes import MARK, write_script

OFF: dict[str, Any] = {
    **DESIRED,
    "ecn": [
        {
            "netdev": "eth0",
            "np_priorities": [],
            "rp_priorities": [],
            "off_priorities": list(range(8)),
            "cnp_dscp": 48,
            "cnp_priority": 6,
        }
    ],
}


def test_the_batch_turns_dcqcn_off_where_it_is_on() -> None:
    script = write_script(parse_snapshot(IN_SYNC), OFF, None).split(MARK)[1]
    writes = [ln.strip() for ln in script.splitlines() if "xoff_sysfs /sys/class/net/eth0/ecn" in ln]
    assert writes == [
        "xoff_sysfs /sys/class/net/eth0/ecn/roce_np/enable/3 0",
        "xoff_sysfs /sys/class/net/eth0/ecn/roce_rp/enable/3 0",
    ]
    assert state_diff(parse_snapshot(IN_SYNC), OFF, None) == [
        "~ eth0 ecn roce_np priority 3 -> 0",
        "~ eth0 ecn roce_rp priority 3 -> 0",
    ]


def test_a_nic_already_off_needs_nothing() -> None:
    off = IN_SYNC.replace("roce_np/enable/3 1", "roce_np/enable/3 0").replace(
        "roce_rp/enable/3 1", "roce_rp/enable/3 0"
    )
    assert state_diff(parse_snapshot(off), OFF, None) == []
    assert "ecn/roce" not in write_script(parse_snapshot(off), OFF, None)


def test_a_policy_with_no_cnp_class_leaves_the_cnp_settings_alone() -> None:
    """pfc-only with no CNP class (Meta's): nothing names a CNP DSCP or priority, so the firmware's 48/6 stay, and
    neither the write nor the verify after it asks for them to change (the verify once wanted 48 -> None)."""
    off = IN_SYNC.replace("roce_np/enable/3 1", "roce_np/enable/3 0").replace(
        "roce_rp/enable/3 1", "roce_rp/enable/3 0"
    )
    no_cnp = {**OFF, "ecn": [{**OFF["ecn"][0], "cnp_dscp": None, "cnp_priority": None}]}
    assert state_diff(parse_snapshot(off), no_cnp, None) == []
    assert "ecn/roce" not in write_script(parse_snapshot(off), no_cnp, None)
