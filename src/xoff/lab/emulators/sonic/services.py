"""What the SONiC command trees (``config_cmds``, ``show_cmds``) need of the session that runs them.

A protocol, so the command modules depend on this small surface and not on the emulator class that
imports them (no import cycle, not even a type-only one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from xoff.lab.emulators.base import EmulatorContext
    from xoff.lab.emulators.sonic import gcu
    from xoff.lab.emulators.sonic.store import ConfigDb, Store


class SonicSession(Protocol):
    ctx: EmulatorContext
    store: Store
    cwd: str  # the shell's working directory, for file arguments

    def running(self) -> ConfigDb: ...

    def validate(self, config: ConfigDb) -> list[str]:
        """The YANG errors of ``config`` (empty: valid)."""
        ...

    def updater(self) -> gcu.Updater: ...

    def commit(self, old: ConfigDb, new: ConfigDb) -> None:
        """Write an accepted configuration, then carry it into the namespace and FRR."""
        ...

    def asic_type(self) -> str: ...
