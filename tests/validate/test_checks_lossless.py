"""Each built-in check: one passing fabric, and at least one failing case that it must catch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.models import Ecn
from xoff.intent import load_intent
from xoff.validate import CHECKS, Check, Status, register, run_checks
from xoff.validate.context import CheckContext
from xoff.validate.registry import Registry

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"


def _plan(tmp_path: Path, *edits: tuple[str, str]) -> FabricState:
    text = MINIMAL.read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "intent.yaml"
    path.write_text(text)
    return build_fabric_state(load_intent(path))


def _replace_iface(state: FabricState, device: str, port: str, **changes: Any) -> FabricState:
    dev = state.devices[device]
    iface = dev.interfaces[port].model_copy(update=changes)
    dev = dev.model_copy(update={"interfaces": {**dev.interfaces, port: iface}})
    return state.model_copy(update={"devices": {**state.devices, device: dev}})


def _replace_device(state: FabricState, device: str, **changes: Any) -> FabricState:
    dev = state.devices[device].model_copy(update=changes)
    return state.model_copy(update={"devices": {**state.devices, device: dev}})


def _replace_qos(state: FabricState, device: str, **changes: Any) -> FabricState:
    qos = state.devices[device].qos
    assert qos is not None
    return _replace_device(state, device, qos=qos.model_copy(update=changes))


def _replace_host(state: FabricState, device: str, **changes: Any) -> FabricState:
    host = state.devices[device].host
    assert host is not None
    return _replace_device(state, device, host=host.model_copy(update=changes))


def _shrink_profile(state: FabricState, device: str, name: str, **changes: Any) -> FabricState:
    buffers = state.devices[device].buffers
    assert buffers is not None
    profiles = {**buffers.profiles, name: buffers.profiles[name].model_copy(update=changes)}
    return _replace_device(state, device, buffers=buffers.model_copy(update={"profiles": profiles}))


def _replace_nic(state: FabricState, device: str, nic: str, **changes: Any) -> FabricState:
    host = state.devices[device].host
    assert host is not None
    nics = {**host.nics, nic: host.nics[nic].model_copy(update=changes)}
    return _replace_host(state, device, nics=nics)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> FabricState:
    return _plan(tmp_path_factory.mktemp("clean"))


def _lossless_ids() -> list[str]:
    """The checks of this module (deadlock.cbd registers itself when imported: tests/deadlock/routing)."""
    return [i for i in CHECKS.ids() if i.startswith("lossless.")]


def test_every_check_passes_on_the_clean_fabric(clean: FabricState) -> None:
    """Checks of the desired state pass; those that need an observed snapshot are skipped, saying why."""
    results = run_checks(clean)
    # the pfc-only / ecn-only checks are skipped on a dcqcn fabric (tests/validate/test_profile_checks.py)
    profile_only = {i for i in _lossless_ids() if CHECKS.get(i).__module__.endswith(".checks.profiles")}
    assert {r.id: r.status for r in results if r.id.startswith("lossless.")} == {
        i: Status.SKIPPED if i in profile_only else Status.SUCCESS for i in _lossless_ids()
    }
    assert not [r for r in results if r.status not in (Status.SUCCESS, Status.SKIPPED)]
    offline = [i for i in CHECKS.ids() if "observed" not in CHECKS.get(i).needs]
    assert all(r.status is Status.SKIPPED and r.message for r in results if r.id not in offline)


Mutation = Callable[[FabricState, Path], FabricState]

CASES: list[tuple[str, Mutation, str]] = [
    (
        "lossless.pfc_symmetry",
        lambda s, _: _replace_iface(s, "leaf1", "Ethernet32", pfc_priorities=[3, 4]),
        "spine1: Ethernet0 - PFC priorities differ from leaf1:Ethernet32 - Expected: [3, 4] Actual: [3]",
    ),
    (
        "lossless.pfc_symmetry",  # host side: a NIC with PFC off toward a lossless leaf port
        lambda s, _: _replace_iface(s, "gpu1", "eth0", pfc_priorities=[]),
        "leaf1: Ethernet0 - PFC priorities differ from gpu1:eth0 - Expected: [] Actual: [3]",
    ),
    (
        "lossless.link_mtu",
        lambda s, _: _replace_iface(s, "spine1", "Ethernet0", mtu=9000),
        "spine1: Ethernet0 - MTU differs from leaf1:Ethernet32 - Expected: 9100 Actual: 9000",
    ),
    (
        "lossless.link_mtu",
        lambda _, t: _plan(t, ("    switch_mtu: 9100\n", "    switch_mtu: 4000\n")),
        "leaf1: Ethernet0 - MTU below host gpu1:eth0 - Expected: >= 9000 Actual: 4000",
    ),
    (
        "lossless.host_mtu",
        lambda _, t: _plan(t, ("    host_mtu: 9000\n", "    host_mtu: 1500\n")),
        "gpu1: eth0 - netdev MTU gives RoCE MTU 1024 - Expected: >= 4192 Actual: 1500",
    ),
    (
        "lossless.ecn_on_lossless_queues",
        lambda _, t: _plan(t, ("        ecn: {min_threshold: 150000, max_threshold: 1500000}\n", "")),
        "spine1: queue 3 - lossless class roce has no ECN - Expected: ECN on Actual: off",
    ),
    (
        "lossless.pfc_watchdog",
        lambda _, t: _plan(
            t, ("pfc_watchdog: {poll_interval_ms: 200,", "pfc_watchdog: {enabled: false, poll_interval_ms: 200,")
        ),
        "spine1: pfc watchdog - not configured on ports with PFC - Expected: enabled Actual: disabled",
    ),
    (
        "lossless.pfc_watchdog",
        lambda _, t: _plan(t, ("restoration_ms: 800}", "restoration_ms: 800, action: forward}")),
        "spine1: pfc watchdog - action does not break a storm - Expected: drop Actual: forward",
    ),
    (
        "lossless.cnp_strict",
        lambda _, t: _plan(t, ("        scheduler: {type: strict}\n", "        scheduler: {type: dwrr, weight: 10}\n")),
        "spine1: queue 6 - CNP queue is not strict - Expected: strict Actual: dwrr",
    ),
    (
        "lossless.ecn_on_lossless_queues",  # max above the PFC trigger (1/2 of the 52 MB pool at dynamic_th 0)
        lambda s, _: _replace_qos(
            s, "leaf1", ecn={3: Ecn(min_threshold=150000, max_threshold=30000000, probability=100)}
        ),
        "leaf1: queue 3 - ECN max not below the PFC trigger point (pg_lossless_400000_40m_profile) - Expected: < 26080845 Actual: 30000000",
    ),
    (
        "lossless.pfc_watchdog",
        lambda s, _: _replace_device(
            s, "leaf1", pfc_watchdog=s.devices["leaf1"].pfc_watchdog.model_copy(update={"queues": []})
        ),  # type: ignore[union-attr]
        "leaf1: queue 3 - lossless queue not watched - Expected: watchdog on Actual: watched queues []",
    ),
    (
        "lossless.qos_mapping",
        lambda s, _: _replace_qos(s, "leaf2", dscp_to_tc={**s.devices["leaf2"].qos.dscp_to_tc, 26: 4}),  # type: ignore[union-attr]
        "leaf2: DSCP 26 - dscp_to_tc maps it to TC 4, the fabric (spine1) to 3 - Expected: 3 Actual: 4",
    ),
    (
        "lossless.qos_mapping",  # the host NIC classifies the RoCE DSCP elsewhere
        lambda s, _: _replace_nic(
            s, "gpu2", "eth1", dscp_to_priority={**s.devices["gpu2"].host.nics["eth1"].dscp_to_priority, 26: 0}
        ),  # type: ignore[union-attr]
        "gpu2: DSCP 26 - NIC classifies it to priority 0, the switches (spine1) to 3 - Expected: 3 Actual: 0",
    ),
    (
        "lossless.class_limit",
        lambda s, _: _replace_qos(s, "spine1", lossless_priorities=[2, 3, 4]),
        "spine1: lossless priorities - 3 lossless classes exceed the limit - Expected: <= 2 Actual: [2, 3, 4]",
    ),
    (
        "lossless.nic_trust_pfc",
        lambda s, _: _replace_nic(s, "gpu1", "eth0", trust="pcp"),
        "gpu1: eth0 - NIC does not trust DSCP - Expected: dscp Actual: pcp",
    ),
    (
        "lossless.nic_trust_pfc",
        lambda s, _: _replace_nic(s, "gpu1", "eth1", pfc=[0, 0, 0, 1, 1, 0, 0, 0]),
        "gpu1: eth1 - NIC PFC vector differs from leaf2:Ethernet0 - Expected: [3] Actual: [3, 4]",
    ),
    (
        "lossless.nic_dcqcn",  # more cases in tests/validate/test_nic_dcqcn.py
        lambda s, _: _replace_nic(s, "gpu1", "eth0", ecn_np_priorities=[]),
        "gpu1: eth0 roce_np priority 3 - ECN notification point (NP) off on priority 3, lossless at leaf1:Ethernet0"
        " - Expected: enabled Actual: disabled",
    ),
    (
        "lossless.nic_dcqcn",
        lambda s, _: _replace_nic(s, "gpu2", "eth1", cnp_dscp=26),
        "gpu2: eth1 cnp_dscp - CNPs sent with DSCP 26, not network compute's CNP class - Expected: 48 Actual: 26",
    ),
    (
        "lossless.roce_tos",
        lambda s, _: _replace_nic(s, "gpu1", "eth0", roce_tos=104),
        "gpu1: eth0 - RoCE TOS is not ECN-capable (ECT), so switches cannot mark it - Expected: 106 Actual: 104",
    ),
    (
        "lossless.roce_tos",
        lambda s, _: _replace_host(s, "gpu2", nccl_env={**s.devices["gpu2"].host.nccl_env, "NCCL_IB_TC": "0"}),  # type: ignore[union-attr]
        "gpu2: NCCL_IB_TC - TOS carries DSCP 0, not the lossless DSCP 26 - Expected: 106 Actual: 0",
    ),
    (
        "lossless.headroom",  # the profile of the 40 m leaf-spine ports lost headroom
        lambda s, _: _shrink_profile(s, "spine1", "pg_lossless_400000_40m_profile", xoff=100000),
        "spine1: Ethernet0 PG 3 - xoff of pg_lossless_400000_40m_profile below the rule for 400G 40 m (lookup: "
        "sonic-net/sonic-buildimage@086b03bd70f9:device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600/"
        "pg_profile_lookup.ini row 400000 40m)"
        " - Expected: >= 283648 Actual: 100000",
    ),
    (
        "lossless.headroom",
        lambda s, _: _replace_device(
            s, "leaf1", buffers=s.devices["leaf1"].buffers.model_copy(update={"profiles": {}})
        ),  # type: ignore[union-attr]
        "leaf1: Ethernet0 PG 3 - profile pg_lossless_400000_5m_profile does not exist - Expected: pg_lossless_400000_5m_profile Actual: none",
    ),
]


@pytest.mark.parametrize(("check_id", "mutate", "first"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_check_catches(check_id: str, mutate: Mutation, first: str, clean: FabricState, tmp_path: Path) -> None:
    (result,) = run_checks(mutate(clean, tmp_path), [check_id])
    assert result.status is Status.FAILURE
    assert str(result.findings[0]).startswith(first)


def test_every_lossless_check_has_a_failing_case() -> None:
    """The profile checks have theirs in tests/validate/test_profile_checks.py."""
    ids = {i for i in _lossless_ids() if not CHECKS.get(i).__module__.endswith(".checks.profiles")}
    assert {c[0] for c in CASES} == ids


def test_warnings_do_not_block_but_errors_do(clean: FabricState, tmp_path: Path) -> None:
    state = _plan(tmp_path, ("        scheduler: {type: strict}\n", "        scheduler: {type: dwrr, weight: 10}\n"))
    assert not any(r.blocking for r in run_checks(state))
    state = _replace_iface(clean, "leaf1", "Ethernet32", pfc_priorities=[])
    assert any(r.blocking for r in run_checks(state))


def test_skipped_without_lossless_roce(tmp_path: Path) -> None:
    state = _plan(
        tmp_path,
        ("        lossless: true\n", ""),
        ("        ecn: {min_threshold: 150000, max_threshold: 1500000}\n", ""),
    )
    statuses = {r.id: r.status for r in run_checks(state)}
    assert statuses["lossless.pfc_symmetry"] is Status.SKIPPED
    assert statuses["lossless.link_mtu"] is Status.SUCCESS


def test_a_crashing_check_is_an_error_not_a_pass(clean: FabricState) -> None:
    registry = Registry()

    @registry.register
    class Broken(Check):
        id = "test.broken"
        title = "raises"

        def check(self, ctx: CheckContext) -> list[Any]:
            raise RuntimeError("boom")

    (result,) = run_checks(clean, registry=registry)
    assert result.status is Status.ERROR and result.message == "RuntimeError: boom" and result.blocking


def test_registry_rejects_duplicate_ids_and_names_unknown_ones() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        register(CHECKS.get("lossless.pfc_symmetry"))
    with pytest.raises(KeyError, match=r"unknown check 'nope' \(allowed: .*lossless\.pfc_symmetry"):
        CHECKS.get("nope")


def test_cli_check_exits_1_on_findings(tmp_path: Path) -> None:
    import subprocess
    import sys

    text = MINIMAL.read_text().replace("    host_mtu: 9000\n", "    host_mtu: 1500\n")
    (tmp_path / "i.yaml").write_text(text)
    r = subprocess.run(
        [sys.executable, "-m", "xoff", "check", "i.yaml"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert r.returncode == 1
    assert "lossless.host_mtu" in r.stdout and "gpu1: eth0 - netdev MTU gives RoCE MTU 1024" in r.stdout
