"""Push to a Linux GPU host: the rendered idempotent ``xoff-host-apply.sh``, over SSH exec channels
(no login shell, so the PATH and environment sshd gives the session stay; the script goes in on
standard input, nothing is left on the host but what it sets).

- backup: the host's state as the script reads it (``observe.SNAPSHOT_SCRIPT``), normalised JSON;
- diff: that state against the rendered ``xoff-host-state.json`` and ``nccl.env`` (pure);
- apply: ``bash -s`` < the rendered script; verify: the state again, and the script's own ``--check``;
- rollback: a restore script generated from the backup (``restore.restore_script``), then the
  state read again must equal the backup.
"""

from __future__ import annotations

import json
from typing import Any

from xoff.contracts.apply import ApplyError, ApplyStrategy, ChangeSet
from xoff.contracts.session import Session
from xoff.platforms.linux.observe import SNAPSHOT_SCRIPT, dumps, parse_snapshot, rollback_mismatches, state_diff
from xoff.platforms.linux.restore import restore_script

SCRIPT = "xoff-host-apply.sh"
STATE = "xoff-host-state.json"
NCCL_ENV = "nccl.env"
RESTORE = "restore script"
MESSAGE_PREFIX = ("xoff-host-apply", "restore: ")  # how the apply and restore scripts begin their messages
TIMEOUT_S = 120.0


def _tail(text: str) -> str:
    """The script's last own message (``xoff-host-apply: ...``; one may span lines, as a failed command's
    arguments do), else the last line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    own = [ln for ln in lines if ln.startswith(MESSAGE_PREFIX)]
    return own[-1] if own else lines[-1] if lines else "(no output)"


# Pure steps shared with the Ansible engine (playbooks/filter_plugins/host_state.py), which runs the
# same scripts on the host and hands their output to these, so both engines judge a host the same way.


def exit_message(what: str, status: int, out: str, err: str) -> str:
    """A failed script in one line: ``xoff-host-apply.sh exit 3: <its last line>``."""
    return f"{what} exit {status}: {_tail(err or out)}"


def read_state(status: int, out: str, err: str) -> dict[str, Any]:
    """The snapshot script's result -> the state; ApplyError when it did not run to its end."""
    if status != 0:
        raise ApplyError(f"reading the host state failed ({status}): {_tail(err)}")
    try:
        return parse_snapshot(out)
    except ValueError as exc:
        raise ApplyError(str(exc)) from None


def changes(running: str, desired: dict[str, str]) -> list[str]:
    """The backup (``dumps`` of a state) against the rendered files: one line per value to change."""
    try:
        want = json.loads(desired[STATE])
    except (KeyError, ValueError) as exc:
        raise ApplyError(f"rendered {STATE} missing or not JSON ({exc})") from None
    return state_diff(json.loads(running), want, desired.get(NCCL_ENV))


def verify_problems(state: dict[str, Any], desired: dict[str, str], check_status: int, check_out: str) -> list[str]:
    """After the apply: what still differs from the rendered state, and the script's ``--check`` verdict."""
    problems = changes(dumps(state), desired)
    if check_status != 0:
        problems.append(f"{SCRIPT} --check: {_tail(check_out)}")
    return problems


class Strategy(ApplyStrategy):
    platform = "linux"

    def _bash(self, session: Session, script: str, *args: str) -> tuple[int, str, str]:
        command = "bash -s" + ("".join(f" {a}" for a in ("--", *args)) if args else "")
        return session.exec_command(command, stdin=script, timeout=TIMEOUT_S)

    def _state(self, session: Session) -> dict[str, Any]:
        return read_state(*self._bash(session, SNAPSHOT_SCRIPT))

    def backup(self, session: Session) -> str:
        return dumps(self._state(session))

    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:
        return ChangeSet(lines=changes(running, desired))

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:  # noqa: ARG002
        status, out, err = self._bash(session, desired[SCRIPT])
        if status != 0:
            raise ApplyError(exit_message(SCRIPT, status, out, err))

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        state = self._state(session)
        status, out, _ = self._bash(session, desired[SCRIPT], "--check")
        return verify_problems(state, desired, status, out)

    def rollback(self, session: Session, backup: str) -> None:
        status, out, err = self._bash(session, restore_script(json.loads(backup)))
        if status != 0:
            raise ApplyError(exit_message(RESTORE, status, out, err))

    def verify_rollback(self, session: Session, backup: str) -> list[str]:
        return rollback_mismatches(self._state(session), json.loads(backup))
