"""``hca_ports``: the per-port loop of the InfiniBand checks that judge each host's HCA port."""

from __future__ import annotations

from tests.support.paths import ROOT
from xoff.desired.build import build_fabric_state
from xoff.desired.ib_guids import hca_port_guids
from xoff.intent import load_intent
from xoff.platforms.infiniband.observe import observation_from_dump
from xoff.validate.checks.infiniband import hca_ports
from xoff.validate.model import Finding


def test_every_intended_hca_port_found_or_none_and_its_finding_names_the_port() -> None:
    desired = build_fabric_state(load_intent(ROOT / "tests" / "fixtures" / "intents" / "ib-fattree"))
    observed = observation_from_dump(ROOT / "tests" / "fixtures" / "deadlock" / "ib" / "fattree_ftree")
    found = list(hca_ports(desired, observed))
    assert [(h.host, h.netdev, h.guid) for h in found] == [(*k, g) for k, g in hca_port_guids(desired).items()]
    assert found and all(h.ref is not None and observed.nodes[h.ref.guid].kind != "switch" for h in found)
    gone = found[0].ref
    assert gone is not None
    without = observed.model_copy(update={"nodes": {g: n for g, n in observed.nodes.items() if g != gone.guid}})
    missing = [h for h in hca_ports(desired, without) if h.ref is None]
    assert [h.guid for h in missing] == [found[0].guid]
    assert missing[0].finding("gone", "here", "absent") == Finding(
        found[0].host, found[0].netdev, "gone", "here", "absent", port=found[0].netdev
    )
