"""xoff.push.ansible_steps: what the connect and backup action plugins send and keep, per platform."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from xoff.contracts.apply import ApplyError
from xoff.push.ansible_steps import Answer, ask, changes, read_for


def test_each_platform_keeps_its_backup_in_the_form_its_tasks_kept() -> None:
    assert read_for("eos").keep(Answer(0, "\r\nhostname s1\nend\n\n")) == "hostname s1\nend\n"
    assert read_for("sonic").keep(Answer(0, '{"DEVICE_METADATA": {}}\r\n')) == '{"DEVICE_METADATA": {}}\r\n'
    assert read_for("cumulus").keep(Answer(0, "nv set a  \r\nnv set b\r\n\r\n")) == "nv set a\nnv set b"
    with pytest.raises(ApplyError, match="exit status 127: nv: command not found"):
        read_for("cumulus").keep(Answer(127, "", "nv: command not found\n"))
    with pytest.raises(ApplyError, match=r"reading the host state failed \(3\)"):
        read_for("linux").keep(Answer(3, "", "boom"))
    with pytest.raises(ApplyError, match="no Ansible backup step for platform 'junos'"):
        read_for("junos")


def test_a_shell_platform_is_asked_as_raw_asks() -> None:
    """No CLI session on the connection: the command goes to the action's low-level exec, unwrapped (raw)."""
    calls: list[tuple[str, dict[str, Any]]] = []

    def shell(command: str, **kw: Any) -> dict[str, Any]:
        calls.append((command, kw))
        return {"rc": 0, "stdout": "leaf1\r\n", "stderr": ""}

    read = read_for("linux")
    assert read.stdin is not None
    script = read.stdin()
    assert ask(object(), shell, read.command, script) == Answer(0, "leaf1\r\n", "")
    assert calls == [("bash -s", {"in_data": script, "executable": False})]


def test_the_count_is_the_platforms_own_diff(tmp_path: Path) -> None:
    (tmp_path / "nvue-commands.txt").write_text("nv set system hostname sleaf1\n", encoding="utf-8")
    assert changes("cumulus", "nv set system hostname sleaf1", tmp_path) == []
    assert changes("cumulus", "nv set system hostname other", tmp_path) != []
    with pytest.raises(ApplyError, match="no rendered files"):
        changes("cumulus", "", tmp_path / "missing")
