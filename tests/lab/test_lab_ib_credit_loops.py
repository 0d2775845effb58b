"""Issue 5's InfiniBand proof in the lab: ibsim carries the intent's fabric, the real OpenSM routes it, the
real infiniband-diags read the LFTs and SL2VL tables back, and the credit-loop analysis judges them.
ftree and updn give no credit loop (ib-pod, a small fat tree, a ring); minhop forced on the ring does."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.deadlock.ib.credit import IbResult, analyse_ib
from xoff.lab import names, netns
from xoff.lab.disrupt import stop_process
from xoff.lab.lab import resolve, up
from xoff.lab.provider import from_lab
from xoff.lab.teardown import down, leftovers_of
from xoff.platforms.infiniband.collect import ROUTING_TABLES, collect_sm

pytestmark = pytest.mark.lab
INTENTS = ROOT / "tests" / "fixtures" / "intents"


class Lab:
    def __init__(self, intent: Path, name: str, root: Path) -> None:
        self.intent, self.name, self.root = intent, name, root

    def analyse(self) -> IbResult:
        return analyse_ib(
            collect_sm(from_lab(self.name, self.root).subnet_manager(), tables=ROUTING_TABLES).observation
        )

    def force_engine(self, engine: str) -> None:
        """Restart OpenSM with another routing engine: stop it by PID, edit the lab's opensm.conf, and let
        ``lab up`` start it again (it waits for SUBNET UP, i.e. for the new LFTs)."""
        state = resolve(self.name, self.root)
        assert state.ib is not None
        stop_process(state, f"{state.ib.sm_host}/opensm")
        conf = Path(state.ib.opensm_log).with_name("opensm.conf")
        text, n = re.subn(
            r"^routing_engine .*$", f"routing_engine {engine}", conf.read_text(encoding="utf-8"), flags=re.M
        )
        assert n == 1
        conf.write_text(text, encoding="utf-8")
        report = up(self.intent, self.name, remap_addresses=True, root=self.root)
        assert report.started == [f"{state.ib.sm_host}/opensm"]


@pytest.fixture
def lab(request: pytest.FixtureRequest) -> Iterator[Lab]:
    intent: Path = request.param
    name = f"t{os.getpid()}-{intent.name[:6]}"
    tmp_path = Path(tempfile.mkdtemp(prefix="xib-"))  # short: FRR's unix socket paths must fit 108 bytes
    tmp_path.chmod(0o755)  # FRR (ib-pod's storage leaves) drops root and must reach its files under it
    try:
        up(intent, name, remap_addresses=True, root=tmp_path)
        yield Lab(intent, name, tmp_path)
    finally:
        state = None
        try:
            state = resolve(name, tmp_path)
        except Exception:  # the lab never came up: nothing of it recorded
            state = None
        if state is not None:
            down(name, tmp_path)
            assert leftovers_of(state) == []
        assert netns.names(names.namespace_prefix(name)) == []
        shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.mark.parametrize("lab", [INTENTS / "ib-ring"], indirect=True)
def test_ring_updn_is_clean_and_minhop_closes_the_ring(lab: Lab) -> None:
    clean = lab.analyse()
    assert clean.routing_engine == "updn" and not clean.credit_loop and clean.edges > 0
    lab.force_engine("minhop")
    looped = lab.analyse()
    assert looped.routing_engine == "minhop" and looped.credit_loop
    assert sorted((c.scc_size, c.vls) for c in looped.cycles) == [(5, (0,)), (5, (0,)), (5, (1,)), (5, (1,))]
    assert all(sorted(c.switches) == ["ibsw1", "ibsw2", "ibsw3", "ibsw4", "ibsw5"] for c in looped.cycles)


@pytest.mark.parametrize("lab", [INTENTS / "ib-fattree"], indirect=True)
def test_fat_tree_ftree_and_updn_are_clean(lab: Lab) -> None:
    ftree = lab.analyse()
    assert ftree.routing_engine == "ftree" and not ftree.credit_loop and ftree.destinations == 6
    lab.force_engine("updn")
    updn = lab.analyse()
    assert updn.routing_engine == "updn" and not updn.credit_loop and updn.unrouted == []


@pytest.mark.parametrize("lab", [ROOT / "inventory" / "ib-pod"], indirect=True)
def test_ib_pod_ftree_is_clean(lab: Lab) -> None:
    result = lab.analyse()
    assert result.routing_engine == "ftree" and not result.credit_loop
    assert result.destinations == 129 and result.unrouted == [] and result.edges > 0
