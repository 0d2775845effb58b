"""The render memo: a key fixes its value (types included), the budget holds, the least recently used go first."""

from __future__ import annotations

import enum

import pytest

from xoff.render.memo import Memo, key_of


def test_keys_tell_apart_what_prints_differently() -> None:
    values = [1, 1.0, True, "1", [1], (1,), {"a": 1}, {"a": 1.0}, {1: "a"}, {"1": "a"}, None, 0, False]
    assert len({key_of(v) for v in values}) == len(values)
    shared = "Ethernet0"
    assert key_of({"a": shared, "b": shared}) == key_of({"a": "Ethernet0", "b": "Ethernet" + "0"})  # no refs


def test_subclasses_are_refused() -> None:
    class Color(enum.IntEnum):
        RED = 1

    with pytest.raises(ValueError, match="unmarshallable"):
        key_of({"c": Color.RED})


def test_budget_and_order() -> None:
    made: list[str] = []
    memo: Memo[str] = Memo(10, len)

    def make(text: str) -> str:
        made.append(text)
        return text

    assert memo.get("a", lambda: make("aaaa")) == "aaaa"
    assert memo.get("b", lambda: make("bbbb")) == "bbbb"
    assert memo.get("a", lambda: make("never")) == "aaaa"  # kept, and now the most recently used
    memo.get("c", lambda: make("cccc"))  # 12 > 10: "b", the least recently used, goes
    assert memo.held == 8 and len(memo) == 2
    assert memo.get("b", lambda: make("bbbb")) == "bbbb"
    assert made == ["aaaa", "bbbb", "cccc", "bbbb"]
