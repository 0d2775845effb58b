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

from xoff.platforms.host.observe import SNAPSHOT_SCRIPT, dumps, parse_snapshot, state_diff
from xoff.platforms.host.restore import restore_script
from xoff.push.model import Capabilities
from xoff.push.strategy import ApplyError, ApplyStrategy, ChangeSet, Session

SCRIPT = "xoff-host-apply.sh"
STATE = "xoff-host-state.json"
NCCL_ENV = "nccl.env"
TIMEOUT_S = 120.0


def _tail(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "(no output)"


class Strategy(ApplyStrategy):
    platform = "linux"
    netmiko_device_type = "linux"
    capabilities = Capabilities(
        atomic_replace=False,
        commit_confirm=False,
        rollback=True,
        on_box_diff=True,
        apply_means="xoff-host-apply.sh (idempotent: reads each value, changes only what differs)",
        undo_means="restore script generated from the backup snapshot (links, routes, rules, NIC QoS, RoCE, ECN, NCCL)",
    )

    def _bash(self, session: Session, script: str, *args: str) -> tuple[int, str, str]:
        command = "bash -s" + ("".join(f" {a}" for a in ("--", *args)) if args else "")
        return session.exec_command(command, stdin=script, timeout=TIMEOUT_S)

    def _state(self, session: Session) -> dict[str, Any]:
        status, out, err = self._bash(session, SNAPSHOT_SCRIPT)
        if status != 0:
            raise ApplyError(f"reading the host state failed ({status}): {_tail(err)}")
        try:
            return parse_snapshot(out)
        except ValueError as exc:
            raise ApplyError(str(exc)) from None

    def backup(self, session: Session) -> str:
        return dumps(self._state(session))

    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:
        try:
            want = json.loads(desired[STATE])
        except (KeyError, ValueError) as exc:
            raise ApplyError(f"rendered {STATE} missing or not JSON ({exc})") from None
        return ChangeSet(lines=state_diff(json.loads(running), want, desired.get(NCCL_ENV)))

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:  # noqa: ARG002
        status, out, err = self._bash(session, desired[SCRIPT])
        if status != 0:
            raise ApplyError(f"{SCRIPT} exit {status}: {_tail(err or out)}")

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        problems = self.diff(dumps(self._state(session)), desired).lines
        status, out, _ = self._bash(session, desired[SCRIPT], "--check")
        if status != 0:
            problems.append(f"{SCRIPT} --check: {_tail(out)}")
        return problems

    def rollback(self, session: Session, backup: str) -> None:
        status, out, err = self._bash(session, restore_script(json.loads(backup)))
        if status != 0:
            raise ApplyError(f"restore script exit {status}: {_tail(err or out)}")

    def verify_rollback(self, session: Session, backup: str) -> list[str]:
        now, before = self._state(session), json.loads(backup)
        return [f"{key} differs from the backup" for key in sorted(before) if now.get(key) != before[key]]
