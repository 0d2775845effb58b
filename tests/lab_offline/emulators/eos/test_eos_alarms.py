"""The EOS emulator's commit timers share one thread per process (``cli.Alarms``): each armed session is called
back once at its own deadline, a re-arm replaces the earlier deadline, a cancelled one never fires, and a failing
callback does not stop the others."""

from __future__ import annotations

import threading
import time

from tests.support.waiting import SETTLE_S
from xoff.lab.emulators.eos.cli import Alarms


def test_each_owner_fires_once_at_its_own_deadline() -> None:
    alarms = Alarms()
    fired: list[str] = []
    done = threading.Event()
    owners = [object() for _ in range(4)]

    def fire(name: str) -> None:
        fired.append(name)
        if name == "last":
            done.set()

    def broken() -> None:
        raise RuntimeError("a rollback that failed")

    alarms.set(owners[0], 0.3, lambda: fire("first, re-armed"))
    alarms.set(owners[0], 0.05, lambda: fire("first"))  # replaces the 0.3 s one
    alarms.set(owners[1], 0.1, broken)
    alarms.set(owners[2], 0.15, lambda: fire("cancelled"))
    alarms.cancel(owners[2])
    alarms.set(owners[3], 0.4, lambda: fire("last"))
    assert done.wait(SETTLE_S)
    time.sleep(0.1)  # nothing else is due
    assert fired == ["first", "last"]
