"""docs/examples/nornir_xoff_tasks.py: xoff.api called from Nornir tasks, run by a real Nornir over
lab-mini's hosts (no connection is opened: the tasks only ask xoff)."""

from __future__ import annotations

from types import ModuleType

from tests.support.paths import ROOT, load_module
from xoff import api
from xoff.connect.credentials import load_credentials
from xoff.connect.nornir_inventory import build_nornir
from xoff.connect.targets import build_targets
from xoff.render import render_fabric


def _example() -> ModuleType:
    return load_module("nornir_xoff_tasks", ROOT / "docs" / "examples" / "nornir_xoff_tasks.py")


def test_nornir_tasks_get_each_host_s_share_from_the_api() -> None:
    tasks = _example()
    loaded = api.load(ROOT / "inventory" / "lab-mini")
    nr = build_nornir(build_targets(loaded.state), load_credentials(environ={}), None, workers=2)
    rendered = nr.run(task=tasks.xoff_render, loaded=loaded)
    assert not rendered.failed and set(rendered) == set(nr.inventory.hosts)
    expected = {f.name: f.content for f in render_fabric(loaded.state, ["leaf1"])}
    assert rendered["leaf1"][0].result == expected
    gate = nr.run(task=tasks.xoff_pre_change, loaded=loaded)
    assert not gate.failed and all(gate[h][0].result == [] for h in gate)
