"""Failure domains from the intent: written (pod, plane, rack, unit) or derived from the cabling."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.intent.test_generators import CLOS3
from xoff.desired import build_fabric_state
from xoff.desired.domains import DomainKind, domains, members
from xoff.errors import InputError
from xoff.intent import load_intent

PLACED = CLOS3.replace(
    '- {name: "gpu{1..4}", profile: h}',
    '- {name: "gpu{1..2}", profile: h, unit: 1, rack: r1}\n  - {name: "gpu{3..4}", profile: h, unit: 2}',
).replace(
    '- {name: "leaf{1..4}", role: leaf}',
    '- {name: "leaf{1..2}", role: leaf, rack: r1}\n  - {name: "leaf{3..4}", role: leaf, rack: r2}',
)


def _state(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "intent.yaml"
    path.write_text(text)
    return build_fabric_state(load_intent(path))


EXPECTED: dict[DomainKind, dict[str, str]] = {
    # super-spines are in no pod; hosts follow the pod of the leaves they hang on
    "pod": {
        "leaf1": "pod1",
        "leaf2": "pod1",
        "leaf3": "pod2",
        "leaf4": "pod2",
        "spine1": "pod1",
        "spine2": "pod1",
        "spine3": "pod2",
        "spine4": "pod2",
        "ss1": "-",
        "ss2": "-",
        "ss3": "-",
        "ss4": "-",
        "gpu1": "pod1",
        "gpu2": "pod1",
        "gpu3": "pod2",
        "gpu4": "pod2",
    },
    # a leaf's scalable unit is its hosts'; spines are in none
    "su": {
        "leaf1": "su1",
        "leaf2": "su1",
        "leaf3": "su2",
        "leaf4": "su2",
        "spine1": "-",
        "spine2": "-",
        "spine3": "-",
        "spine4": "-",
        "ss1": "-",
        "ss2": "-",
        "ss3": "-",
        "ss4": "-",
        "gpu1": "su1",
        "gpu2": "su1",
        "gpu3": "su2",
        "gpu4": "su2",
    },
    # clos3: spine i of every pod and the super-spines it cables to are plane i
    "plane": {
        "leaf1": "-",
        "leaf2": "-",
        "leaf3": "-",
        "leaf4": "-",
        "spine1": "plane1",
        "spine2": "plane2",
        "spine3": "plane1",
        "spine4": "plane2",
        "ss1": "plane1",
        "ss2": "plane1",
        "ss3": "plane2",
        "ss4": "plane2",
        "gpu1": "-",
        "gpu2": "-",
        "gpu3": "-",
        "gpu4": "-",
    },
    # a written rack wins; a host without one takes its leaves' rack
    "rack": {
        "leaf1": "r1",
        "leaf2": "r1",
        "leaf3": "r2",
        "leaf4": "r2",
        "spine1": "-",
        "spine2": "-",
        "spine3": "-",
        "spine4": "-",
        "ss1": "-",
        "ss2": "-",
        "ss3": "-",
        "ss4": "-",
        "gpu1": "r1",
        "gpu2": "r1",
        "gpu3": "r2",
        "gpu4": "r2",
    },
}


@pytest.mark.parametrize("by", list(EXPECTED))
def test_domains_of_every_device(tmp_path: Path, by: DomainKind) -> None:
    labels = domains(_state(tmp_path, PLACED), by)
    assert labels == EXPECTED[by]


def test_members_sorts_domains_naturally_with_none_last() -> None:
    labels = {"a": "-", "b": "pod10", "c": "pod2", "d": "pod2"}
    assert members(labels) == {"pod2": ["c", "d"], "pod10": ["b"], "-": ["a"]}


def test_a_fabric_without_domains_is_all_dash(tmp_path: Path) -> None:
    text = CLOS3.replace("kind: clos3, pods: 2,", "kind: clos3, pods: 1,")
    labels = domains(_state(tmp_path, text), "su")
    assert set(labels.values()) == {"-"}


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        (
            '- {name: "spine{1..4}", role: spine}',
            '- {name: "spine1", role: spine, plane: 2}\n  - {name: "spine{2..4}", role: spine}',
            "switches[1].plane: spine1 is in plane 2 here but cabling puts it in plane 1",
        ),
        (
            '- {name: "leaf{1..4}", role: leaf}',
            '- {name: "leaf{1..4}", role: leaf, rack: "r 1"}',
            "switches[0].rack: ",
        ),
        (
            '- {name: "gpu{1..4}", profile: h}',
            '- {name: "gpu{1..4}", profile: h, plane: 1}',
            "hosts[0].plane: unknown key",
        ),
    ],
)
def test_domains_are_strict_and_located(tmp_path: Path, old: str, new: str, error: str) -> None:
    assert old in CLOS3
    with pytest.raises(InputError) as exc:
        _state(tmp_path, CLOS3.replace(old, new))
    rendered = exc.value.render()
    assert f"{tmp_path / 'intent.yaml'}:" in rendered and error in rendered, rendered
