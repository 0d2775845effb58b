"""playbooks/action_plugins/xoff_write.py: the controller-side writes of the playbooks (backup, EOS replace file),
done in the task's worker instead of a ``copy``/``file`` module process per host. The lab tests
(tests/lab/push_ansible/) run it inside real ansible-playbook runs; these pin its own rules."""

from __future__ import annotations

import importlib.util
import stat
from pathlib import Path
from types import ModuleType

import pytest
from ansible.errors import AnsibleActionFail

from tests.support.paths import ROOT

PLUGIN = ROOT / "playbooks" / "action_plugins" / "xoff_write.py"


@pytest.fixture(scope="module")
def plugin() -> ModuleType:
    spec = importlib.util.spec_from_file_location("xoff_write_action", PLUGIN)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_writes_private_files_in_new_private_directories(plugin: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "backups" / "20261202T120000" / "leaf1"
    assert plugin.write_file(path, "hostname leaf1\n") is True
    assert path.read_text(encoding="utf-8") == "hostname leaf1\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["leaf1"], "no temporary file left beside it"


def test_changed_only_when_the_content_is_new(plugin: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "leaf1"
    assert plugin.write_file(path, "a\n") is True
    assert plugin.write_file(path, "a\n") is False
    assert plugin.write_file(path, "b\n") is True
    assert path.read_text(encoding="utf-8") == "b\n"


@pytest.mark.parametrize(
    ("files", "why"),
    [
        (None, "non-empty list"),
        ([], "non-empty list"),
        ([{"path": "/tmp/x"}], "exactly the keys"),
        ([{"path": "/tmp/x", "content": "", "mode": "0644"}], "exactly the keys"),
        ([{"path": "relative/x", "content": ""}], "not absolute"),
    ],
)
def test_refuses_what_it_cannot_write_safely(plugin: ModuleType, files: object, why: str) -> None:
    with pytest.raises(AnsibleActionFail, match=why):
        plugin._entries(files)
