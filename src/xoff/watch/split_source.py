"""``xoff watch --source gnmi``: the switches that serve gNMI are read over it, every other device (EOS, hosts) over
SSH as before, in the same round. A fabric is rarely all one kind, and a device with no gNMI is not a failed one."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Protocol

from xoff.watch.sample import CounterSource, Sample


class _Closable(CounterSource, Protocol):
    def close(self) -> None: ...


class SplitSource:
    """Reads ``first``'s devices through ``first`` and the rest through ``rest``; samples of both, one per device."""

    def __init__(self, first: _Closable, first_devices: set[str], rest: _Closable) -> None:
        self.first, self.first_devices, self.rest = first, first_devices, rest
        self.name = first.name

    def read(self, devices: Sequence[str]) -> list[Sample]:
        mine = [d for d in devices if d in self.first_devices]
        others = [d for d in devices if d not in self.first_devices]
        return [*(self.first.read(mine) if mine else []), *(self.rest.read(others) if others else [])]

    def close(self) -> None:
        for source in (self.first, self.rest):
            with suppress(Exception):  # closing one must not keep the other open
                source.close()
