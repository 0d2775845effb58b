"""containerlab export: every example validates against containerlab's own JSON Schema (read from
../shared/schemas/containerlab, never copied here), lab-mini matches its golden file, interface names
follow each kind's rules, InfiniBand is left out and said so, and the `xoff lab export` command writes a
topology whose startup-config paths point at the rendered files."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from tests.support.clab_schema import errors, validator
from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.lab.clab import ExportError, build, export, interface_map, lab_name_for, render_yaml
from xoff.lab.clab_cli import export_command

REPO = ROOT
INVENTORY = REPO / "inventory"
EXAMPLES = ("lab-mini", "roce-pod", "ib-pod")


@cache
def fabric(example: str) -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / example))


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("config_dir", [None, "configs"])
def test_examples_validate_against_containerlabs_schema(example: str, config_dir: str | None) -> None:
    doc = export(fabric(example), example, config_dir=config_dir)
    assert errors(doc) == []
    text = render_yaml(fabric(example), example, config_dir=config_dir)
    assert yaml.safe_load(text) == doc  # the file says what export() returns
    assert errors(yaml.safe_load(text)) == []


def test_the_validator_catches_what_containerlab_refuses() -> None:
    doc = export(fabric("lab-mini"), "lab-mini")
    bad = json.loads(json.dumps(doc))
    bad["topology"]["nodes"]["spine2"]["kind"] = "ceos"  # an alias containerlab's schema does not list
    bad["topology"]["nodes"]["sleaf1"]["kind"] = "cvx"
    bad["topology"]["nodes"]["leaf1"]["mgmt-ipv4"] = "192.0.2.300"  # a pattern with \p{..}: needs `regex`
    bad["topology"]["nodes"]["leaf2"]["image-pull"] = "always"
    assert sorted(e.split(":")[0] for e in errors(bad)) == [
        f"topology/nodes/{n}" for n in ("leaf1", "leaf2", "sleaf1", "spine2")
    ]
    # each node is oneOf(null, node-config): what failed inside node-config
    causes = {
        "/".join(map(str, c.absolute_path)): c.message
        for e in validator().iter_errors(bad)
        for c in e.context
        if c.validator != "type"
    }
    assert causes == {
        "topology/nodes/spine2/kind": causes["topology/nodes/spine2/kind"],
        "topology/nodes/sleaf1/kind": causes["topology/nodes/sleaf1/kind"],
        "topology/nodes/leaf1/mgmt-ipv4": "'192.0.2.300' does not match "
        + repr(validator().schema["definitions"]["ipv4-addr"]["pattern"]),
        "topology/nodes/leaf2": "Additional properties are not allowed ('image-pull' was unexpected)",
    }
    assert "'ceos' is not one of" in causes["topology/nodes/spine2/kind"]


def test_lab_mini_golden(golden: Any) -> None:
    golden(
        {"lab-mini.clab.yml": render_yaml(fabric("lab-mini"), "lab-mini", config_dir="lab-mini-configs")},
        "clab/lab-mini",
    )


def test_kinds_management_and_configuration() -> None:
    doc = export(fabric("lab-mini"), "lab-mini", config_dir="cfg", images={"arista_ceos": "ceos:4.33.1F"})
    assert doc["mgmt"] == {"network": "lab-mini-mgmt", "ipv4-subnet": "198.19.252.0/24"}
    topo = doc["topology"]
    assert topo["kinds"] == {
        "sonic-vs": {"image": "docker-sonic-vs:latest"},
        "arista_ceos": {"image": "ceos:4.33.1F"},
        "nvidia_cumulusvx": {"image": "vrnetlab/nvidia_cumulus-vx:5.16.1"},
        "linux": {"image": "ghcr.io/hellt/network-multitool"},
    }
    nodes = topo["nodes"]
    assert {n: v["kind"] for n, v in nodes.items()} == {
        "spine1": "sonic-vs", "spine2": "arista_ceos", "leaf1": "sonic-vs", "leaf2": "sonic-vs",
        "sleaf1": "nvidia_cumulusvx", "gpu1": "linux", "gpu2": "linux", "gpu3": "linux", "gpu4": "linux",
    }  # fmt: skip
    assert nodes["spine2"]["startup-config"] == "cfg/spine2/running-config"
    assert nodes["leaf1"]["binds"] == [
        "cfg/leaf1/config_db.json:/etc/sonic/config_db.json",
        "cfg/leaf1/frr.conf:/etc/frr/frr.conf",
    ]
    assert nodes["sleaf1"]["binds"] == ["cfg/sleaf1/startup.yaml:/config/startup.yaml"]
    for name in ("spine1", "spine2", "leaf1", "sleaf1"):
        assert nodes[name]["mgmt-ipv4"] == fabric("lab-mini").devices[name].mgmt_address
    gpu1 = nodes["gpu1"]
    assert gpu1["network-mode"] == "none" and "mgmt-ipv4" not in gpu1
    assert gpu1["exec"] == ["ip link set eno1 up", "ip addr add 198.19.252.101/24 dev eno1"]
    assert gpu1["binds"] == ["cfg/gpu1:/etc/xoff/rendered:ro"]
    mgmt_links = [link["endpoints"] for link in topo["links"] if link["endpoints"][1].startswith("mgmt-net:")]
    assert [e[0] for e in mgmt_links] == ["gpu1:eno1", "gpu2:eno1", "gpu3:eno1", "gpu4:eno1"]
    host_ifs = [e[1].removeprefix("mgmt-net:") for e in mgmt_links]
    assert len(set(host_ifs)) == 4 and all(len(i) <= 15 for i in host_ifs)
    assert "binds" not in export(fabric("lab-mini"), "lab-mini")["topology"]["nodes"]["leaf1"]  # no config_dir


@pytest.mark.parametrize(
    ("example", "device", "expected"),
    [
        (
            "lab-mini",
            "leaf1",
            {"Ethernet0": "eth1", "Ethernet8": "eth3", "Ethernet56": "eth15"},
        ),  # docker-sonic-vs lanemap
        ("lab-mini", "spine2", {"Ethernet1/1": "eth1_1", "Ethernet4/1": "eth4_1"}),  # cEOS underscore form
        ("lab-mini", "sleaf1", {"swp1": "swp1", "swp8": "swp8"}),
        ("lab-mini", "gpu1", {"eth0": "eth0", "eth2": "eth2"}),
        ("roce-pod", "sleaf1", {"swp1s0": "swp1", "swp1s1": "swp2", "swp2s0": "swp3"}),  # VX has no breakouts
    ],
)
def test_interface_names_per_kind(example: str, device: str, expected: dict[str, str]) -> None:
    mapping = interface_map(fabric(example).devices[device])
    assert {p: mapping[p] for p in expected} == expected
    assert len(set(mapping.values())) == len(mapping)


def test_ports_a_kind_cannot_name_are_refused() -> None:
    leaf = fabric("lab-mini").devices["leaf1"]
    iface = leaf.interfaces["Ethernet8"].model_copy(update={"name": "Ethernet2"})
    odd = leaf.model_copy(update={"interfaces": {**leaf.interfaces, "Ethernet2": iface}})
    with pytest.raises(ExportError, match="leaf1: Ethernet2: sonic-vs names ports Ethernet<4k>"):
        interface_map(odd)


def test_every_link_is_exported_once_and_infiniband_is_left_out() -> None:
    for example in EXAMPLES:
        state = fabric(example)
        result = build(state, example)
        topo = result.topology["topology"]
        ib = {n for n, d in state.devices.items() if d.platform == "infiniband"}
        assert not ib & set(topo["nodes"])
        data_links = [link for link in topo["links"] if not link["endpoints"][1].startswith("mgmt-net:")]
        ib_links = [lk for lk in state.links if lk.a.device in ib or lk.b.device in ib]
        assert len(data_links) == len(state.links) - len(ib_links)
        ends = [e.split(":")[0] for link in data_links for e in link["endpoints"]]
        assert set(ends) <= set(topo["nodes"])
        if ib:
            assert result.skipped[-1].what == f"{len(ib_links)} links"
            assert {s.what for s in result.skipped[:-1]} == ib
            assert f"# left out: {len(ib_links)} links (with an InfiniBand end)" in render_yaml(state, example)


def test_names_and_images_are_checked() -> None:
    state = fabric("lab-mini")
    with pytest.raises(ExportError, match="lab name"):
        export(state, "-bad")
    with pytest.raises(ExportError, match="images for unknown kind"):
        export(state, "lab-mini", images={"ceos": "x"})
    assert lab_name_for(state.model_copy(update={"fabric": "pod 7/a"})) == "pod-7-a"
    dev = state.devices["leaf1"]
    moved = dev.model_copy(update={"mgmt_address": "198.51.100.5"})
    with pytest.raises(ExportError, match=r"leaf1: management address 198\.51\.100\.5 is outside 198\.19\.252\.0/24"):
        export(state.model_copy(update={"devices": {**state.devices, "leaf1": moved}}), "lab-mini")


def _cli() -> typer.Typer:
    app = typer.Typer(add_completion=False)
    app.command("export")(export_command)
    app.command("noop", hidden=True)(lambda: None)  # two commands: typer keeps "export" as a subcommand
    return app


def test_export_command_writes_a_deployable_directory(tmp_path: Path) -> None:
    out = tmp_path / "lab" / "mini.clab.yml"
    run = CliRunner().invoke(
        _cli(), ["export", str(INVENTORY / "lab-mini"), "-o", str(out), "--image", "linux=alpine:3"]
    )
    assert run.exit_code == 0, run.output
    assert run.output.splitlines()[0] == f"wrote {out}: lab lab-mini, 9 nodes, 20 links"
    doc = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert errors(doc) == []
    assert doc["topology"]["kinds"]["linux"] == {"image": "alpine:3"}
    for node in doc["topology"]["nodes"].values():
        paths = (
            [node["startup-config"]] if "startup-config" in node else [b.split(":")[0] for b in node.get("binds", [])]
        )
        assert paths and all((out.parent / p).exists() for p in paths), node
    assert (out.parent / "lab-mini-configs" / "manifest.json").is_file()

    bare = tmp_path / "bare.clab.yml"
    run = CliRunner().invoke(
        _cli(), ["export", str(INVENTORY / "ib-pod"), "-o", str(bare), "--no-configs", "-n", "ibx"]
    )
    assert run.exit_code == 0, run.output
    assert "left out: ibleaf1 (containerlab has no InfiniBand kind)" in run.output
    assert not (tmp_path / "ibx-configs").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--image", "arista_ceos"], "--image 'arista_ceos': expected KIND=IMAGE"),
        (["--image", "ceos=ceos:4"], "images for unknown kind(s) ceos"),
        (["-n", "_x"], "lab name '_x'"),
    ],
)
def test_export_command_refuses_bad_usage(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "x.clab.yml"
    run = CliRunner().invoke(_cli(), ["export", str(INVENTORY / "lab-mini"), "-o", str(out), *args])
    assert run.exit_code == 2 and message in run.output, run.output
    assert not out.exists()
