"""Jinja filters for ``playbooks/restore.yml`` (``xoff rollback --engine ansible``): the platforms' own
restore code (``ApplyStrategy.restore_change``, ``xoff.platforms.sonic.apply.restore_file``), so both
engines judge and restore a backup the same way.

- ``running | xoff_restore_change(backup, platform)``: what restoring ``backup`` would change in
  ``running`` (empty: running equals it); also the check after the restore;
- ``platform | xoff_restore_on_trial``: whether the platform restores on trial (NVUE), to be confirmed;
- ``backup | xoff_sonic_restore_file``: the CONFIG_DB file ``config replace`` takes;
- ``stamp | xoff_sonic_restore_path``: where it goes on the switch (the Nornir strategy's path).

Like ``host_state.py`` these import ``xoff``.
"""

from __future__ import annotations

import json
from typing import Any

from ansible.errors import AnsibleFilterError  # type: ignore[import-untyped]

from xoff.contracts.apply import ApplyError
from xoff.platforms.registry import strategy_for
from xoff.platforms.sonic.apply import RESTORE_PATH, restore_file


def _text(value: str | dict[str, Any]) -> str:
    """The command's output (a templated fact may come back as the JSON object it holds)."""
    return json.dumps(value) if isinstance(value, dict) else value


def restore_change(running: str | dict[str, Any], backup: str | dict[str, Any], platform: str) -> list[str]:
    # imported here: Ansible imports every filter plugin file in each task's fresh worker that templates a filter
    from xoff.connect.credentials import MASK  # noqa: PLC0415

    if MASK in _text(backup):  # backups are written masked: this one held a secret in clear
        raise AnsibleFilterError(f"the backup holds a masked secret ({MASK}): restoring it would write the mask")
    try:
        return strategy_for(platform).restore_change(_text(running), _text(backup)).lines
    except (ApplyError, KeyError, ValueError) as exc:
        raise AnsibleFilterError(f"xoff_restore_change: {exc}") from None


def restore_on_trial(platform: str) -> bool:
    return strategy_for(platform).restore_on_trial


def sonic_restore_file(backup: str | dict[str, Any]) -> str:
    try:
        return restore_file(_text(backup))
    except ApplyError as exc:
        raise AnsibleFilterError(f"xoff_sonic_restore_file: {exc}") from None


def sonic_restore_path(stamp: str) -> str:
    return RESTORE_PATH.format(run=stamp)


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {
            "xoff_restore_change": restore_change,
            "xoff_restore_on_trial": restore_on_trial,
            "xoff_sonic_restore_file": sonic_restore_file,
            "xoff_sonic_restore_path": sonic_restore_path,
        }
