"""The apply-strategy contract: how one platform is backed up, diffed, changed, verified and undone.

Each platform implements it as a subclass of ``ApplyStrategy`` and names it in its ``Platform`` record
(``xoff.platforms.registry``), together with its ``Capabilities``: what push plans with (whether it
confirms a commit, whether it can roll back). The push engine drives a strategy through one open
session; strategies never open connections themselves, so the same strategy serves every engine that
can hand it a session. How the session is opened (netmiko device type, options) is the record's
``transport``, never the strategy's.

Rules every strategy keeps:
- ``diff`` is pure (running text + rendered files -> ChangeSet): no session, so dry runs and tests need
  no device, and "0 changes" means nothing is sent at all.
- ``apply`` either leaves the device fully at desired or raises ``ApplyError``; the engine then calls
  ``rollback`` with the backup and ``verify_rollback`` to prove running equals the backup again.
- Nothing a strategy returns (diff text, errors) may contain a secret: mask with ``xoff.connect.mask``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xoff.contracts.session import Session


@dataclass(frozen=True)
class Capabilities:
    """What a platform's apply strategy can do: the push flow plans with it (``commit_confirm``: confirm
    after a clean verify; ``rollback``: undo a failed change) and prints it in the plan."""

    atomic_replace: bool
    commit_confirm: bool
    rollback: bool
    on_box_diff: bool
    apply_means: str  # how it will be changed, e.g. "checkpoint + config apply-patch"
    undo_means: str  # how it would be undone, e.g. "config rollback <checkpoint>"
    restore_means: str = ""  # how ``xoff rollback`` restores an earlier run's backup (``restore``)


class ApplyError(Exception):
    """The device refused or failed a change; the message is one line, secrets masked."""


@dataclass
class ChangeSet:
    """What would change: human lines for the diff display, and the platform's own payload."""

    lines: list[str] = field(default_factory=list)  # one entry per change, e.g. "+ interface Ethernet1 mtu 9100"
    payload: Any = None  # platform-specific: a JSON Patch, a config text, a command list

    @property
    def count(self) -> int:
        return len(self.lines)

    @property
    def empty(self) -> bool:
        return not self.lines


class ApplyStrategy(ABC):
    """One instance per device and push: it may remember what ``apply`` did (a checkpoint or session
    name) for ``rollback``. ``run_id`` names this push on the device (``xoff-<run_id>``)."""

    platform: ClassVar[str]

    def __init__(self, run_id: str = "manual") -> None:
        self.run_id = run_id

    def prepare(self, session: Session) -> None:  # noqa: B027 (optional hook: most platforms need nothing)
        """Make a fresh session ready (e.g. EOS ``enable``); called after every connect."""

    @abstractmethod
    def backup(self, session: Session) -> str:
        """The running configuration, in the form ``rollback`` can restore and ``diff`` can read."""

    @abstractmethod
    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:
        """Pure: the changes that take ``running`` to the rendered files ``desired`` (file name -> text)."""

    @abstractmethod
    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:
        """Apply with the safest means the platform has; raise ApplyError on any refusal."""

    @abstractmethod
    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        """Read the touched state again; the mismatches with desired (empty: verified)."""

    def confirm(self, session: Session) -> None:  # noqa: B027 (optional hook: most platforms need nothing)
        """After a clean verify, on platforms whose capabilities say ``commit_confirm``: make the change
        permanent where the platform committed it with a timer (EOS ``commit timer``, NVUE ``--confirm``);
        a failure here rolls back."""

    @abstractmethod
    def rollback(self, session: Session, backup: str) -> None:
        """Return the device to ``backup``; raise ApplyError if it cannot."""

    def verify_rollback(self, session: Session, backup: str) -> list[str]:
        """The differences between running and ``backup`` after a rollback (empty: restored)."""
        running = self.backup(session)
        return [] if running == backup else [f"running differs from the backup after rollback ({self.platform})"]

    # Restoring a backup an earlier run took (``xoff rollback``): the push flow drives these through
    # ``push.restore.RestoreStrategy``, so a restore is backed up, diffed, applied, verified and undone
    # like any change.
    restore_on_trial: ClassVar[bool] = False  # ``restore`` leaves the change on a timer ``confirm`` ends

    def restore_change(self, running: str, backup: str) -> ChangeSet:
        """Pure: what restoring ``backup`` (a backup this platform took) would change in ``running``;
        empty when running already equals it."""
        if running == backup:
            return ChangeSet()
        return ChangeSet(lines=[f"~ the running configuration differs from the backup ({self.platform})"])

    def restore(self, session: Session, change: ChangeSet, backup: str, of_run: str) -> None:  # noqa: ARG002
        """Return the device to ``backup``, taken by the earlier run ``of_run``, by the platform's own
        means (by default its ``rollback`` from a backup); raise ApplyError if it cannot."""
        self.rollback(session, backup)
