"""The Linux collector reads ibstat and sminfo on a host with an InfiniBand HCA, as any host command:
the commands are asked only there, their output lands in ``HostObserved.ib_ports`` / ``sm_lid`` /
``sm_state``, ibstat's unmodelled attributes are counted, and output that does not parse is one error of
that command while the rest of the host is still read."""

from __future__ import annotations

import pytest

from tests.support.corpus import REAL
from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.platforms.infiniband.host import IBSTAT, SMINFO
from xoff.platforms.linux.collect import LSMOD, Collector

IBSTAT_TEXT = (REAL / "infiniband" / "ibstat" / "cx7-four-cas-one-down.txt").read_text()
SMINFO_TEXT = (REAL / "infiniband" / "sminfo" / "master-opensm.txt").read_text()


@pytest.fixture(scope="module")
def ib_ring() -> FabricState:
    return build_fabric_state(load_intent(ROOT / "tests" / "fixtures" / "intents" / "ib-ring"))


def test_asked_only_on_hosts_with_an_infiniband_hca(ib_ring: FabricState) -> None:
    minimal = build_fabric_state(load_intent(ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"))
    ethernet_hosts = [d for d in minimal.devices.values() if d.kind == "host"]
    assert ethernet_hosts
    assert all(IBSTAT not in Collector().commands(d) for d in ethernet_hosts)
    assert {IBSTAT, SMINFO} <= set(Collector().commands(ib_ring.devices["gpu1"]))


def test_read_into_host_observed(ib_ring: FabricState) -> None:
    outputs = {IBSTAT.text: IBSTAT_TEXT, SMINFO.text: SMINFO_TEXT, LSMOD.text: "Module  Size  Used by\n"}
    obs = Collector().parse(outputs, ib_ring.devices["gpu1"])
    assert obs.host is not None and obs.host.ib_ports is not None
    assert [(p.ca, p.state, p.physical_state, p.rate) for p in obs.host.ib_ports] == [
        ("mlx5_0", "Active", "LinkUp", 400),
        ("mlx5_1", "Down", "Polling", 10),
        ("mlx5_2", "Initializing", "LinkUp", 400),
        ("mlx5_bond_0", "Active", "LinkUp", 100),
    ]
    assert (obs.host.sm_lid, obs.host.sm_state) == (1, "SMINFO_MASTER")
    assert obs.unmodelled["ibstat Firmware version"] == 4
    assert not [e for e in obs.errors if e.command in (IBSTAT.text, SMINFO.text)]


def test_not_run_is_not_observed_and_garbage_is_one_error(ib_ring: FabricState) -> None:
    obs = Collector().parse({SMINFO.text: SMINFO_TEXT}, ib_ring.devices["gpu1"])
    assert obs.host is not None and obs.host.ib_ports is None and obs.host.sm_lid == 1
    bad = Collector().parse({IBSTAT.text: "ibpanic: can't list IB device names\n"}, ib_ring.devices["gpu1"])
    assert bad.host is not None and bad.host.ib_ports is None and bad.host.sm_lid is None
    assert [e.command for e in bad.errors] == [IBSTAT.text]
