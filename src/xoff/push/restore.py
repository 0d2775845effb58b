"""Restoring an earlier run's backups (``xoff rollback``) through the push's own device flow.

``RestoreStrategy`` wraps a platform's strategy so the flow (``device_flow``) restores instead of
applying rendered files: it backs the device up as it is now (the rollback run's own backup, so a
rollback can itself be rolled back), diffs it against the earlier run's backup (the platform's
``restore_change``: empty means nothing to restore), restores with the platform's own means
(``restore``: SONiC ``config replace`` after a checkpoint, EOS ``configure replace``, Cumulus a
revision on trial, a host's restore script), verifies that running equals the backup, confirms where
the platform restores on trial, and on any failure undoes the restore with the platform's rollback,
verified against the state it found.
"""

from __future__ import annotations

from xoff.connect.credentials import MASK
from xoff.contracts.apply import ApplyError, ApplyStrategy, Capabilities, ChangeSet
from xoff.contracts.session import Session


class RestoreStrategy(ApplyStrategy):
    platform = "restore"

    def __init__(self, inner: ApplyStrategy, backup: str | None, of_run: str, missing: str = "") -> None:
        super().__init__(inner.run_id)
        self.inner = inner
        self.target = backup  # the earlier run's backup; None: missing (an error for this device only)
        self.of_run = of_run
        self.missing = missing

    def _target(self) -> str:
        if self.target is None:
            raise ApplyError(self.missing or f"run {self.of_run} has no backup of this device")
        if MASK in self.target:  # backups are written masked: this one held a secret in clear
            raise ApplyError(
                f"run {self.of_run}'s backup holds a masked secret ({MASK}): restoring it would write the mask;"
                " restore this device by hand"
            )
        return self.target

    def prepare(self, session: Session) -> None:
        self.inner.prepare(session)

    def backup(self, session: Session) -> str:
        return self.inner.backup(session)

    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:  # noqa: ARG002
        return self.inner.restore_change(running, self._target())

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:  # noqa: ARG002
        self.inner.restore(session, change, self._target(), self.of_run)

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:  # noqa: ARG002
        return [f"differs from the backup: {line}" for line in self.verify_rollback(session, self._target())]

    def confirm(self, session: Session) -> None:
        if self.inner.restore_on_trial:
            self.inner.confirm(session)

    def rollback(self, session: Session, backup: str) -> None:
        self.inner.rollback(session, backup)

    def verify_rollback(self, session: Session, backup: str) -> list[str]:
        return self.inner.restore_change(self.inner.backup(session), backup).lines


def restore_capabilities(caps: Capabilities) -> Capabilities:
    """The flow confirms every verified restore (``RestoreStrategy.confirm`` decides whether the
    platform needs it) and undoes a failed one where the platform can roll back."""
    return Capabilities(
        atomic_replace=caps.atomic_replace,
        commit_confirm=True,
        rollback=caps.rollback,
        on_box_diff=caps.on_box_diff,
        apply_means=caps.restore_means or "the platform's rollback from the run's backup",
        undo_means=caps.undo_means,
        restore_means=caps.restore_means,
    )
