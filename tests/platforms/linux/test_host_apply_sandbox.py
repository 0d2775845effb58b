"""xoff-host-apply.sh run for real, against fake ConnectX tools and a sysfs/procfs/etc tree under
XOFF_HOST_ROOT (host_sandbox.py). A unit-level stand-in for real hosts: the first run makes exactly the
expected changes, the second makes none, --check exits 0 when in sync and 1 naming what drifted, the
verified-only prerequisites are reported and never changed, and a missing device stops before any change."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from tests.support.host_sandbox import Sandbox
from tests.support.paths import ROOT
from tests.support.rail_netns import GPU1_IP_STEPS
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.platforms.linux.render import APPLY_SCRIPT, NCCL_ENV, render

INVENTORY = ROOT / "inventory"

# lab-mini gpu1 from factory state (see host_sandbox.py), in script order
# The whole DSCP map is set (all 64, as on the switches): from mlnx_qos's default DSCP >> 3 (eth1 has
# DSCP 48 drifted to priority 5 in the sandbox) to the policy's map: compute/rdma sends 26 -> 3 and
# 48 -> 6, everything else -> 0; storage sends 18 -> 4 and 48 -> 6, everything else -> 0.
_WANT = {"eth0": {26: 3, 48: 6}, "eth1": {26: 3, 48: 6}, "eth2": {18: 4, 48: 6}}
_HAVE = {"eth0": {}, "eth1": {48: 5}, "eth2": {}}
DSCP = {
    nic: [
        f"{nic} dscp {d} priority {_HAVE[nic].get(d, d >> 3)} -> {_WANT[nic].get(d, 0)}"
        for d in range(64)
        if _HAVE[nic].get(d, d >> 3) != _WANT[nic].get(d, 0)
    ]
    for nic in _WANT
}


def _unknown(nic: str) -> list[str]:
    """--check while trust is pcp: mlnx_qos hides the DSCP map, so every entry reads as unknown."""
    return [f"{nic} dscp {d} priority unknown -> {_WANT[nic].get(d, 0)}" for d in range(64)]


GPU1_FIRST_RUN = [
    *GPU1_IP_STEPS,  # iproute2 first, then the NIC tools
    "eth0 trust pcp -> dscp",
    "eth0 pfc 0,0,0,0,0,0,0,0 -> 0,0,0,1,0,0,0,0",
    *DSCP["eth0"],
    "eth0 cable_len 7 -> 5",  # the NIC's headroom sized for the host link's length (firmware default 7 m)
    "eth1 pfc 0,0,0,0,0,0,0,0 -> 0,0,0,1,0,0,0,0",  # eth1 already trusts dscp (below)
    *DSCP["eth1"],
    "eth1 cable_len 7 -> 5",
    "eth2 trust pcp -> dscp",
    "eth2 pfc 0,0,0,0,0,0,0,0 -> 0,0,0,0,1,0,0,0",
    *DSCP["eth2"],
    "eth2 cable_len 7 -> 5",
    "mlx5_0 port 1 roce_mode IB/RoCE v1 -> RoCE v2",
    "mlx5_0 port 1 roce_tos 0 -> 106",
    "mlx5_0 tc/1 traffic_class unset -> 106",
    "mlx5_1 port 1 roce_mode IB/RoCE v1 -> RoCE v2",
    "mlx5_1 port 1 roce_tos 0 -> 106",
    "mlx5_1 tc/1 traffic_class unset -> 106",
    "mlx5_2 port 1 roce_mode IB/RoCE v1 -> RoCE v2",
    "mlx5_2 port 1 roce_tos 0 -> 74",
    "mlx5_2 tc/1 traffic_class unset -> 74",
    "eth0 ecn roce_np priority 3 0 -> 1",
    "eth0 ecn roce_rp priority 3 0 -> 1",
    "eth1 ecn roce_np priority 3 0 -> 1",
    "eth1 ecn roce_rp priority 3 0 -> 1",
    "eth1 ecn roce_np cnp_dscp 26 -> 48",  # drifted in the sandbox (below)
    "eth2 ecn roce_np priority 4 0 -> 1",
    "eth2 ecn roce_rp priority 4 0 -> 1",
    "/etc/xoff/nccl.env (new)",
]


@cache
def fabric(example: str) -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / example))


def sandbox(tmp_path: Path, example: str, device: str, tools: tuple[str, ...] | None = None) -> Sandbox:
    state = fabric(example)
    script = render(state.devices[device], state)[APPLY_SCRIPT]
    return Sandbox(tmp_path, state.devices[device], script, *(() if tools is None else (tools,)))


@pytest.fixture(scope="module")
def gpu1_factory(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    """lab-mini gpu1, factory state plus: eth1 already trusts dscp with DSCP 48 moved to priority 5,
    eth1's CNP DSCP was changed to 26, and eth2's driver has no CNP sysfs files."""
    box = sandbox(tmp_path_factory.mktemp("gpu1") / "box", "lab-mini", "gpu1")
    box.tool("mlnx_qos", "-i", "eth1", "--trust", "dscp")
    box.tool("mlnx_qos", "-i", "eth1", "--dscp2prio", "set,48,5")
    box.file("/sys/class/net/eth1/ecn/roce_np/cnp_dscp").write_text("26\n", encoding="utf-8")
    box.file("/sys/class/net/eth2/ecn/roce_np/cnp_dscp").unlink()
    box.file("/sys/class/net/eth2/ecn/roce_np/cnp_802p_prio").unlink()
    box.forget_calls()
    return box


@pytest.fixture(scope="module")
def gpu1_applied(gpu1_factory: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    box = gpu1_factory.copy(tmp_path_factory.mktemp("gpu1-applied") / "box")
    run = box.run()
    assert run.rc == 0, run
    box.forget_calls()
    return box


@pytest.fixture
def gpu1(gpu1_factory: Sandbox, tmp_path: Path) -> Sandbox:
    """A copy of the factory-state gpu1 for one test."""
    return gpu1_factory.copy(tmp_path / "box")


@pytest.fixture
def applied(gpu1_applied: Sandbox, tmp_path: Path) -> Sandbox:
    """A copy of gpu1 after one apply, for one test."""
    return gpu1_applied.copy(tmp_path / "box")


def test_first_run_changes_exactly_what_differs_then_nothing(gpu1: Sandbox) -> None:
    first = gpu1.run()
    assert first.rc == 0, first
    assert first.changed == GPU1_FIRST_RUN, first
    assert first.lines[-1] == f"xoff-host-apply: {len(GPU1_FIRST_RUN)} changes"
    assert first.problems == [] and first.stderr == ""

    # the host now holds the rendered values
    host = fabric("lab-mini").devices["gpu1"].host
    assert host is not None
    st = gpu1.state()
    for name, nic in host.nics.items():
        link = st["links"][name]
        assert (link["mtu"], link["up"], link["addrs"]) == (nic.mtu, True, [nic.address])
        qos = st["qos"][name]
        assert (qos["trust"], qos["pfc"]) == (nic.trust, nic.pfc)
        assert all(qos["dscp2prio"][str(d)] == p for d, p in nic.dscp_to_priority.items())
        assert st["rdma_cm"][nic.rdma]["1"] == {"mode": "RoCE v2", "tos": nic.roce_tos}
        tclass = gpu1.file(f"/sys/class/infiniband/{nic.rdma}/tc/1/traffic_class").read_text(encoding="utf-8")
        assert tclass == f"Global tclass={nic.roce_tos}\n"
        for prio in range(8):
            want = "1\n" if prio in nic.ecn_np_priorities else "0\n"
            assert gpu1.file(f"/sys/class/net/{name}/ecn/roce_np/enable/{prio}").read_text(encoding="utf-8") == want
            assert gpu1.file(f"/sys/class/net/{name}/ecn/roce_rp/enable/{prio}").read_text(encoding="utf-8") == want
    assert st["links"]["eno1"]["mtu"] == 1500  # the management port is not the script's
    assert {t: [(r["dst"], r["via"], r["dev"]) for r in rs] for t, rs in st["routes"].items()} == {
        str(r.table): [(x.destination, x.via, x.device) for x in host.routes if x.table == r.table] for r in host.routes
    }
    assert sorted((r["priority"], r["from"], r["table"]) for r in st["rules"]) == [
        (r.priority, r.source.removesuffix("/32"), str(r.table)) for r in host.rules
    ]
    assert gpu1.file("/sys/class/net/eth1/ecn/roce_np/cnp_dscp").read_text(encoding="utf-8") == "48\n"
    nccl = render(fabric("lab-mini").devices["gpu1"], fabric("lab-mini"))[NCCL_ENV]
    assert gpu1.file("/etc/xoff/nccl.env").read_text(encoding="utf-8") == nccl
    assert gpu1.file("/etc/xoff/nccl.env").stat().st_mode & 0o777 == 0o644

    # second run: in sync, and it only read
    calls = len(gpu1.calls())
    second = gpu1.run()
    assert (second.rc, second.stdout) == (0, "xoff-host-apply: 0 changes\n"), second
    assert gpu1.mutating_calls(since=calls) == []
    assert len(gpu1.calls()) > calls  # it did read every value again


def test_check_exits_0_in_sync_and_1_naming_a_flipped_value(applied: Sandbox) -> None:
    ok = applied.run("--check")
    assert (ok.rc, ok.stdout) == (0, "xoff-host-apply --check: 0 differences (0 to change, 0 problems)\n"), ok

    applied.tool("mlnx_qos", "-i", "eth0", "--trust", "pcp")  # someone puts trust back to pcp
    before = applied.state()
    calls = len(applied.calls())
    drift = applied.run("--check")
    assert drift.rc == 1, drift
    # with trust pcp mlnx_qos hides the DSCP map, so those entries read as unknown
    assert drift.would == ["eth0 trust pcp -> dscp", *_unknown("eth0")], drift
    assert drift.lines[-1] == "xoff-host-apply --check: 65 differences (65 to change, 0 problems)"
    assert applied.state() == before and applied.mutating_calls(since=calls) == []  # --check changed nothing

    fixed = applied.run()
    # the fake mlnx_qos, like a driver reload, falls back to the default DSCP >> 3 map with trust pcp
    assert (fixed.rc, fixed.changed) == (0, ["eth0 trust pcp -> dscp", *DSCP["eth0"]]), fixed
    assert applied.run("--check").rc == 0

    # a sysfs knob and a file drift the same way
    applied.file("/sys/class/net/eth2/ecn/roce_rp/enable/4").write_text("0\n", encoding="utf-8")
    applied.file("/etc/xoff/nccl.env").write_text("NCCL_IB_HCA=mlx5\n", encoding="utf-8")
    drift = applied.run("--check")
    assert (drift.rc, drift.would) == (1, ["eth2 ecn roce_rp priority 4 0 -> 1", "/etc/xoff/nccl.env content"]), drift


def test_check_before_apply_predicts_the_changes_and_changes_nothing(gpu1: Sandbox) -> None:
    before = gpu1.state()
    check = gpu1.run("--check")
    assert check.rc == 1
    assert gpu1.state() == before and gpu1.mutating_calls() == []
    assert not gpu1.file("/etc/xoff").exists()
    # the same list as the apply, except that the DSCP map cannot be read while trust is pcp
    unknown = [w for w in check.would if " priority unknown -> " in w]
    assert unknown == [*_unknown("eth0"), *_unknown("eth2")]
    assert [w for w in check.would if w not in unknown] == [
        c for c in GPU1_FIRST_RUN if " dscp " not in c or c.startswith("eth1 ")
    ]


def test_strays_on_the_rails_are_removed(applied: Sandbox) -> None:
    st = applied.state()
    st["links"]["eth0"]["addrs"].append("10.9.9.9/24")
    st["routes"]["100"].append({"dst": "10.50.0.0/16", "via": "198.18.0.8", "dev": "eth0"})
    st["rules"].append({"priority": 999, "from": "198.18.0.11", "table": "101"})  # into a rail table
    st["rules"].append({"priority": 500, "from": "10.1.1.1", "table": "200"})  # not a rail table: kept
    st["rules"] = [r for r in st["rules"] if r["priority"] != 1002]
    st["rules"].append({"priority": 1002, "from": "198.19.0.99", "table": "102"})  # wrong source
    applied.save(st)
    run = applied.run()
    assert run.rc == 0, run
    assert run.changed == [
        "eth0 address - 10.9.9.9/24",
        "table 100 route - 10.50.0.0/16",
        "rule 1002 from 198.19.0.1/32 lookup 102 (was: from 198.19.0.99 lookup 102)",
        "rule - 999 from 198.18.0.11 lookup 101",
    ], run
    rules = {(r["priority"], r["from"], r["table"]) for r in applied.state()["rules"]}
    assert (500, "10.1.1.1", "200") in rules and (1002, "198.19.0.1", "102") in rules
    assert applied.run().stdout == "xoff-host-apply: 0 changes\n"


def test_gpudirect_is_verified_never_changed(applied: Sandbox) -> None:
    applied.file("/sys/module/nvidia_peermem").rmdir()
    st = applied.state()
    st["pci"][0]["acs"] = "SrcValid+"
    applied.save(st)
    applied.file("/proc/cmdline").write_text("BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on\n", encoding="utf-8")
    expected = [
        "gpudirect: nvidia-peermem not loaded (no /sys/module/nvidia_peermem; modprobe nvidia-peermem)",
        "gpudirect: ACS enabled on PCI bridge 00:01.1 (ACSCtl SrcValid+)",
        "gpudirect: IOMMU translates DMA: no iommu=pt in /proc/cmdline",
    ]
    calls = len(applied.calls())
    check = applied.run("--check")
    assert (check.rc, check.problems, check.would) == (1, expected, []), check
    assert check.lines[-1] == "xoff-host-apply --check: 3 differences (0 to change, 3 problems)"
    apply = applied.run()
    assert (apply.rc, apply.problems, apply.changed) == (1, expected, []), apply
    assert apply.lines[-2:] == [
        "xoff-host-apply: 3 problems (verified only, not changed)",
        "xoff-host-apply: 0 changes",
    ]
    assert applied.mutating_calls(since=calls) == []  # in particular no modprobe
    assert not applied.file("/sys/module/nvidia_peermem").exists()

    # no IOMMU active at all is as good as passthrough; lspci missing is a problem, not a pass
    applied.file("/sys/class/iommu/dmar0").rmdir()
    (applied.bin / "lspci").unlink()
    check = applied.run("--check")
    assert check.problems == [expected[0], "gpudirect: cannot check ACS: lspci not found"], check


def test_link_layer_is_verified(applied: Sandbox) -> None:
    applied.file("/sys/class/infiniband/mlx5_1/ports/1/link_layer").write_text("InfiniBand\n", encoding="utf-8")
    check = applied.run("--check")
    assert (check.rc, check.problems) == (1, ["rdma: mlx5_1 port 1 link_layer InfiniBand, want Ethernet"]), check


def test_missing_device_or_tool_stops_before_any_change(gpu1: Sandbox) -> None:
    st = gpu1.state()
    del st["links"]["eth1"]
    gpu1.save(st)
    (gpu1.bin / "cma_roce_tos").unlink()
    run = gpu1.run()
    assert run.rc == 2, run
    assert run.stdout == ""
    assert run.stderr.splitlines() == [
        "xoff-host-apply: cma_roce_tos not found in PATH",
        "xoff-host-apply: no network device eth1",
        "xoff-host-apply: 2 missing, nothing changed",
    ]
    assert gpu1.mutating_calls() == [] and not gpu1.file("/etc/xoff").exists()


def test_a_failing_command_stops_with_status_3(gpu1: Sandbox) -> None:
    st = gpu1.state()
    del st["qos"]["eth1"]  # mlnx_qos -i eth1 fails
    gpu1.save(st)
    run = gpu1.run()
    assert run.rc == 3, run
    assert "xoff-host-apply: failed (line " in run.stderr and "mlnx_qos -i" in run.stderr
    assert "changed: eth1 trust" not in run.stdout


def test_a_failing_change_stops_with_status_3(gpu1: Sandbox) -> None:
    st = gpu1.state()
    st["fail"] = ["mlnx_qos -i eth1 --pfc"]
    gpu1.save(st)
    run = gpu1.run()
    assert run.rc == 3, run
    assert run.stderr.splitlines()[-1] == (
        "xoff-host-apply: could not change eth1 pfc 0,0,0,0,0,0,0,0 -> 0,0,0,1,0,0,0,0 "
        "(mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0)"
    )
    assert run.changed[-2:] == [DSCP["eth0"][-1], "eth0 cable_len 7 -> 5"]  # what came before (eth0) stays done


def test_bad_argument_is_refused(gpu1: Sandbox) -> None:
    run = gpu1.run("--force")
    assert (run.rc, run.stdout) == (2, ""), run
    assert run.stderr == "xoff-host-apply: unknown argument '--force' (allowed: --check)\n"
    assert gpu1.run("--help").stdout.startswith("usage: xoff-host-apply.sh [--check]")


def test_infiniband_only_host_needs_no_ethernet_tools(tmp_path: Path) -> None:
    """ib-pod sm01: only lspci and modprobe fakes on PATH (no ip, mlnx_qos, cma_*): installs nccl.env,
    verifies the HCA's link layer."""
    box = sandbox(tmp_path, "ib-pod", "sm01", tools=("lspci", "modprobe"))
    first = box.run()
    assert (first.rc, first.changed) == (0, ["/etc/xoff/nccl.env (new)"]), first
    assert "NCCL_IB_SL=0\n" in box.file("/etc/xoff/nccl.env").read_text(encoding="utf-8")
    assert box.run("--check").rc == 0
    box.file("/sys/class/infiniband/mlx5_0/ports/1/link_layer").write_text("Ethernet\n", encoding="utf-8")
    check = box.run("--check")
    assert (check.rc, check.problems) == (1, ["rdma: mlx5_0 port 1 link_layer Ethernet, want InfiniBand"]), check
    assert box.calls() == []


@pytest.mark.parametrize(("example", "device"), [("ib-pod", "gpu01"), ("roce-pod", "fs01")])
def test_other_host_shapes_converge(tmp_path: Path, example: str, device: str) -> None:
    """A mixed IB-compute/RoCE-storage GPU host and a storage target: apply, then in sync."""
    box = sandbox(tmp_path, example, device)
    first = box.run()
    assert first.rc == 0 and first.changed, first
    state = box.state()
    host = fabric(example).devices[device].host
    assert host is not None
    roce = [n for n in host.nics.values() if n.roce_mode]
    assert sorted(state["qos"]) == sorted(n.netdev for n in roce)
    assert all(state["qos"][n.netdev]["pfc"] == n.pfc for n in roce)
    assert box.run("--check").stdout == "xoff-host-apply --check: 0 differences (0 to change, 0 problems)\n"
    doc = json.loads(render(fabric(example).devices[device], fabric(example))["xoff-host-state.json"])
    assert [q["netdev"] for q in doc["qos"]] == [n.netdev for n in roce]
