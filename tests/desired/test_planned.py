"""The plan's models are built without re-validation (``models.planned``) and share equal parts between devices:
the state must still be exactly what validation gives, and sharing must not tie devices together."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState, Interface, Peer, Placement, Planned, planned
from xoff.intent import load_intent


@pytest.mark.parametrize("inventory", ["roce-pod", "ib-pod", "lab-mini"])
def test_a_plan_equals_its_revalidated_dump(inventory: str) -> None:
    state = build_fabric_state(load_intent(ROOT / "inventory" / inventory))
    again = FabricState.model_validate_json(state.model_dump_json())
    # a tuple for a list, a str for an int or a missing default would make them differ
    assert again == state
    # equality reads no order: the JSON does (Planned.of takes its fields in declaration order)
    assert again.model_dump_json() == state.model_dump_json()
    for name, device in state.devices.items():
        assert again.devices[name] == device, name


def test_planned_gives_what_validation_gives() -> None:
    peer = Peer(device="spine1", port="Ethernet4")
    values = {"name": "Ethernet0", "kind": "ethernet", "speed_mbps": 400_000, "addresses": ["198.18.0.0/31"]}
    built, validated = planned(Interface, **values, peer=peer), Interface(**values, peer=peer)
    assert built == validated
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_fields_set == validated.model_fields_set == {*values, "peer"}
    assert list(built.__dict__) == list(validated.__dict__)  # declaration order, as validation leaves it


def test_defaults_from_factories_are_not_shared() -> None:
    a, b = planned(Interface, name="eth0", kind="mgmt"), planned(Interface, name="eth1", kind="mgmt")
    assert a.addresses == [] and a.addresses is not b.addresses


def test_a_copy_with_an_update_leaves_the_shared_fields_set_alone() -> None:
    a = planned(Placement, pod=1)
    b = planned(Placement, pod=2)
    copy = a.model_copy(update={"rack": "r1"})
    assert copy.model_fields_set == {"pod", "rack"}
    assert a.model_fields_set == b.model_fields_set == {"pod"}


def test_devices_that_are_alike_share_their_buffers_and_host_maps() -> None:
    state = build_fabric_state(load_intent(ROOT / "inventory" / "roce-pod"))
    leaves = [d for d in state.devices.values() if d.kind == "switch" and d.buffers is not None]
    hosts = [d.host for d in state.devices.values() if d.host is not None and d.host.gpus]
    assert len(leaves) > 1 and len(hosts) > 1
    buffers = {id(d.buffers) for d in leaves}
    assert len(buffers) < len(leaves)  # switches alike hold one Buffers
    assert len({id(h.nccl_env) for h in hosts}) < len(hosts)
    nics = [n for h in hosts for n in h.nics.values() if n.network == "compute"]
    assert len({id(n.dscp_to_priority) for n in nics}) == 1


def test_a_name_the_model_does_not_have_is_refused() -> None:
    with pytest.raises(TypeError, match="adress"):
        planned(Interface, name="eth0", kind="mgmt", adress="198.18.0.1/31")


def test_planned_shape_gives_what_validation_gives() -> None:
    shape = Planned(Interface, "name", "kind", "peer")
    assert shape.fields == tuple(Interface.model_fields)  # what the caller's dict must follow
    peer = Peer(device="spine1", port="Ethernet4")
    values = {"name": "Ethernet0", "kind": "ethernet", "peer": peer}
    validated = Interface(**values)
    built = shape.of(
        {
            name: values.get(name, Interface.model_fields[name].get_default(call_default_factory=True))
            for name in shape.fields
        }
    )
    assert built == validated
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_fields_set == validated.model_fields_set == set(values)


def test_a_planned_shape_refuses_a_name_the_model_does_not_have() -> None:
    with pytest.raises(TypeError, match="adress"):
        Planned(Interface, "name", "adress")
