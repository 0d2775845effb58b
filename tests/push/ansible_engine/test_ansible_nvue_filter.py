"""playbooks/filter_plugins/nvue.py: the Cumulus Ansible tasks' filters are the Nornir strategy's own code
(the same diff, the same lines, the same judgement of NVUE's answers)."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest
from ansible.errors import AnsibleFilterError  # type: ignore[import-untyped]

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.platforms.cumulus.apply import Strategy
from xoff.render import render_fabric


def _filters() -> ModuleType:
    spec = importlib.util.spec_from_file_location("nvue_filters", ROOT / "playbooks" / "filter_plugins" / "nvue.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rendered() -> str:
    fabric = build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))
    return next(f.content for f in render_fabric(fabric, ["sleaf1"]) if f.name == "nvue-commands.txt")


def test_diff_is_the_nornir_strategys() -> None:
    nvue, rendered = _filters(), _rendered()
    running = "nv set system hostname cumulus\r\nnv set interface swp9 link mtu 1500\r\n"  # a pty's line ends
    lines = nvue.diff(running, rendered)
    assert lines == Strategy().diff("nv set system hostname cumulus\nnv set interface swp9 link mtu 1500", {
        "nvue-commands.txt": rendered
    }).lines  # fmt: skip
    assert "nv unset interface swp9" in lines and len(lines) > 10
    assert nvue.script(lines) == " && ".join(lines)
    assert nvue.diff("\n".join(ln for ln in rendered.splitlines() if ln.startswith("nv ")), rendered) == []


def test_answers_are_read_strictly() -> None:
    nvue = _filters()
    history = "Apply ID       Rev ID  Apply Date\n-------------  ------  ----------\nrev_1_apply_1  1  x\nrev_4_apply_1  4  y\n"
    assert nvue.applied_revision(history) == 4
    assert nvue.on_trial('{"1": {"state": "superseded"}, "4": {"state": "confirm"}}') == ["4"]
    assert nvue.on_trial('{"1": {"state": "applied"}}') == []
    with pytest.raises(AnsibleFilterError, match="not JSON"):
        nvue.on_trial("Error: Invalid Command: config revision")
    with pytest.raises(AnsibleFilterError, match="no applied revision"):
        nvue.applied_revision("Error: something\n")
    with pytest.raises(AnsibleFilterError, match="not an nv set/unset line"):
        nvue.script(["nv set system hostname x", "rm -rf /"])
    assert nvue.confirm_timer() == "300s"


def test_rollback_is_judged_on_the_tree() -> None:
    nvue = _filters()
    backup = "nv set system hostname a\nnv set interface swp1 link mtu 9000"
    assert nvue.rollback_mismatches("nv set interface swp1 link mtu 9000\r\nnv set system hostname a\r\n", backup) == []
    assert nvue.rollback_mismatches("nv set system hostname a", backup) == [
        "the applied NVUE configuration differs from the backup"
    ]
