"""What a schema problem takes out: the names of broken entries are remembered up to a bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from xoff.errors import InputError
from xoff.intent import damage, load_intent

MINIMAL = Path(__file__).parent.parent / "fixtures" / "intent" / "minimal.yaml"


def _broken_leaves_and_a_rail_to_leaf9(tmp_path: Path) -> Path:
    text = MINIMAL.read_text(encoding="utf-8")
    for leaf in ("leaf1", "leaf2"):
        text = text.replace(f"{{name: {leaf}, role: leaf,", f"{{name: {leaf}, role: leaf, mtu: big,")
    text = text.replace("leaves: [leaf1, leaf2]}", "leaves: [leaf1, leaf9]}")
    path = tmp_path / "intent.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _fields(path: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_intent(path)
    return [p.path for p in info.value.sorted()]


def test_a_reference_beside_broken_entries_is_judged(tmp_path: Path) -> None:
    """leaf1 is broken (left out silently), leaf9 was never defined: reported."""
    path = _broken_leaves_and_a_rail_to_leaf9(tmp_path)
    assert _fields(path) == ["switches[1].mtu", "switches[2].mtu", "cabling[1].leaves[1]"]


def test_past_the_bound_every_unknown_name_counts_as_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_LOST_NAMES the names of broken entries are no longer expanded (bounded work): any unknown
    name may be one of them, so the reference to leaf9 is not judged."""
    monkeypatch.setattr(damage, "MAX_LOST_NAMES", 1)
    path = _broken_leaves_and_a_rail_to_leaf9(tmp_path)
    assert _fields(path) == ["switches[1].mtu", "switches[2].mtu"]
