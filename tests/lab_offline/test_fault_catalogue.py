"""The fault catalogue's order is derived (concern, then area, then definition), never listed by hand."""

from __future__ import annotations

import types

import pytest

from xoff.lab.faults import FAULTS, Concern
from xoff.lab.faults.catalogue import AREAS, area_of, catalogue


def test_the_order_is_concern_then_area_then_definition() -> None:
    concerns, areas = list(Concern), list(AREAS)
    keys = []
    for f in FAULTS.values():
        area = next(a for a in AREAS if f in a.FAULTS)
        keys.append((concerns.index(f.concern), areas.index(area), area.FAULTS.index(f)))
    assert keys == sorted(keys)
    assert len(FAULTS) == sum(len(a.FAULTS) for a in AREAS)


def test_every_area_and_concern_has_faults() -> None:
    assert {area_of(f) for f in FAULTS.values()} == {a.__name__.rsplit(".", 1)[-1] for a in AREAS}
    assert {f.concern for f in FAULTS.values()} == set(Concern)


def test_a_name_defined_twice_is_refused() -> None:
    twice = types.ModuleType("twice")
    twice.FAULTS = (*AREAS[0].FAULTS[:1], *AREAS[0].FAULTS[:1])  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="defined twice"):
        catalogue((twice,))


def test_records_take_keywords_only() -> None:
    f = next(iter(FAULTS.values()))
    with pytest.raises(TypeError):
        type(f)(f.name, f.title)  # type: ignore[misc]
