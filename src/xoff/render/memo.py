"""Text a renderer has already made, kept for the next device that needs the same.

Rendering a fabric prints the same blocks (QoS tables, buffer profiles, NIC settings) for every switch and host,
but the renderers run one device at a time. A ``Memo`` keeps each block under a key that fixes it (the caller
proves that: the key is the block's inputs, serialized by ``key_of``), within a size budget, dropping the least
recently used first. ``key_of`` uses ``marshal`` format 2: it serializes exactly the plain types (str, int,
float, bool, None, list, tuple, dict; subclasses are refused), types included, and unlike format 3 and later has
no back-references, so equal values give equal bytes and equal bytes mean equal values.
"""

from __future__ import annotations

import marshal
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
MARSHAL_FORMAT = 2  # the last format without references (3 added them): the bytes depend on the value alone


def key_of(value: Any) -> bytes:
    """The value's serialization (ValueError for anything but plain types)."""
    return marshal.dumps(value, MARSHAL_FORMAT)


class Memo(Generic[T]):
    """Values by key, at most ``budget`` units of ``size`` (keys not counted); least recently used dropped first."""

    def __init__(self, budget: int, size: Callable[[T], int]) -> None:
        self._values: OrderedDict[Hashable, tuple[T, int]] = OrderedDict()
        self._budget = budget
        self._size = size
        self.held = 0

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        """The value kept under ``key``, else ``make()`` (kept)."""
        kept = self._values.get(key)
        if kept is not None:
            self._values.move_to_end(key)
            return kept[0]
        value = make()
        size = self._size(value)
        self._values[key] = (value, size)
        self.held += size
        while self.held > self._budget:
            _, (_, dropped) = self._values.popitem(last=False)
            self.held -= dropped
        return value

    def __len__(self) -> int:
        return len(self._values)
