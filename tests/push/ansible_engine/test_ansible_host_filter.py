"""The host filters the Linux tasks use are the Nornir host strategy's own steps: the same snapshot
and restore scripts, the same backup text, diff, verify and rollback judgement, and a rollback that
does not verify names the values that differ."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from ansible.errors import AnsibleFilterError

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.platforms.linux import apply, observe, restore
from xoff.render import render_fabric

PLUGIN = ROOT / "playbooks" / "filter_plugins" / "host_state.py"

# what the snapshot script prints on a factory lab-mini gpu1 (rails up at MTU 1500, no address)
SNAPSHOT = """### links
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000
2: eth0@if7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default qlen 1000
### addrs
### rules
0:\tfrom all lookup local
32766:\tfrom all lookup main
32767:\tfrom all lookup default
### routes
local 127.0.0.1 dev lo table local proto kernel scope host src 127.0.0.1
### end
"""


def _plugin() -> ModuleType:
    spec = importlib.util.spec_from_file_location("xoff_host_state_filter", PLUGIN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def filters() -> dict[str, Any]:
    found: dict[str, Any] = _plugin().FilterModule().filters()
    return found


def _ok(stdout: str) -> dict[str, Any]:
    return {"rc": 0, "stdout": stdout, "stderr": ""}


def test_backup_is_the_nornir_strategys_snapshot(filters: dict[str, Any]) -> None:
    backup = filters["xoff_host_backup"](_ok(SNAPSHOT))
    assert backup == observe.dumps(observe.parse_snapshot(SNAPSHOT))
    assert json.loads(backup)["links"] == {"eth0": {"mtu": 1500, "admin": "up", "addresses": []}}
    assert filters["xoff_host_script"]("snapshot") == observe.SNAPSHOT_SCRIPT
    assert filters["xoff_host_script"]("restore", backup) == restore.restore_script(json.loads(backup))


def test_a_snapshot_cut_short_or_failed_is_an_error(filters: dict[str, Any]) -> None:
    with pytest.raises(AnsibleFilterError, match="incomplete"):
        filters["xoff_host_backup"](_ok(SNAPSHOT.replace("### end\n", "")))
    with pytest.raises(AnsibleFilterError, match=r"reading the host state failed \(255\): ssh: gone"):
        filters["xoff_host_backup"]({"rc": 255, "stdout": "", "stderr": "ssh: gone\n"})
    with pytest.raises(AnsibleFilterError, match="unknown script"):
        filters["xoff_host_script"]("restore")


def test_diff_and_verify_are_the_strategys(filters: dict[str, Any], tmp_path: Path) -> None:
    fabric = build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))
    desired = {f.name: f.content for f in render_fabric(fabric, ["gpu1"])}
    folder = tmp_path / "gpu1"
    folder.mkdir()
    for name, text in desired.items():
        (folder / name).write_text(text, encoding="utf-8")
    backup = filters["xoff_host_backup"](_ok(SNAPSHOT))
    lines = filters["xoff_host_diff"](backup, str(folder))
    assert lines == apply.changes(backup, desired) and len(lines) > 5
    assert filters["xoff_host_diff"](json.loads(backup), str(folder)) == lines, "a fact read back as JSON"
    # the change script needs every rendered netdev and RDMA device in the read
    whole = json.loads(backup)
    whole["links"].update({n: {"mtu": 1500, "admin": "up", "addresses": []} for n in ("eth1", "eth2")})
    whole["roce"] = {f"mlx5_{i}": {"roce_mode": "RoCE v2", "roce_tos": "0", "tclass": ""} for i in range(3)}
    whole_backup = observe.dumps(whole)
    change = filters["xoff_host_change"](whole_backup, str(folder))
    assert filters["xoff_host_diff"](whole_backup, str(folder)) == apply.Strategy("t").diff(whole_backup, desired).lines
    assert change == apply.Strategy("t").diff(whole_backup, desired).payload and "ip -batch -" in change
    with pytest.raises(AnsibleFilterError, match="no network device eth1"):
        filters["xoff_host_change"](backup, str(folder))
    verify = filters["xoff_host_script"]("verify", str(folder))
    assert verify == apply.verify_script(desired) and verify.startswith(observe.SNAPSHOT_SCRIPT)
    # the verify read: the same state, and the prerequisites' facts after it (here: nothing read)
    problems = filters["xoff_host_verify"](_ok(SNAPSHOT + "### prereq\n### end\n"), str(folder))
    assert problems == apply.verify_problems(0, SNAPSHOT + "### prereq\n### end\n", "", desired)
    assert problems[: len(lines)] == lines
    assert "gpudirect: nvidia-peermem not loaded (no /sys/module/nvidia_peermem; modprobe nvidia-peermem)" in problems
    with pytest.raises(AnsibleFilterError, match="no rendered files"):
        filters["xoff_host_diff"](backup, str(tmp_path / "gpu9"))


def test_rollback_verified_or_named_value_by_value(filters: dict[str, Any]) -> None:
    backup = filters["xoff_host_backup"](_ok(SNAPSHOT))
    assert filters["xoff_host_rollback_mismatches"](_ok(SNAPSHOT), backup) == []
    drifted = SNAPSHOT.replace("mtu 1500", "mtu 9000").replace(
        "### addrs\n", "### addrs\n2: eth0    inet 198.18.0.9/31\n"
    )
    assert filters["xoff_host_rollback_mismatches"](_ok(drifted), backup) == [
        'links differs from the backup: links.eth0.addresses is ["198.18.0.9/31"], backup []; '
        "links.eth0.mtu is 9000, backup 1500"
    ]


def test_a_failed_script_reads_as_with_nornir(filters: dict[str, Any]) -> None:
    """The script's own last message, even when the failed command's arguments span lines after it."""
    result = {"rc": 3, "stdout": "changed: a\n", "stderr": "xoff-host-apply: could not change f (put f line1\nline2)\n"}
    assert filters["xoff_host_failure"](result, "xoff-host-apply.sh") == (
        "xoff-host-apply.sh exit 3: xoff-host-apply: could not change f (put f line1"
    )
    restore_failed = {"rc": 1, "stdout": "", "stderr": "RTNETLINK answers: File exists\nrestore: failed: ip addr add\n"}
    assert filters["xoff_host_failure"](restore_failed, "restore script") == (
        "restore script exit 1: restore: failed: ip addr add"
    )
