"""frr.conf rendering: golden files, determinism, and what the config says (neighbours, ECMP, policy)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from ipaddress import IPv4Network

import pytest

from tests.support.paths import ROOT
from xoff.desired.models import Device, FabricState
from xoff.platforms.frr.builder import FrrConfig, build_frr_config
from xoff.platforms.frr.render import render, render_frr_conf
from xoff.render.registry import load_renderer, renderer_names

INVENTORY = ROOT / "inventory"
ROCE_POD_GOLDEN = ("leaf0", "spine1", "spine5", "sleaf1")  # SONiC leaf, SONiC spine, EOS spine, Cumulus leaf


def _state(name: str) -> FabricState:
    from xoff.desired import build_fabric_state
    from xoff.intent import load_intent

    return build_fabric_state(load_intent(INVENTORY / name))


@pytest.fixture(scope="module")
def fabrics() -> dict[str, FabricState]:
    return {name: _state(name) for name in ("lab-mini", "roce-pod")}


def _switches(fabric: FabricState) -> list[Device]:
    return [d for d in fabric.devices.values() if d.kind == "switch"]


def _all_frr(fabric: FabricState, names: tuple[str, ...] | None = None) -> dict[str, str]:
    return {
        f"{d.name}/frr.conf": render_frr_conf(d, fabric) for d in _switches(fabric) if names is None or d.name in names
    }


def test_golden_lab_mini(fabrics: dict[str, FabricState], golden) -> None:  # type: ignore[no-untyped-def]
    files = _all_frr(fabrics["lab-mini"])
    assert sorted(files) == sorted(f"{n}/frr.conf" for n in ("spine1", "spine2", "leaf1", "leaf2", "sleaf1"))
    golden(files, "render/frr/lab-mini")


def test_golden_roce_pod(fabrics: dict[str, FabricState], golden) -> None:  # type: ignore[no-untyped-def]
    files = _all_frr(fabrics["roce-pod"], ROCE_POD_GOLDEN)
    assert len(files) == len(ROCE_POD_GOLDEN)
    golden(files, "render/frr/roce-pod")


def test_render_is_deterministic_in_process(fabrics: dict[str, FabricState]) -> None:
    """Same fabric twice, and a freshly built fabric."""
    for name, fabric in fabrics.items():
        first = _all_frr(fabric)
        assert _all_frr(fabric) == first
        assert _all_frr(_state(name)) == first


def test_render_is_deterministic_across_processes(fabrics: dict[str, FabricState]) -> None:
    """Byte-identical in fresh interpreters with different hash seeds (no set/dict-order leaks)."""
    code = (
        "import hashlib, sys; from pathlib import Path; from xoff.intent import load_intent; "
        "from xoff.desired import build_fabric_state; from xoff.platforms.frr.render import render_frr_conf; "
        "s = build_fabric_state(load_intent(Path(sys.argv[1]))); h = hashlib.sha256(); "
        "[h.update(render_frr_conf(d, s).encode()) for d in s.devices.values() if d.kind == 'switch']; "
        "print(h.hexdigest())"
    )
    expected = hashlib.sha256()
    for d in _switches(fabrics["roce-pod"]):
        expected.update(render_frr_conf(d, fabrics["roce-pod"]).encode())
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", code, str(INVENTORY / "roce-pod")],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        )
        assert out.stdout.strip() == expected.hexdigest(), f"PYTHONHASHSEED={seed} rendered different bytes"


def test_every_switch_gets_its_bgp_as_written(fabrics: dict[str, FabricState]) -> None:
    """Every neighbour (address, ASN, peer name), every originated network and max_paths appear."""
    for fabric in fabrics.values():
        for d in _switches(fabric):
            assert d.bgp is not None
            lines = render_frr_conf(d, fabric).splitlines()
            assert lines[0].startswith("! ") and "RFC 7938" in "\n".join(lines[:5])
            assert f"router bgp {d.bgp.asn}" in lines
            assert f" bgp router-id {d.bgp.router_id}" in lines
            assert f"hostname {d.name}" in lines
            assert " bgp bestpath as-path multipath-relax" in lines
            assert " bgp ebgp-requires-policy" in lines, "RFC 8212 must stay on (the policy satisfies it)"
            assert f"  maximum-paths {d.bgp.max_paths}" in lines
            for n in d.bgp.neighbors:
                assert f" neighbor {n.address} remote-as {n.remote_asn}" in lines
                port = d.interfaces[n.interface].peer
                assert port is not None and port.device == n.peer
                assert f" neighbor {n.address} description {n.peer}:{port.port}" in lines
                assert f" neighbor {n.address} peer-group FABRIC" in lines
            assert [ln.strip()[len("network ") :] for ln in lines if ln.startswith("  network ")] == d.bgp.networks
            if d.bgp.neighbors:
                assert "  neighbor FABRIC route-map UNDERLAY in" in lines
                assert "  neighbor FABRIC route-map UNDERLAY out" in lines
            assert not any(ln.startswith("interface ") for ln in lines), "addresses belong to the NOS, not FRR"


def _permits(config: FrrConfig, prefix: str) -> bool:
    """FRR semantics of the route-map: first matching permit entry wins, else implicit deny. A
    prefix-list entry without ge/le matches exactly; ``ge G`` alone means G..32."""
    net = IPv4Network(prefix)
    lists = {pl["name"]: pl["entries"] for pl in config["prefix_lists"]}
    for rm in config["route_maps"]:
        for entry in rm["entries"]:
            for e in lists[entry["match_prefix_list"]]:
                base = IPv4Network(e["prefix"])
                ge = e["ge"] if e["ge"] is not None else base.prefixlen
                le = e["le"] if e["le"] is not None else (32 if e["ge"] is not None else base.prefixlen)
                if net.subnet_of(base) and ge <= net.prefixlen <= le:
                    return e["action"] == "permit" and entry["action"] == "permit"
    return False


def test_policy_passes_every_underlay_route_and_nothing_else(fabrics: dict[str, FabricState]) -> None:
    """Everything any switch of the network originates is permitted by every switch's policy, in and
    out; a default route, aggregates and foreign prefixes are not (RFC 8212 allow-list)."""
    for fabric in fabrics.values():
        by_network: dict[str, set[str]] = {}
        for d in _switches(fabric):
            assert d.bgp is not None and d.network is not None
            by_network.setdefault(d.network, set()).update(d.bgp.networks)
        for d in _switches(fabric):
            assert d.bgp is not None and d.network is not None
            if not d.bgp.neighbors:
                continue
            config = build_frr_config(d, fabric)
            refused = [p for p in sorted(by_network[d.network]) if not _permits(config, p)]
            assert not refused, f"{d.name} would drop underlay routes {refused}"
            loopback = IPv4Network(d.bgp.router_id + "/32")
            for bad in ("0.0.0.0/0", "10.0.0.0/8", "198.18.0.0/16", str(loopback.supernet(8)), "192.0.2.0/24"):
                assert not _permits(config, bad), f"{d.name} would accept {bad}"
            for nbr in d.bgp.neighbors:  # the fabric /31s themselves pass, their /32 hosts do not
                link = IPv4Network(nbr.address + "/31", strict=False)
                assert _permits(config, str(link)), f"{d.name}: fabric link {link} refused"
                assert not _permits(config, f"{nbr.address}/32"), f"{d.name} would accept host route {nbr.address}/32"


def test_policy_pools_are_the_intents_pools(fabrics: dict[str, FabricState]) -> None:
    """lab-mini's compute network allocates loopbacks from 198.18.255.0/24 and /31s from 198.18.0.0/24:
    the policy permits those whole pools, so a rack added later needs no change on existing switches."""
    fabric = fabrics["lab-mini"]
    config = build_frr_config(fabric.devices["leaf1"], fabric)
    entries = {pl["name"]: [(e["prefix"], e["ge"], e["le"]) for e in pl["entries"]] for pl in config["prefix_lists"]}
    assert entries == {
        "UNDERLAY-LOOPBACKS": [("198.18.255.0/24", 32, None)],
        "UNDERLAY-P2P": [("198.18.0.0/24", 31, 31)],
    }


def test_switch_without_neighbours_gets_no_policy(fabrics: dict[str, FabricState]) -> None:
    """lab-mini's storage leaf has no BGP peers: networks only, no dangling peer group or route-map."""
    fabric = fabrics["lab-mini"]
    sleaf = fabric.devices["sleaf1"]
    assert sleaf.bgp is not None and not sleaf.bgp.neighbors
    text = render_frr_conf(sleaf, fabric)
    assert "route-map" not in text and "peer-group" not in text and "prefix-list" not in text
    assert "  network 198.19.255.1/32" in text


def test_device_without_bgp_gets_no_file(fabrics: dict[str, FabricState]) -> None:
    fabric = fabrics["lab-mini"]
    host = next(d for d in fabric.devices.values() if d.kind == "host")
    assert host.bgp is None
    assert render(host, fabric) == {}
    with pytest.raises(ValueError, match="no BGP"):
        render_frr_conf(host, fabric)


def test_registry_gives_sonic_switches_this_renderer(fabrics: dict[str, FabricState]) -> None:
    fabric = fabrics["lab-mini"]
    leaf = fabric.devices["leaf1"]
    assert leaf.platform == "sonic" and "frr" in renderer_names(leaf)
    assert load_renderer("frr")(leaf, fabric) == {"frr.conf": render_frr_conf(leaf, fabric)}
