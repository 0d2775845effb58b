"""``--limit``: one parser for push, collect and validate (``connect.targets.select``): names, globs of names,
roles, platforms, kinds, groups; repeatable and comma-separated; every term must match, all bad terms said at once."""

from __future__ import annotations

import pytest

from tests.support.paths import INVENTORY
from xoff.connect.targets import Target, build_targets, select
from xoff.desired import FabricState, build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent


@pytest.fixture(scope="module")
def targets() -> list[Target]:
    return build_targets(build_fabric_state(load_intent(INVENTORY / "lab-mini")))


@pytest.mark.parametrize(
    ("limit", "chosen"),
    [
        ([], ["gpu1", "gpu2", "gpu3", "gpu4", "leaf1", "leaf2", "sleaf1", "spine1", "spine2"]),
        (["leaf1"], ["leaf1"]),
        (["leaf*"], ["leaf1", "leaf2"]),
        (["gpu[12]", "spine2"], ["gpu1", "gpu2", "spine2"]),
        (["leaf1,spine1"], ["leaf1", "spine1"]),
        (["role_spine"], ["spine1", "spine2"]),
        (["platform_eos"], ["spine2"]),
        (["kind_host"], ["gpu1", "gpu2", "gpu3", "gpu4"]),
        (["platform_*"], ["gpu1", "gpu2", "gpu3", "gpu4", "leaf1", "leaf2", "sleaf1", "spine1", "spine2"]),
        (["spine", "sleaf*"], ["sleaf1", "spine1", "spine2"]),
        (["role_*leaf"], ["leaf1", "leaf2", "sleaf1"]),
    ],
)
def test_limit_terms(targets: list[Target], limit: list[str], chosen: list[str]) -> None:
    assert [t.name for t in select(targets, limit)] == chosen


def test_every_term_that_matches_nothing_is_said_at_once(targets: list[Target]) -> None:
    with pytest.raises(InputError) as exc:
        select(targets, ["leaf1", "lef*", "spine9"])
    lines = [str(p) for p in exc.value.sorted()]
    assert len(lines) == 2
    assert all(line.startswith("--limit:1:1: ") and "matches no device (allowed: " in line for line in lines)
    assert {line.split(": ")[1] for line in lines} == {"lef*", "spine9"}


def test_every_device_kind_can_be_chosen_where_validate_asks() -> None:
    """push and collect reach SSH devices only; validate chooses among every device (InfiniBand switches too)."""
    fabric: FabricState = build_fabric_state(load_intent(INVENTORY / "ib-pod"))
    ssh = {t.name for t in build_targets(fabric)}
    every = {t.name for t in build_targets(fabric, kinds=None)}
    assert ssh < every and every == set(fabric.devices)
    ib = sorted(n for n, d in fabric.devices.items() if d.kind not in {"switch", "host"})
    assert [t.name for t in select(build_targets(fabric, kinds=None), [f"kind_{fabric.devices[ib[0]].kind}"])]
