"""Thresholds: defaults, overrides, and what the intent's plan gives."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT
from xoff import api
from xoff.errors import InputError
from xoff.watch.thresholds import Thresholds, plans


def test_override_and_bad_override() -> None:
    t = Thresholds().with_overrides(("pause_storm_pps=250", "ecn_ratio_high = 0.2"))
    assert (t.pause_storm_pps, t.ecn_ratio_high, t.pre_fec_ber_max) == (250.0, 0.2, 2.4e-5)
    with pytest.raises(InputError) as err:
        Thresholds().with_overrides(("pause_storms=1", "optic_rx_min_dbm=low"))
    lines = [str(p) for p in err.value.sorted()]
    assert len(lines) == 2 and any("no threshold 'pause_storms'" in line for line in lines)


def test_plan_from_the_intent() -> None:
    plan = plans(api.load(ROOT / "inventory" / "lab-mini").state)
    leaf = plan["leaf1"]
    assert leaf.lossless_priorities == {3} and leaf.lossless_queues == {3} and leaf.pg_of == {3: 3}
    assert leaf.headroom is not None and leaf.headroom[("Ethernet0", 3)] == 231424  # the 5 m profile's xoff
    assert leaf.ecn_high == {3: 1.0} and leaf.priority_of(3) == 3 and leaf.priority_of(0) is None
    assert plan["sleaf1"].lossless_priorities == {4}
    assert plan["gpu1"].lossless_priorities == {3, 4} and not plan["gpu1"].headroom  # its NICs' PFC flags
