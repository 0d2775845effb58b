"""Jinja filters for Linux GPU hosts, used by playbooks/tasks/linux/: the Nornir host strategy's own
code (``xoff.platforms.linux``), so both engines read, diff, verify and roll back a host the same way.

The playbooks run the scripts on the host (``bash -s`` with the script on standard input, as the
Nornir strategy does); these filters supply the scripts and judge their output on the controller:

- ``'snapshot' | xoff_host_script``: the read-only snapshot script;
  ``'restore' | xoff_host_script(backup)``: the restore script generated from a backup;
  ``'verify' | xoff_host_script(folder)``: the verify read (snapshot + verified-only prerequisites);
- ``backup | xoff_host_change(folder)``: the change script, only what differs from the backup;
- ``result | xoff_host_backup``: the snapshot's result -> the backup text (normalised JSON);
- ``backup | xoff_host_diff(folder)``: the values to change, against the rendered files in ``folder``;
- ``result | xoff_host_verify(folder)``: what still differs after the apply (the verify read's result);
- ``result | xoff_host_rollback_mismatches(backup)``: what differs from the backup after a rollback;
- ``result | xoff_host_failure(what)``: a failed script's one-line message.

Unlike ``config_db.py`` these import ``xoff``: the controller's Python must have it (the engine's
venv; under AWX, an execution environment with xoff installed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ansible.errors import AnsibleFilterError  # type: ignore[import-untyped]

from xoff.contracts.apply import ApplyError


# xoff's host modules are imported at the first call, not with this file: Ansible imports every filter plugin file
# in each task's fresh worker that templates a filter, and these bring the intent models (~0.4 s of CPU each time)
def _apply() -> Any:
    from xoff.platforms.linux import apply  # noqa: PLC0415

    return apply


def _observe() -> Any:
    from xoff.platforms.linux import observe  # noqa: PLC0415

    return observe


def _restore() -> Any:
    from xoff.platforms.linux import restore  # noqa: PLC0415

    return restore


def _rendered(folder: str) -> dict[str, str]:
    """The rendered files of one host, as the engine loads them (name -> exact text)."""
    path = Path(folder)
    if not path.is_dir():
        raise AnsibleFilterError(f"no rendered files for this host in {folder}")
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(path.iterdir()) if p.is_file()}


def _backup(value: str | dict[str, Any]) -> str:
    """The backup text (a templated fact may come back as the JSON it holds)."""
    return str(_observe().dumps(value)) if isinstance(value, dict) else value


def _state(result: dict[str, Any]) -> dict[str, Any]:
    try:
        state: dict[str, Any] = _apply().read_state(
            int(result.get("rc", 1)), str(result.get("stdout", "")), str(result.get("stderr", ""))
        )
        return state
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def host_script(kind: str, arg: str | dict[str, Any] | None = None) -> str:
    if kind == "snapshot":
        return str(_observe().SNAPSHOT_SCRIPT)
    if kind == "restore" and arg is not None:
        return str(_restore().restore_script(json.loads(_backup(arg))))
    if kind == "verify" and isinstance(arg, str):
        try:
            return str(_apply().verify_script(_rendered(arg)))
        except ApplyError as exc:
            raise AnsibleFilterError(str(exc)) from None
    raise AnsibleFilterError(
        f"xoff_host_script: unknown script {kind!r} (allowed: 'snapshot', 'restore' with a backup, "
        "'verify' with the rendered folder)"
    )


def host_change(backup: str | dict[str, Any], folder: str) -> str:
    try:
        return str(_apply().change_script(_backup(backup), _rendered(folder)))
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def host_backup(result: dict[str, Any]) -> str:
    return str(_observe().dumps(_state(result)))


def host_diff(backup: str | dict[str, Any], folder: str) -> list[str]:
    try:
        return list(_apply().changes(_backup(backup), _rendered(folder)))
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def host_verify(result: dict[str, Any], folder: str) -> list[str]:
    try:
        return list(
            _apply().verify_problems(
                int(result.get("rc", 1)),
                str(result.get("stdout", "")),
                str(result.get("stderr", "")),
                _rendered(folder),
            )
        )
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def host_rollback_mismatches(result: dict[str, Any], backup: str | dict[str, Any]) -> list[str]:
    return list(_observe().rollback_mismatches(_state(result), json.loads(_backup(backup))))


def host_failure(result: dict[str, Any], what: str) -> str:
    return str(
        _apply().exit_message(
            what, int(result.get("rc", 1)), str(result.get("stdout", "")), str(result.get("stderr", ""))
        )
    )


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {
            "xoff_host_script": host_script,
            "xoff_host_backup": host_backup,
            "xoff_host_diff": host_diff,
            "xoff_host_change": host_change,
            "xoff_host_verify": host_verify,
            "xoff_host_rollback_mismatches": host_rollback_mismatches,
            "xoff_host_failure": host_failure,
        }
