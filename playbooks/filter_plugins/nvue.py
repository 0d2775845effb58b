"""Jinja filters for NVIDIA Cumulus Linux (NVUE), used by playbooks/tasks/cumulus/: the Nornir Cumulus
strategy's own code (``xoff.platforms.cumulus``), so both engines diff, verify and judge a switch the
same way and send it the same NVUE commands.

- ``stdout | xoff_nvue_commands``: ``nv config show -o commands`` as the backup text (line ends as netmiko
  returns them, so a backup from either engine reads the same);
- ``running | xoff_nvue_diff(rendered)``: the ``nv unset``/``nv set`` lines taking the running configuration
  to the rendered ``nvue-commands.txt`` (a replace); for verify, what still differs;
- ``lines | xoff_nvue_script``: those lines as one shell command that stops at the first refusal;
- ``stdout | xoff_nvue_applied_revision``: the applied revision, from ``nv config history``;
- ``stdout | xoff_nvue_on_trial``: the revisions on commit-confirm trial, from ``nv config revision -o json``;
- ``running | xoff_nvue_rollback_mismatches(backup)``: what differs from the backup after a rollback.

Like ``host_state.py`` these import ``xoff``: the controller's Python must have it.
"""

from __future__ import annotations

import json
from typing import Any

from ansible.errors import AnsibleFilterError  # type: ignore[import-untyped]

from xoff.contracts.apply import ApplyError
from xoff.platforms.cumulus import CONFIRM_TIMER_S
from xoff.platforms.cumulus.patch import CommandsError, tree_from_commands
from xoff.push.ansible_steps import nvue_commands


def commands(stdout: str) -> str:
    return nvue_commands(stdout)


def diff(running: str, rendered: str) -> list[str]:
    # imported here: Ansible imports every filter plugin file in each task's fresh worker that templates a filter
    from xoff.platforms.cumulus.apply import Strategy  # noqa: PLC0415
    from xoff.platforms.cumulus.render import COMMANDS_FILE  # noqa: PLC0415

    try:
        return Strategy().diff(commands(running), {COMMANDS_FILE: rendered}).lines
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def script(lines: list[str]) -> str:
    """``nv`` lines joined with ``&&``: the shell stops at the first one NVUE refuses (exit status 1)."""
    for line in lines:
        if not line.startswith(("nv set ", "nv unset ")):
            raise AnsibleFilterError(f"xoff_nvue_script: not an nv set/unset line: {line!r}")
    return " && ".join(lines)  # the lines as the Nornir strategy types them at the switch's shell


def applied_revision(stdout: str) -> int:
    rows = [r.split() for r in commands(stdout).splitlines()[2:] if r.strip()]
    if not rows or len(rows[-1]) < 2 or not rows[-1][1].isdigit():
        raise AnsibleFilterError("nv config history: no applied revision found")
    return int(rows[-1][1])


def on_trial(stdout: str) -> list[str]:
    try:
        revisions: dict[str, Any] = json.loads(stdout)
    except ValueError:
        raise AnsibleFilterError(f"nv config revision -o json: not JSON: {stdout.strip()[:80]}") from None
    return [rev for rev, body in revisions.items() if isinstance(body, dict) and body.get("state") == "confirm"]


def rollback_mismatches(running: str, backup: str) -> list[str]:
    try:
        same = tree_from_commands(commands(running)) == tree_from_commands(commands(backup))
    except CommandsError as exc:
        raise AnsibleFilterError(f"nv config show -o commands: {exc}") from None
    return [] if same else ["the applied NVUE configuration differs from the backup"]


def confirm_timer(_: Any = None) -> str:
    """The commit-confirm time the Nornir strategy uses (``nv config apply --confirm <it>``)."""
    return f"{CONFIRM_TIMER_S}s"


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {
            "xoff_nvue_commands": commands,
            "xoff_nvue_diff": diff,
            "xoff_nvue_script": script,
            "xoff_nvue_applied_revision": applied_revision,
            "xoff_nvue_on_trial": on_trial,
            "xoff_nvue_rollback_mismatches": rollback_mismatches,
            "xoff_nvue_confirm_timer": confirm_timer,
        }
