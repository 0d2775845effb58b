"""Push to Cumulus Linux with NVUE: the whole configuration as one revision, applied atomically, undone by
applying the previous revision.

- backup: ``nv config show -o commands`` (the applied revision as ``nv set`` lines);
- diff: hierarchical, on the NVUE tree (``patch.diff``): running vs the rendered nvue-commands.txt,
  as ``nv unset`` / ``nv set`` lines: a replace, so settings xoff does not render are removed;
- apply: ``nv config detach`` (a stale pending revision of an earlier session is set aside, never
  applied), the unset/set lines into a fresh pending revision, ``nv config diff -o commands`` (NVUE's
  own diff of pending vs applied; it must equal xoff's), then ``nv config apply --confirm <N>s -y``:
  NVUE applies the whole revision or none of it, on trial: unless confirmed within the timer it puts
  the previous revision back by itself, so a controller that loses the switch mid-change (a dropped
  session, a crash) leaves it safe. The applied revision before the push is read from ``nv config history``;
- confirm (after verify): ``nv config apply --confirm-yes`` (NVUE then saves it as startup);
- rollback: during the trial ``nv config apply --confirm-no`` (NVUE puts the previous revision back at
  once); then, if the applied revision is still not the one before the push (the trial was confirmed,
  or lapsed into something else), ``nv config apply <previous rev> -y``. Nothing applied: ``nv config
  detach`` sets the pending revision aside.

Revisions on trial are those whose state is ``confirm`` in ``nv config revision -o json``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from netmiko.exceptions import ConfigInvalidException

from xoff.contracts.apply import ApplyError, ApplyStrategy, ChangeSet
from xoff.contracts.session import Session
from xoff.platforms.cumulus import CONFIRM_TIMER_S
from xoff.platforms.cumulus.nvue import Tree
from xoff.platforms.cumulus.patch import CommandsError, diff, patch_commands, tree_from_commands
from xoff.platforms.cumulus.render import COMMANDS_FILE

READ_TIMEOUT_S = 60.0
ERROR_PATTERN = r"(?m)^(Error:|Invalid config)"
_APPLIED = re.compile(r"applied \[rev_id: (\d+)\]")


def _tree(text: str, what: str) -> Tree:
    try:
        return tree_from_commands(text)
    except CommandsError as exc:
        raise ApplyError(f"{what}: {exc}") from None


def _refusal(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith(("Error:", "Invalid config", "-bash:")):
            return line.strip()
    return None


class Strategy(ApplyStrategy):
    platform = "cumulus"
    restore_on_trial = True  # a restore is a revision applied on trial, confirmed after its verify

    def __init__(self, run_id: str = "manual") -> None:
        super().__init__(run_id)
        self.previous: int | None = None  # the applied revision before this push
        self.applied = False
        self.confirm_timer_s = CONFIRM_TIMER_S  # the lab's tests shorten it

    def _run(self, session: Session, command: str) -> str:
        out = str(session.send_command(command, read_timeout=READ_TIMEOUT_S))
        refusal = _refusal(out)
        if refusal is not None:
            raise ApplyError(f"{command}: {refusal}")
        return out

    def backup(self, session: Session) -> str:
        return self._run(session, "nv config show -o commands")

    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:
        try:
            text = desired[COMMANDS_FILE]
        except KeyError:
            raise ApplyError(f"no rendered {COMMANDS_FILE}") from None
        unset, sets = diff(_tree(running, "running configuration"), _tree(text, COMMANDS_FILE))
        lines = patch_commands(unset, sets)
        return ChangeSet(lines=lines, payload=lines)

    def _applied_revision(self, session: Session) -> int:
        rows = [r.split() for r in self._run(session, "nv config history").splitlines()[2:] if r.strip()]
        if not rows or not rows[-1][1].isdigit():
            raise ApplyError("nv config history: no applied revision found")
        return int(rows[-1][1])

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:  # noqa: ARG002
        self.previous = self._applied_revision(session)
        self._run(session, "nv config detach")
        try:
            out = session.send_config_set(
                change.payload,
                enter_config_mode=False,
                exit_config_mode=False,
                error_pattern=ERROR_PATTERN,
                read_timeout=READ_TIMEOUT_S,
            )
        except ConfigInvalidException as exc:  # netmiko stops at the first refused line
            raise ApplyError(f"nv set: {str(exc).splitlines()[0]}") from None
        refusal = _refusal(out)
        if refusal is not None:
            raise ApplyError(f"nv set: {refusal}")
        on_box = [ln for ln in self._run(session, "nv config diff -o commands").splitlines() if ln.strip()]
        if sorted(on_box) != sorted(change.payload):
            raise ApplyError(f"nv config diff shows {len(on_box)} changes, xoff sent {len(change.payload)}")
        self.applied = True  # from here on, whatever answers: the rollback looks at the switch
        out = self._run(session, f"nv config apply --confirm {self.confirm_timer_s}s -y")
        if not _APPLIED.search(out):
            raise ApplyError(f"nv config apply: {out.strip().splitlines()[0] if out.strip() else 'no answer'}")

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        return self.diff(self.backup(session), desired).lines

    def confirm(self, session: Session) -> None:
        self._run(session, "nv config apply --confirm-yes")

    def _on_trial(self, session: Session) -> list[str]:
        out = self._run(session, "nv config revision -o json")
        try:
            revisions: dict[str, Any] = json.loads(out)
        except ValueError:
            raise ApplyError(f"nv config revision -o json: not JSON: {out.strip()[:80]}") from None
        return [rev for rev, body in revisions.items() if isinstance(body, dict) and body.get("state") == "confirm"]

    def rollback(self, session: Session, backup: str) -> None:  # noqa: ARG002 (NVUE keeps the revision itself)
        self._run(session, "nv config detach")  # a partial pending revision is set aside, never applied
        if self.applied and self._on_trial(session):
            self._run(session, "nv config apply --confirm-no")  # NVUE puts the previous revision back now
        if self.previous is None:
            if self.applied:
                raise ApplyError("no previous revision to return to")
            return
        # also when the session dropped during the apply: whatever is applied now, go back to the previous
        if self._applied_revision(session) != self.previous:
            out = self._run(session, f"nv config apply {self.previous} -y")
            if not _APPLIED.search(out):
                raise ApplyError(f"nv config apply {self.previous}: {out.strip() or 'no answer'}")

    def restore_change(self, running: str, backup: str) -> ChangeSet:
        """The backup (``nv config show -o commands``) as the revision to apply: unset/set lines."""
        return self.diff(running, {COMMANDS_FILE: backup})

    def restore(self, session: Session, change: ChangeSet, backup: str, of_run: str) -> None:  # noqa: ARG002
        """The backup applied as a new revision, as a push applies one (on trial, atomically); a failed
        restore goes back to the revision before it."""
        self.apply(session, change, {COMMANDS_FILE: backup})
