"""The JSON printer behind the ``to_json`` filter prints exactly what ``json.dumps(value, indent=N)`` prints,
the first time and from its remembered texts, and leaves anything else to json.dumps."""

from __future__ import annotations

import enum
import json
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xoff.render.json_text import JsonPrinter, dumps

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)  # any code point: ensure_ascii escapes them as json.dumps does
)
KEYS = st.text(max_size=6) | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
VALUES = st.recursive(
    SCALARS,
    lambda kids: st.lists(kids, max_size=4) | st.tuples(kids, kids) | st.dictionaries(KEYS, kids, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(value=VALUES, indent=st.sampled_from([0, 1, 2, 4]))
def test_same_text_as_json_dumps(value: Any, indent: int) -> None:
    printer = JsonPrinter()
    expected = json.dumps(value, indent=indent)
    assert printer.dumps(value, indent) == expected
    assert printer.dumps(value, indent) == expected  # now from the remembered texts
    wrapped = {"device": "a", "tables": value, "again": value}  # the repeated block at the depth that is remembered
    assert printer.dumps(wrapped, indent) == json.dumps(wrapped, indent=indent)


def test_repeated_blocks_are_printed_once_and_reused() -> None:
    printer = JsonPrinter()
    qos = {"QUEUE": {f"Ethernet{n}|3": {"scheduler": "scheduler.0"} for n in range(0, 64, 8)}}
    first = printer.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}}, **qos}, 4)
    held = len(printer.texts)
    second = printer.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "leaf2"}}, **qos}, 4)
    assert second == first.replace("leaf1", "leaf2")
    assert len(printer.texts) == held + 1  # only leaf2's own metadata table is new


def test_equal_values_at_other_depths_or_indents_are_not_confused() -> None:
    printer = JsonPrinter()
    block = {"a": [1, {"b": "c"}]}
    for indent in (2, 4, 2):
        for value in ({"x": block}, {"x": {"y": block}}, [block, {"z": block}]):
            assert printer.dumps(value, indent) == json.dumps(value, indent=indent)


def test_the_cache_stays_within_its_size() -> None:
    printer = JsonPrinter(chars=2_000)
    for n in range(200):
        value = {"device": {"name": f"d{n}", "ports": list(range(n % 7))}}
        assert printer.dumps(value, 2) == json.dumps(value, indent=2)
    assert 0 < printer.texts.held <= 2_000


class Color(enum.IntEnum):
    RED = 1


@pytest.mark.parametrize(
    "value",
    [
        {"n": Color.RED},  # int subclasses, dict subclasses, odd keys: json.dumps prints them
        OrderedDict(a=1),
        {"n": [float("nan"), float("-inf")]},
        {(1, 2): "x"},  # json.dumps raises TypeError: keys must be str, int, ...
        {"x": object()},
    ],
)
def test_anything_else_is_json_dumps(value: Any) -> None:
    try:
        expected: Any = json.dumps(value, indent=2)
    except TypeError as exc:
        with pytest.raises(TypeError, match=str(exc)):
            dumps(value, 2)
        return
    assert dumps(value, 2) == expected


def test_a_circular_value_raises_as_json_dumps_does() -> None:
    loop: list[Any] = []
    loop.append([loop])
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps({"a": loop}, 2)
