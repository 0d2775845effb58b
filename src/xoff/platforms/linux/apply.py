"""Push to a Linux GPU host over SSH exec channels (no login shell, so the PATH and environment sshd
gives the session stay; each script goes in on standard input, nothing is left on the host but what it
sets). A push costs round trips close to the number of real changes, not tool calls (issue 14):

- backup: one read of the whole host (``observe.SNAPSHOT_SCRIPT``: links, routes, rules, every NIC's
  ``mlnx_qos``, RDMA-CM, ECN, the NCCL file), normalised JSON; a host already right ends here;
- diff: that state against the rendered ``xoff-host-state.json`` and ``nccl.env`` (pure), and the
  change script that writes only what differs (``writes.write_script``, computed from the same read);
- apply: that script, one batch (``set -e``); verify: one read again, judged the same way, plus the
  verified-only prerequisites (``prereq``: RDMA link layers, GPUDirect);
- rollback: a restore script generated from the backup (``restore.restore_script``), then the
  state read again must equal the backup.

The rendered ``xoff-host-apply.sh`` stays the stand-alone artifact (run by hand, ``--check``); the
push does not run it, as it reads every value with its own tool call.
"""

from __future__ import annotations

import json
from typing import Any

from xoff.contracts.apply import ApplyError, ApplyStrategy, ChangeSet
from xoff.contracts.session import Session
from xoff.platforms.linux.observe import SNAPSHOT_SCRIPT, dumps, parse_snapshot, rollback_mismatches, state_diff
from xoff.platforms.linux.prereq import prereq_problems, prereq_script
from xoff.platforms.linux.restore import restore_script
from xoff.platforms.linux.writes import write_script

STATE = "xoff-host-state.json"
NCCL_ENV = "nccl.env"
RESTORE = "restore script"
CHANGE = "host change script"
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


def change_script(running: str, desired: dict[str, str]) -> str:
    """The backup against the rendered files: the bash that writes only what differs ("" when nothing does)."""
    return write_script(json.loads(running), _desired_state(desired), desired.get(NCCL_ENV))


def verify_script(desired: dict[str, str]) -> str:
    """The verify read: the snapshot, then the facts of the verified-only prerequisites."""
    return SNAPSHOT_SCRIPT + prereq_script(_desired_state(desired))


def verify_problems(status: int, out: str, err: str, desired: dict[str, str]) -> list[str]:
    """After the apply, from the verify read: what still differs from the rendered state, and the
    verified-only prerequisites that do not hold."""
    state = read_state(status, out, err)
    return changes(dumps(state), desired) + prereq_problems(out, _desired_state(desired))


def _desired_state(desired: dict[str, str]) -> dict[str, Any]:
    try:
        return dict(json.loads(desired[STATE]))
    except (KeyError, ValueError) as exc:
        raise ApplyError(f"rendered {STATE} missing or not JSON ({exc})") from None


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
        lines = changes(running, desired)
        return ChangeSet(lines=lines, payload=change_script(running, desired) if lines else "")

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:
        script = change.payload if isinstance(change.payload, str) else change_script(self.backup(session), desired)
        if not script:
            return
        status, out, err = self._bash(session, script)
        if status != 0:
            raise ApplyError(exit_message(CHANGE, status, out, err))

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        return verify_problems(*self._bash(session, verify_script(desired)), desired)

    def rollback(self, session: Session, backup: str) -> None:
        status, out, err = self._bash(session, restore_script(json.loads(backup)))
        if status != 0:
            raise ApplyError(exit_message(RESTORE, status, out, err))

    def verify_rollback(self, session: Session, backup: str) -> list[str]:
        return rollback_mismatches(self._state(session), json.loads(backup))

    def restore_change(self, running: str, backup: str) -> ChangeSet:
        return ChangeSet(lines=rollback_mismatches(json.loads(running), json.loads(backup)))
