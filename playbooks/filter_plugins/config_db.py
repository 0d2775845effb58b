"""Jinja filters for SONiC's CONFIG_DB, used by playbooks/tasks/sonic/: the Nornir SONiC strategy's own
code (``xoff.platforms.sonic.apply``), so both engines send a switch the same JSON Patch, byte for byte,
and verify and judge a rollback the same way.

- ``running | xoff_sonic_diff(folder)``: the change from ``show runningconfiguration all`` to the rendered
  files in ``folder``: ``{"lines": [...], "changes": N, "patch_file": TEXT}``, where ``TEXT`` is the patch
  file exactly as the Nornir strategy puts it on the switch (field-level RFC 6902 JSON Patch over the
  tables the rendered ``config_db.json`` lists);
- ``stamp | xoff_sonic_patch_path``: where the patch goes on the switch (the Nornir strategy's path);
- ``running | xoff_sonic_verify(folder)``: what still differs after the change (CONFIG_DB, FRR neighbours);
- ``running | xoff_sonic_rollback_mismatches(backup)``: what differs from the backup after a rollback.

Like ``host_state.py`` these import ``xoff``: the controller's Python must have it (ansible-runner is
started with xoff's interpreter's ``bin/`` first on PATH; under AWX, an execution environment with xoff).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ansible.errors import AnsibleFilterError  # type: ignore[import-untyped]

from xoff.contracts.apply import ApplyError
from xoff.platforms.sonic.apply import PATCH_PATH, change_set, patch_file, rollback_problems, verify_problems


def _rendered(folder: str) -> dict[str, str]:
    """The rendered files of one switch, as the engine loads them (name -> exact text)."""
    path = Path(folder)
    if not path.is_dir():
        raise AnsibleFilterError(f"no rendered files for this switch in {folder}")
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(path.iterdir()) if p.is_file()}


def _text(value: str | dict[str, Any]) -> str:
    """The command's output (a templated fact may come back as the JSON object it holds)."""
    return json.dumps(value) if isinstance(value, dict) else value


def diff(running: str | dict[str, Any], folder: str) -> dict[str, Any]:
    try:
        change = change_set(_text(running), _rendered(folder))
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None
    return {"lines": change.lines, "changes": change.count, "patch_file": patch_file(change.payload)}


def patch_path(stamp: str) -> str:
    return PATCH_PATH.format(run=stamp)


def verify(running: str | dict[str, Any], folder: str) -> list[str]:
    try:
        return verify_problems(_text(running), _rendered(folder))
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def rollback_mismatches(running: str | dict[str, Any], backup: str | dict[str, Any]) -> list[str]:
    try:
        return rollback_problems(_text(running), _text(backup))
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {
            "xoff_sonic_diff": diff,
            "xoff_sonic_patch_path": patch_path,
            "xoff_sonic_verify": verify,
            "xoff_sonic_rollback_mismatches": rollback_mismatches,
        }
