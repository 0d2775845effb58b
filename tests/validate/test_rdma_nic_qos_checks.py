"""rdma.gid_index, nic_qos.lossless_tc and nic_qos.cable_length, table-driven on the minimal fabric's snapshot:
success on a host that shows what the intent needs, failure naming host, NIC and priority, skipped when the
host's GIDs or mlnx_qos were not observed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import NicQos, RoceGid, Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.mirror import mirror_snapshot

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


def _gids(desired: FabricState, host: str, index: int = 3) -> list[RoceGid]:
    """A host's table as show_gids prints it: link-local v1/v2 at 0/1, the IPv4 GID v1 at index-1, v2 at index."""
    host_settings = desired.devices[host].host
    assert host_settings is not None
    out = []
    for nic in host_settings.nics.values():
        assert nic.rdma is not None and nic.address is not None
        ip = nic.address.split("/")[0]
        a, b, c, d = (int(x) for x in ip.split("."))
        mapped = f"0000:0000:0000:0000:0000:ffff:{a:02x}{b:02x}:{c:02x}{d:02x}"
        local = "fe80:0000:0000:0000:0000:00ff:fe00:0001"
        for i, (gid, ver, v4) in enumerate(
            [(local, "v1", None), (local, "v2", None), (mapped, "v1", ip), (mapped, "v2", ip)]
        ):
            at = i if i < 2 else index - 3 + i
            out.append(RoceGid(rdma=nic.rdma, port=1, index=at, gid=gid, ipv4=v4, version=ver, netdev=nic.netdev))
    return out


GOOD_QOS = NicQos(
    priority_to_tc={p: p for p in range(8)},
    tc_tsa={0: "ets", 3: "ets", 6: "strict", 1: "ets", 2: "ets", 4: "ets", 5: "ets", 7: "ets"},
    tc_bandwidth={0: 50, 3: 50, 1: 0, 2: 0, 4: 0, 5: 0, 7: 0},
    priority_to_buffer={p: 1 if p == 3 else 0 for p in range(8)},
    buffer_sizes=[130944, 130944, 0, 0, 0, 0, 0, 0],
    cable_length_m=10,
)


def _host(snap: Snapshot, host: str, **changes: object) -> Snapshot:
    return snap.model_copy(update={"hosts": {**snap.hosts, host: snap.hosts[host].model_copy(update=changes)}})


def _env(snap: Snapshot, host: str, **env: str) -> Snapshot:
    dev = snap.observed.devices[host]
    assert dev.host is not None
    new = dev.model_copy(update={"host": dev.host.model_copy(update={"nccl_env": {**dev.host.nccl_env, **env}})})
    observed = snap.observed.model_copy(update={"devices": {**snap.observed.devices, host: new}})
    return snap.model_copy(update={"observed": observed})


def _healthy(desired: FabricState) -> Snapshot:
    snap = mirror_snapshot(desired)
    for host in ("gpu1", "gpu2"):
        nics = desired.devices[host].host
        assert nics is not None
        snap = _host(snap, host, gids=_gids(desired, host), nic_qos=dict.fromkeys(nics.nics, GOOD_QOS))
    return snap


def _qos(snap: Snapshot, host: str, netdev: str, **changes: object) -> Snapshot:
    return _host(snap, host, nic_qos={**snap.hosts[host].nic_qos, netdev: GOOD_QOS.model_copy(update=changes)})


Case = tuple[str, Callable[[FabricState, Snapshot], Snapshot], Status, str | None]
CASES: list[Case] = [
    ("rdma.gid_index", lambda _d, s: s, Status.SUCCESS, None),
    (
        "rdma.gid_index",
        lambda d, s: _env(_host(s, "gpu2", gids=_gids(d, "gpu2", index=4)), "gpu2", NCCL_IB_GID_INDEX="3"),
        Status.FAILURE,
        "gpu2: NCCL_IB_GID_INDEX on mlx5_0 - selects v1 198.18.",
    ),
    (
        "rdma.gid_index",
        lambda d, s: _host(s, "gpu1", gids=[g for g in _gids(d, "gpu1") if g.rdma != "mlx5_1" or g.ipv4 is None]),
        Status.FAILURE,
        "gpu1: mlx5_1 (eth1) - no RoCE v2 GID for the NIC's IPv4 address - Expected: RoCE v2 ::ffff:",
    ),
    ("rdma.gid_index", lambda _d, s: _env(s, "gpu1", NCCL_IB_GID_INDEX="3"), Status.SUCCESS, None),
    (
        "rdma.gid_index",
        lambda _d, s: _host(_host(s, "gpu1", gids=None), "gpu2", gids=None),
        Status.SKIPPED,
        "no RoCE host's GID table was observed (show_gids)",
    ),
    ("nic_qos.lossless_tc", lambda _d, s: s, Status.SUCCESS, None),
    (
        "nic_qos.lossless_tc",
        lambda _d, s: _qos(s, "gpu1", "eth0", tc_bandwidth={0: 100, 3: 0}),
        Status.FAILURE,
        "gpu1: eth0 priority 3 - lossless priority on TC3, which ETS starves - Expected: a TC with ETS bandwidth, "
        "a receive buffer of its own Actual: TC3 ets 0%",
    ),
    (
        "nic_qos.lossless_tc",
        lambda _d, s: _qos(s, "gpu2", "eth1", priority_to_buffer=dict.fromkeys(range(8), 0)),
        Status.FAILURE,
        "gpu2: eth1 priority 3 - lossless priority shares receive buffer 0 with lossy priorities",
    ),
    (
        "nic_qos.lossless_tc",
        lambda _d, s: _host(_host(s, "gpu1", nic_qos={}), "gpu2", nic_qos={}),
        Status.SKIPPED,
        "no RoCE NIC's mlnx_qos was observed",
    ),
    (  # a bandwidth mlnx_qos did not print is not observed, never 0%: not judged
        "nic_qos.lossless_tc",
        lambda _d, s: _qos(s, "gpu1", "eth0", tc_bandwidth={0: 100}),
        Status.SUCCESS,
        None,
    ),
    (  # mlnx_qos read, but neither its ETS nor its buffer map: nothing to judge
        "nic_qos.lossless_tc",
        lambda _d, s: _host(
            _host(s, "gpu1", nic_qos={"eth0": NicQos(cable_length_m=7)}), "gpu2", nic_qos={"eth1": NicQos()}
        ),
        Status.SKIPPED,
        "no RoCE NIC's mlnx_qos was observed (ETS",
    ),
    ("nic_qos.cable_length", lambda _d, s: s, Status.SUCCESS, None),
    (
        "nic_qos.cable_length",
        lambda _d, s: _qos(s, "gpu1", "eth0", cable_length_m=1),
        Status.FAILURE,
        "gpu1: eth0 cable length - NIC headroom is sized for a shorter cable than the link",
    ),
    (
        "nic_qos.cable_length",
        lambda _d, s: _host(_host(s, "gpu1", nic_qos={}), "gpu2", nic_qos={}),
        Status.SKIPPED,
        "no RoCE NIC's cable length was observed",
    ),
]


@pytest.mark.parametrize(("check", "seed", "status", "text"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_check(
    desired: FabricState,
    check: str,
    seed: Callable[[FabricState, Snapshot], Snapshot],
    status: Status,
    text: str | None,
) -> None:
    [result] = run_checks(desired, [check], observed=seed(desired, _healthy(desired)))
    assert result.status == status, (result.message, [str(f) for f in result.findings])
    if status == Status.FAILURE:
        assert text is not None and any(str(f).startswith(text) for f in result.findings), [
            str(f) for f in result.findings
        ]
    elif status == Status.SKIPPED:
        assert text is not None and result.message is not None and result.message.startswith(text)


def test_gid_index_judges_the_gids_where_the_nccl_env_was_not_read(desired: FabricState) -> None:
    """gpu2's NCCL environment was not read: a wrong pinned index there is no finding (it was not seen), its GIDs
    are still judged (a missing routable GID is), and the result names it."""
    snap = _env(_healthy(desired), "gpu2", NCCL_IB_GID_INDEX="0")
    fields = {**snap.observed_fields, "gpu2": [f for f in snap.observed_fields["gpu2"] if not f.startswith("host")]}
    snap = snap.model_copy(update={"observed_fields": fields})
    (result,) = run_checks(desired, ["rdma.gid_index"], observed=snap)
    assert (result.status, result.findings) == (Status.SUCCESS, [])
    assert result.message == "not judged on gpu2: NCCL_IB_GID_INDEX (host.nccl_env) not observed, the GIDs judged"
    snap = _host(snap, "gpu2", gids=[g for g in _gids(desired, "gpu2") if g.rdma != "mlx5_0"])
    (result,) = run_checks(desired, ["rdma.gid_index"], observed=snap)
    assert [f.device for f in result.findings] == ["gpu2"]
    assert result.findings[0].problem == "no RoCE v2 GID for the NIC's IPv4 address"
