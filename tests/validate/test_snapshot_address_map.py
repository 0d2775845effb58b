"""A snapshot collected under a lab's --remap records the lab's address map, and validate --snapshot
compares the intent mapped the same way: no false drift on addresses, and the report names the map.

The intent (tests/fixtures/intents/remap-ten) is a site's own 10.x plan. The lab's state is what
``lab up --remap`` builds (``xoff.lab.remap.remap``); its snapshot is the mirror of that state (what
a lab running it exactly would give). The lab itself: tests/lab/test_lab_remap_snapshot.py.
"""

from __future__ import annotations

import json
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff import api
from xoff.contracts.observed import Snapshot
from xoff.desired import build_fabric_state
from xoff.desired.addressmap import map_fabric, moved
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.lab.remap import Management, remap
from xoff.report.html import html_report
from xoff.report.machine import json_report
from xoff.report.people import markdown_report
from xoff.validate.mirror import mirror_snapshot

INTENT = ROOT / "tests" / "fixtures" / "intents" / "remap-ten"


@pytest.fixture(scope="module")
def intent_state() -> FabricState:
    return build_fabric_state(load_intent(INTENT))


@pytest.fixture(scope="module")
def lab_map(intent_state: FabricState) -> tuple[FabricState, list[tuple[str, str]]]:
    """The lab's FabricState and its map, as lab up --remap makes them (one /24 in use on this machine)."""
    done = remap(intent_state, Management(IPv4Network("10.77.0.0/24"), IPv4Address("10.77.0.1")))
    return done.fabric, [(str(a), str(b)) for a, b in done.blocks]


@pytest.mark.parametrize(
    ("pairs", "value", "expected"),
    [
        ([("10.78.0.0/24", "198.18.1.0/24")], "10.78.0.5/31", "198.18.1.5/31"),  # offset and length kept
        ([("10.78.0.0/24", "198.18.1.0/24")], "10.78.0.5", "198.18.1.5"),
        ([("10.78.0.0/24", "198.18.1.0/24")], "10.79.0.5/31", "10.79.0.5/31"),  # in no block: stays
        ([("10.77.0.0/24", "198.19.0.0/24"), ("10.78.0.0/23", "198.18.2.0/23")], "10.78.1.7/32", "198.18.3.7/32"),
        ([("198.18.0.0/24", "198.18.0.0/24")], "198.18.0.9/31", "198.18.0.9/31"),  # a kept block
    ],
)
def test_an_address_moves_to_the_same_offset_in_its_block(
    intent_state: FabricState, pairs: list[tuple[str, str]], value: str, expected: str
) -> None:
    device = intent_state.devices["leaf1"]
    port = next(p for p, i in device.interfaces.items() if i.addresses)
    iface = device.interfaces[port].model_copy(update={"addresses": [value]})
    fabric = intent_state.model_copy(
        update={"devices": {"leaf1": device.model_copy(update={"interfaces": {port: iface}})}}
    )
    assert map_fabric(fabric, pairs).devices["leaf1"].interfaces[port].addresses == [expected]


def test_blocks_of_different_sizes_are_refused(intent_state: FabricState) -> None:
    with pytest.raises(ValueError, match="differ in size"):
        map_fabric(intent_state, [("10.78.0.0/24", "198.18.0.0/23")])


def test_mapping_the_intent_by_the_labs_map_gives_the_labs_state(
    intent_state: FabricState, lab_map: tuple[FabricState, list[tuple[str, str]]]
) -> None:
    lab_state, pairs = lab_map
    assert lab_state != intent_state and moved(pairs)  # every block of remap-ten moves
    assert map_fabric(intent_state, pairs) == lab_state
    assert map_fabric(intent_state, [(a, a) for a, _ in pairs]) is intent_state  # nothing moves: the same object
    mgmt = IPv4Interface(lab_state.devices["spine1"].mgmt_address or "")
    assert mgmt.network.subnet_of(IPv4Network("198.18.0.0/15"))


def _snapshot(tmp_path: Path, lab_state: FabricState, pairs: list[tuple[str, str]]) -> Path:
    snap = mirror_snapshot(lab_state).model_copy(update={"address_map": pairs})
    path = tmp_path / "snap.json"
    path.write_text(snap.model_dump_json(), encoding="utf-8")
    return path


def _drift(validation: api.ValidateResult) -> list[str]:
    return [
        f"{r.id}: {f.device} {f}" for r in validation.validation.results if r.id == "drift.state" for f in r.findings
    ]


def test_a_remapped_snapshot_shows_no_drift_and_names_the_map(
    tmp_path: Path, lab_map: tuple[FabricState, list[tuple[str, str]]]
) -> None:
    lab_state, pairs = lab_map
    result = api.validate(INTENT, api.ValidateOptions(snapshot=_snapshot(tmp_path, lab_state, pairs)))
    assert _drift(result) == []
    assert result.validation.address_map == moved(pairs)
    assert json.loads(json_report(result.validation))["address_map"] == moved(pairs)
    assert "addresses compared under the lab's --remap" in markdown_report(result.validation)
    page = html_report(result.validation)
    assert 'id="address-map"' in page and all(line.replace(">", "&gt;") in page for line in moved(pairs))
    # the same snapshot without its map: the addresses differ on every device (what issue 14 saw)
    bare = _snapshot(tmp_path, lab_state, [])
    drift = _drift(api.validate(INTENT, api.ValidateOptions(snapshot=bare)))
    assert {line.split(" ")[1] for line in drift} == set(lab_state.devices)  # every device: its addresses


def test_a_snapshot_without_a_map_is_compared_as_it_is(tmp_path: Path, intent_state: FabricState) -> None:
    result = api.validate(INTENT, api.ValidateOptions(snapshot=_snapshot(tmp_path, intent_state, [])))
    assert _drift(result) == [] and result.validation.address_map == []
    assert Snapshot.model_fields["address_map"].default_factory is not None  # old snapshots load: no map
