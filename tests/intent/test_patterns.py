from __future__ import annotations

import pytest

from xoff.intent.patterns import PatternError, expand, expand_names


@pytest.mark.parametrize(
    ("pattern", "names"),
    [
        ("leaf1", ["leaf1"]),
        ("leaf{1..3}", ["leaf1", "leaf2", "leaf3"]),
        ("gpu{01..03}", ["gpu01", "gpu02", "gpu03"]),
        ("Ethernet{0..24..8}", ["Ethernet0", "Ethernet8", "Ethernet16", "Ethernet24"]),
        ("Ethernet{1..2}/{1..2}", ["Ethernet1/1", "Ethernet1/2", "Ethernet2/1", "Ethernet2/2"]),
        ("swp{a,b}", ["swpa", "swpb"]),
    ],
)
def test_expand(pattern: str, names: list[str]) -> None:
    assert expand(pattern) == names


@pytest.mark.parametrize("bad", ["leaf{1..3", "leaf1..3}", "x{}}"])
def test_bad_patterns_say_what_is_allowed(bad: str) -> None:
    with pytest.raises(PatternError, match=r"allowed: name\{1..4\}"):
        expand(bad)


def test_expand_names_accepts_lists_of_patterns() -> None:
    assert expand_names(["a{1..2}", "b"]) == ["a1", "a2", "b"]
    assert expand_names("c{1..2}") == ["c1", "c2"]
