"""Long lab runs speak: ``lab up`` (plan, topology per device, shims per host, daemons per process ready),
``deadlock --ib-lab`` (lab, SM sweep, LFT dump, analysis) and ``lab down`` (processes, namespaces, interfaces) call
the progress hook they are given, on a real lab (the ib-ring fixture: ibsim, OpenSM, infiniband-diags)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.progress_recorder import Recorder
from xoff import api
from xoff.lab import names, netns
from xoff.lab.lab import resolve, up
from xoff.lab.teardown import down, leftovers_of

pytestmark = pytest.mark.lab
INTENT = ROOT / "tests" / "fixtures" / "intents" / "ib-ring"


def test_lab_up_deadlock_ib_lab_and_down_report_their_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"p{os.getpid() % 100000}-ring"
    root = Path(tempfile.mkdtemp(prefix="xpr-"))  # short: FRR's unix socket paths must fit 108 bytes
    root.chmod(0o755)
    monkeypatch.setenv(names.ROOT_ENV, str(root))  # deadlock --ib-lab finds the lab here
    state = None
    try:
        upped = Recorder()
        report = up(INTENT, name, remap_addresses=True, root=root, progress=upped)
        state = resolve(name, root)
        assert upped.stages() == ["plan", "topology", "shims", "daemons"]
        assert sorted(upped.items("topology")) == sorted(state.devices)
        assert sorted(upped.items("daemons")) == sorted(report.started)
        assert all(done > 0 for stage, done in upped.ends() if stage != "plan")

        read = Recorder()
        result = api.deadlock(api.DeadlockOptions(ib_lab=name), read)
        assert result.kind == "infiniband" and not result.risk
        assert read.stages() == ["lab", "SM sweep", "LFT dump", "analysis"]
        assert read.items("SM sweep") == ["ibnetdiscover", "iblinkinfo"]
        assert read.items("LFT dump")[0] == "dump_fts" and len(read.items("LFT dump")) > 1

        downed = Recorder()
        down(name, root, progress=downed)
        assert downed.stages() == ["processes", "namespaces", "interfaces"]
        assert downed.items("interfaces")[-1] == "nothing left"
        assert leftovers_of(state) == []
        state = None
    finally:
        if state is not None:
            down(name, root)
        assert netns.names(names.namespace_prefix(name)) == []
        shutil.rmtree(root, ignore_errors=True)
