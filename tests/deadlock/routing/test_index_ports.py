"""The index's global port ids (``index_state._number_ports``, numbered in bulk by one stable sort) against their
definition, written out plainly here: switch by switch, each switch's ports in its interface order and then the
ports it does not list, by name; a port on several links gets one id per link end, side by side in link order, and
every end of it answers with the last of them. Checked on the lab's fabric as planned, with ports taken out of a
switch's listing, and with links repeated (so ports sit on several links)."""

from __future__ import annotations

import pytest

from tests.support.paths import INVENTORY
from xoff.deadlock.fabric import Fabric
from xoff.deadlock.index_state import fabric_of
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent


def _defined(state: FabricState, fab: Fabric) -> tuple[list[tuple[int, str, int]], list[tuple[int, int]]]:
    """(owner, port, link) of every global port in id order, and each link's two port ids, by the definition."""
    numbered: list[tuple[int, str, int]] = []
    last: dict[tuple[str, str], int] = {}
    for v, name in enumerate(fab.switches):
        ends: dict[str, list[int]] = {}  # port -> its link ends (2 li + side), in link order
        for li, (a, ap, b, bp) in enumerate(fab.link_ends):
            for side, (switch, port) in enumerate(((a, ap), (b, bp))):
                if switch == name:
                    ends.setdefault(port, []).append(2 * li + side)
        listed = [p for p in state.devices[name].interfaces if p in ends]
        listed += sorted(p for p in ends if p not in listed)
        for port in listed:
            for code in ends[port]:
                numbered.append((v, port, code >> 1))
            last[(name, port)] = len(numbered) - 1
    links = [(last[(a, ap)], last[(b, bp)]) for a, ap, b, bp in fab.link_ends]
    return numbered, links


def _lab_mini() -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / "lab-mini"))


def _unlisting(state: FabricState, count: int) -> FabricState:
    """``state`` with the last ``count`` fabric ports of every switch left out of its interface listing."""
    fab = fabric_of(state)
    devices = dict(state.devices)
    for name in fab.switches:
        dev = devices[name]
        cabled = [p for p in dev.interfaces if any((name, p) in ((a, ap), (b, bp)) for a, ap, b, bp in fab.link_ends)]
        gone = set(cabled[-count:])
        devices[name] = dev.model_copy(
            update={"interfaces": {p: i for p, i in dev.interfaces.items() if p not in gone}}
        )
    return state.model_copy(update={"devices": devices})


def _repeating(state: FabricState) -> FabricState:
    """``state`` with its first and last switch-to-switch links cabled twice more (the same ends)."""
    fab = fabric_of(state)
    switchy = [link for link in state.links if link.a.device in fab.index and link.b.device in fab.index]
    return state.model_copy(update={"links": [*state.links, switchy[0], switchy[-1], switchy[0]]})


@pytest.mark.parametrize(
    "make",
    [
        _lab_mini,
        lambda: _unlisting(_lab_mini(), 1),
        lambda: _unlisting(_lab_mini(), 3),
        lambda: _repeating(_lab_mini()),
        lambda: _repeating(_unlisting(_lab_mini(), 2)),
    ],
    ids=["as-planned", "one-unlisted", "none-listed", "repeated-links", "both"],
)
def test_port_ids_follow_their_definition(make) -> None:  # type: ignore[no-untyped-def]
    state = make()
    fab = fabric_of(state)
    numbered, links = _defined(state, fab)
    assert len(numbered) == 2 * len(fab.link_ends) > 0
    assert list(zip(fab.port_owner, fab.port_name, fab.port_link, strict=True)) == numbered
    assert fab.link_ports == links
    assert fab.ports_of == [[gp for gp, (v, _, _) in enumerate(numbered) if v == s] for s in range(len(fab.switches))]
    for gx, gy in links:  # each port's peer: the other end of the last link it is on
        assert fab.port_owner[fab.port_peer[gx]] == fab.port_owner[gy]
