"""SONiC NOS emulator: community SONiC's shell, ``show`` and ``config`` over a CONFIG_DB held as
JSON and validated against SONiC's YANG models (see ``emulator``)."""

from xoff.lab.emulators.sonic.emulator import Emulator
from xoff.lab.emulators.sonic.store import Store

__all__ = ["Emulator", "Store"]
