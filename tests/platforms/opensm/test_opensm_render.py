"""OpenSM renderer: golden files, determinism, the HCA GUID numbering, and the syntax details."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.builders.infiniband import hca_guids
from xoff.desired.facts import build_facts
from xoff.desired.ib_guids import hca_port_guids
from xoff.desired.models import FabricState, Partition
from xoff.intent import load_intent
from xoff.platforms.opensm.render import render
from xoff.render.registry import renderer_names

INVENTORY = ROOT / "inventory"
FILES = ["opensm.conf", "partitions.conf", "qos-policy.conf", "root_guids.txt", "cn_guids.txt"]


def conf_options(text: str) -> dict[str, str]:
    """opensm.conf as OpenSM reads it: first token the key, the rest the value, '#' starts a comment."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            key, _, value = line.partition(" ")
            assert key not in out, f"{key} written twice"
            out[key] = value.strip()
    return out


def partition_lines(text: str) -> list[tuple[str, list[str], list[str]]]:
    """(``Name=PKey``, flags, members) per definition in partitions.conf."""
    out = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            assert line.endswith(";"), line
            head, _, members = line[:-1].partition(":")
            name, *flags = [part.strip() for part in head.split(",")]
            out.append((name, flags, [m.strip() for m in members.split(",") if m.strip()]))
    return out


def sm_device(state: FabricState) -> str:
    return next(name for name, d in state.devices.items() if d.subnet_manager is not None)


def with_sm(state: FabricState, **changes: object) -> FabricState:
    """``state`` with the SM host's subnet_manager fields replaced."""
    name = sm_device(state)
    device = state.devices[name]
    assert device.subnet_manager is not None
    sm = device.subnet_manager.model_copy(update=changes)
    devices = dict(state.devices)
    devices[name] = device.model_copy(update={"subnet_manager": sm})
    return state.model_copy(update={"devices": devices})


def test_golden_ib_pod(ib_pod, golden) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    files = render(state.devices["sm01"], state)
    assert list(files) == FILES
    # laid out as `xoff render` writes them: <device>/<file>
    golden({f"sm01/{name}": text for name, text in files.items()}, "render/opensm/ib-pod")


def test_the_registry_gives_opensm_to_the_sm_host_only(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    with_opensm = [name for name, d in state.devices.items() if "opensm" in renderer_names(d)]
    assert with_opensm == ["sm01"]


@pytest.mark.parametrize("example", ["lab-mini", "roce-pod"])
def test_roce_examples_have_no_subnet_manager(example: str) -> None:
    """lab-mini and roce-pod run RoCE on every network: nothing for OpenSM to render, so no golden files."""
    state = build_fabric_state(load_intent(INVENTORY / example))
    assert all("opensm" not in renderer_names(d) for d in state.devices.values())


def test_deterministic_and_independent_of_serialisation(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    first = render(state.devices["sm01"], state)
    assert render(state.devices["sm01"], state) == first
    # a FabricState read back from JSON (a saved plan) renders byte-identical files
    again = FabricState.model_validate_json(state.model_dump_json())
    assert render(again.devices["sm01"], again) == first


@pytest.mark.parametrize("example", ["lab-mini", "roce-pod", "ib-pod"])
def test_hca_guids_from_fabric_state_equal_the_desired_builders(example: str) -> None:
    """The renderer cannot call ``hca_guids`` (it needs Facts, built from the intent); its
    FabricState equivalent must give identical GUIDs for identical keys, in the same order."""
    intent = load_intent(INVENTORY / example)
    state = build_fabric_state(intent)
    expected = hca_guids(build_facts(intent))
    assert expected, "no compute NICs: the comparison would prove nothing"
    assert list(hca_port_guids(state).items()) == list(expected.items())


def test_opensm_conf_values(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    opts = conf_options(render(state.devices["sm01"], state)["opensm.conf"])
    assert opts == {
        "routing_engine": "ftree,updn,no_fallback",
        "root_guid_file": "/etc/opensm/root_guids.txt",
        "cn_guid_file": "/etc/opensm/cn_guids.txt",
        "lmc": "0",
        "sm_priority": "15",
        "sweep_interval": "10",
        "partition_config_file": "/etc/opensm/partitions.conf",
        "qos": "TRUE",
        "qos_policy_file": "/etc/opensm/qos-policy.conf",
        "qos_max_vls": "2",
        "qos_high_limit": "0",
        "qos_vlarb_high": "0:0",  # empty high table: all weights 0, not OpenSM's default 0:4
        "qos_vlarb_low": "0:192,1:64",
        "qos_sl2vl": "0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
    }


def test_config_dir_moves_every_path(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    opts = conf_options(render(state.devices["sm01"], state, config_dir="/opt/sm/")["opensm.conf"])
    paths = {k: v for k, v in opts.items() if k.endswith("_file")}
    assert paths == {
        "root_guid_file": "/opt/sm/root_guids.txt",
        "cn_guid_file": "/opt/sm/cn_guids.txt",
        "partition_config_file": "/opt/sm/partitions.conf",
        "qos_policy_file": "/opt/sm/qos-policy.conf",
    }


def test_fallback_allowed_and_engines_without_guid_files(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    changed = with_sm(state, routing_engine=["dfsssp"], no_fallback=False, vlarb_high=[(1, 16)])
    opts = conf_options(render(changed.devices["sm01"], changed)["opensm.conf"])
    assert opts["routing_engine"] == "dfsssp"  # minhop stays OpenSM's fallback
    assert "root_guid_file" not in opts  # dfsssp reads no root GUIDs ...
    assert opts["cn_guid_file"] == "/etc/opensm/cn_guids.txt"  # ... but does read compute nodes
    assert opts["qos_vlarb_high"] == "1:16"
    lash = with_sm(state, routing_engine=["lash"])
    opts = conf_options(render(lash.devices["sm01"], lash)["opensm.conf"])
    assert "root_guid_file" not in opts and "cn_guid_file" not in opts


def test_partitions_hold_every_hca_of_every_member(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    guids = hca_port_guids(state)
    parsed = partition_lines(render(state.devices["sm01"], state)["partitions.conf"])
    assert parsed[0] == ("Default=0x7fff", ["ipoib"], ["ALL=limited", "SELF=full"])
    members: dict[str, list[str]] = {}
    for name, flags, ports in parsed[1:]:
        assert flags == ["defmember=full"]
        assert len(ports) in {1, 8}, "one line per host: sm01 has 1 HCA, the GPU hosts 8"
        members.setdefault(name, []).extend(ports)
    tenant = [g for (host, _), g in guids.items() if host in {f"gpu{i:02d}" for i in range(1, 9)}]
    assert members == {"jobs=0x0001": list(guids.values()), "tenant-a=0x0a01": tenant}
    assert len(tenant) == 64


def test_partition_flags(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    parts = [Partition(name="storage", pkey=0x7A, members=["gpu01", "gpu02"], membership="limited", ipoib=True)]
    changed = with_sm(state, partitions=parts)
    text = render(changed.devices["sm01"], changed)["partitions.conf"]
    parsed = partition_lines(text)
    guids = hca_port_guids(state)
    gpu01, gpu02 = ([g for (h, _), g in guids.items() if h == host] for host in ("gpu01", "gpu02"))
    # the flags once, on the partition's first line; the membership on every line
    assert parsed[1:] == [
        ("storage=0x007a", ["ipoib", "defmember=limited"], gpu01),
        ("storage=0x007a", ["defmember=limited"], gpu02),
    ]
    assert f"{gpu02[-1]} ; # gpu02" in text


def test_partition_member_without_hca_is_an_error(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    parts = [Partition(name="x", pkey=2, members=["fs01"], membership="full", ipoib=False)]
    changed = with_sm(state, partitions=parts)
    with pytest.raises(ValueError, match="fs01 has no HCA"):
        render(changed.devices["sm01"], changed)


def test_qos_policy_puts_the_default_on_the_service_level(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    changed = with_sm(state, service_level=3)
    text = render(changed.devices["sm01"], changed)["qos-policy.conf"]
    body = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert body == ["qos-ulps", "default : 3", "end-qos-ulps"]


def test_guid_files(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    files = render(state.devices["sm01"], state)
    sm = state.devices["sm01"].subnet_manager
    assert sm is not None

    def guids(text: str) -> list[str]:
        return [line.split("#")[0].strip() for line in text.splitlines() if not line.startswith("#")]

    assert guids(files["root_guids.txt"]) == sm.root_guids == ["0x0002c90300000005", "0x0002c90300000006"]
    assert guids(files["cn_guids.txt"]) == sm.compute_node_guids
    assert "0x0002c90300000005 # ibspine1" in files["root_guids.txt"]
    assert "0x0002c90400000002 # gpu01 ib0" in files["cn_guids.txt"]
    assert len(sm.compute_node_guids) == 128  # 16 hosts x 8 HCAs; sm01's own HCA is no compute node


def test_compute_node_list_must_match_the_numbering(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    sm = state.devices["sm01"].subnet_manager
    assert sm is not None
    changed = with_sm(state, compute_node_guids=sm.compute_node_guids[1:])
    with pytest.raises(ValueError, match="does not match the host HCA numbering"):
        render(changed.devices["sm01"], changed)


def test_device_without_subnet_manager_is_refused(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    with pytest.raises(ValueError, match="gpu01: no subnet_manager"):
        render(state.devices["gpu01"], state)
