"""The apply-strategy contract: how one platform is backed up, diffed, changed, verified and undone.

Each platform implements it in ``xoff.platforms.<package>.apply`` as a subclass of ``ApplyStrategy``
named ``Strategy``; ``STRATEGY_MODULES`` below joins device platforms to those modules (one line per
platform). The push engine drives a strategy through one open session; strategies never open
connections themselves, so the same strategy serves every engine that can hand it a session.

Rules every strategy keeps:
- ``diff`` is pure (running text + rendered files -> ChangeSet): no session, so dry runs and tests need
  no device, and "0 changes" means nothing is sent at all.
- ``apply`` either leaves the device fully at desired or raises ``ApplyError``; the engine then calls
  ``rollback`` with the backup and ``verify_rollback`` to prove running equals the backup again.
- Nothing a strategy returns (diff text, errors) may contain a secret: mask with ``xoff.connect.mask``.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from xoff.push.model import Capabilities


class Session(Protocol):
    """The slice of netmiko's BaseConnection a strategy may use."""

    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> Any: ...

    def send_command_timing(self, command_string: str, *args: Any, **kwargs: Any) -> Any: ...

    def send_config_set(self, config_commands: Any = None, *args: Any, **kwargs: Any) -> str: ...


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
    platform: ClassVar[str]
    capabilities: ClassVar[Capabilities]
    netmiko_device_type: ClassVar[str]

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

    @abstractmethod
    def rollback(self, session: Session, backup: str) -> None:
        """Return the device to ``backup``; raise ApplyError if it cannot."""

    def verify_rollback(self, session: Session, backup: str) -> list[str]:
        """The differences between running and ``backup`` after a rollback (empty: restored)."""
        running = self.backup(session)
        return [] if running == backup else [f"running differs from the backup after rollback ({self.platform})"]


# device platform -> module holding its ``Strategy`` (one line per platform)
STRATEGY_MODULES: dict[str, str] = {
    "sonic": "xoff.platforms.sonic.apply",
    "eos": "xoff.platforms.eos.apply",
    "cumulus": "xoff.platforms.cumulus.apply",
    "linux": "xoff.platforms.host.apply",
}


def strategy_for(platform: str) -> ApplyStrategy:
    try:
        module_name = STRATEGY_MODULES[platform]
    except KeyError:
        allowed = ", ".join(sorted(STRATEGY_MODULES))
        raise KeyError(f"no push strategy for platform {platform!r} (allowed: {allowed})") from None
    cls: type[ApplyStrategy] = importlib.import_module(module_name).Strategy
    return cls()
