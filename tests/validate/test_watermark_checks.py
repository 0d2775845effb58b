"""The buffer watermark checks, table-driven: the planned headroom of a lossless PG (its profile's xoff) and the
planned pool sizes against what the switch recorded; skipped, saying why, when no watermark was read."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import BufferWatermarks, PortCounters, Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.checks.watermarks import pg_numbers
from xoff.validate.mirror import mirror_snapshot

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
HEADROOM = 283648  # minimal.yaml spine1: pg_lossless_400000_40m_profile xoff, on Ethernet0 PG3
POOL = 52161690  # its ingress_lossless_pool size


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


def _pg(headroom: dict[int, int]) -> Callable[[Snapshot], Snapshot]:
    def seed(snap: Snapshot) -> Snapshot:
        port = PortCounters(watermarks=BufferWatermarks(pg_headroom=headroom, pg_shared={3: 4096}))
        return snap.model_copy(update={"counters": {"spine1": {"Ethernet0": port}}})

    return seed


def _no_watermarks(snap: Snapshot) -> Snapshot:
    return snap.model_copy(update={"counters": {"spine1": {"Ethernet0": PortCounters()}}})


def _pools(pools: dict[str, int]) -> Callable[[Snapshot], Snapshot]:
    return lambda snap: snap.model_copy(update={"buffer_pool_watermarks": {"spine1": pools}})


# (check, observed watermarks, status, the first finding's text or the skip reason's start)
CASES: list[tuple[str, Callable[[Snapshot], Snapshot], Status, str]] = [
    ("buffers.headroom_watermark", _pg({0: 0, 3: 120000, 4: 0}), Status.SUCCESS, "1 lossless PG"),
    (
        "buffers.headroom_watermark",
        _pg({3: 262144}),  # 92% of the planned headroom
        Status.FAILURE,
        "spine1: Ethernet0 PG3 - headroom watermark near or above the planned headroom - Expected: < 90% of 283648"
        " bytes (profile pg_lossless_400000_40m_profile xoff) Actual: 262144 bytes (92%)",
    ),
    ("buffers.headroom_watermark", _pg({3: 300000}), Status.FAILURE, "spine1: Ethernet0 PG3 - headroom watermark"),
    ("buffers.headroom_watermark", _no_watermarks, Status.SKIPPED, "no headroom watermark of a planned lossless PG"),
    ("buffers.headroom_watermark", _pg({0: 9000}), Status.SKIPPED, "no headroom watermark"),  # PG0: lossy, N/A on 3
    ("buffers.pool_watermark", _pools({"ingress_lossless_pool": 10485760}), Status.SUCCESS, "1 pool watermark"),
    (
        "buffers.pool_watermark",
        _pools({"ingress_lossless_pool": 50331648, "ingress_lossless_pool:headroom": 4096}),
        Status.FAILURE,
        "spine1: buffer pool ingress_lossless_pool - pool watermark near or above its planned size - Expected: < 90%"
        f" of {POOL} bytes (pool size) Actual: 50331648 bytes (96%)",
    ),
    ("buffers.pool_watermark", _pools({}), Status.SKIPPED, "no watermark of a pool the plan sizes"),
    ("buffers.pool_watermark", _pools({"egress_lossy_pool": 4096}), Status.SKIPPED, "no watermark"),  # dynamic size
]


@pytest.mark.parametrize(("check", "seed", "status", "text"), CASES)
def test_watermark_checks(
    desired: FabricState, check: str, seed: Callable[[Snapshot], Snapshot], status: Status, text: str
) -> None:
    (result,) = run_checks(desired, [check], observed=seed(mirror_snapshot(desired)))
    assert result.status is status, (result.message, result.findings)
    if status is Status.FAILURE:
        assert str(result.findings[0]).startswith(text)
        assert result.findings[0].device == "spine1"
    else:
        assert (result.message or "").startswith(text)


def test_pg_ranges() -> None:
    assert pg_numbers("3-4") == [3, 4] and pg_numbers("0") == [0]


def test_switches_whose_headroom_watermarks_were_not_read_are_named(desired: FabricState) -> None:
    (result,) = run_checks(desired, ["buffers.headroom_watermark"], observed=_pg({3: 120000})(mirror_snapshot(desired)))
    assert result.status is Status.SUCCESS
    assert result.message == (
        "1 lossless PG headroom watermark(s) judged; "
        "not judged on leaf1, leaf2: no headroom watermark of a planned lossless PG observed"
    )
