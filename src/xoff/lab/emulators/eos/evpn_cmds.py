"""The configuration lines of VXLAN-EVPN (``evpn_model.py``): under ``interface Vxlan1``, under ``address-family
evpn`` and under ``vrf NAME`` of ``router bgp`` (the modes themselves are ``commands.py``'s). Forms not
documented (``vxlan vni N vrf X``, an RT that is not ``ASN:nn`` or ``IPv4:nn``) are refused by the grammar, with
EOS's ``% Invalid input``."""

from __future__ import annotations

from collections.abc import Callable

from xoff.lab.emulators.eos.evpn_model import DEFAULT_UDP_PORT, BgpVrf, Evpn, Vxlan
from xoff.lab.emulators.eos.grammar import Args, CommandError
from xoff.lab.emulators.eos.model import RunningConfig

Handler = Callable[[RunningConfig, str | None, Args], None]  # (config, the VRF of the mode, arguments)


def vxlan(cfg: RunningConfig) -> Vxlan:
    if cfg.vxlan is None:
        cfg.vxlan = Vxlan()
    return cfg.vxlan


def _source(cfg: RunningConfig, _v: str | None, a: Args) -> None:
    vxlan(cfg).source_interface = a.get("intf")


def _udp_port(cfg: RunningConfig, _v: str | None, a: Args) -> None:
    vxlan(cfg).udp_port = a.get("port", DEFAULT_UDP_PORT)


def _vrf_vni(cfg: RunningConfig, _v: str | None, a: Args) -> None:
    vnis = vxlan(cfg).vrf_vnis
    if "vni" not in a:
        vnis.pop(a["vrf"], None)
        return
    vnis[a["vrf"]] = a["vni"]


VXLAN: list[tuple[str, Handler]] = [
    ("vxlan source-interface <intf:intf>", _source),
    ("no vxlan source-interface", _source),
    ("vxlan udp-port <port:1-65535>", _udp_port),
    ("no vxlan udp-port", _udp_port),
    ("vxlan vrf <vrf:word> vni <vni:1-16777215>", _vrf_vni),
    ("no vxlan vrf <vrf:word> vni [<vni:1-16777215>]", lambda c, v, a: _vrf_vni(c, v, {"vrf": a["vrf"]})),
]


def evpn(cfg: RunningConfig) -> Evpn:
    assert cfg.bgp is not None
    if cfg.bgp.evpn is None:
        cfg.bgp.evpn = Evpn()
    return cfg.bgp.evpn


def _activate(on: bool) -> Handler:
    def run(cfg: RunningConfig, _v: str | None, a: Args) -> None:
        assert cfg.bgp is not None
        if on and a["peer"] not in cfg.bgp.neighbors:
            raise CommandError(f"% Neighbor {a['peer']} does not exist; configure its remote-as first")
        (evpn(cfg).active.add if on else evpn(cfg).active.discard)(a["peer"])

    return run


def _nhu(on: bool) -> Handler:
    def run(cfg: RunningConfig, _v: str | None, _a: Args) -> None:
        evpn(cfg).next_hop_unchanged = on

    return run


AF_EVPN: list[tuple[str, Handler]] = [
    ("neighbor <peer:peer> activate", _activate(True)),
    ("no neighbor <peer:peer> activate", _activate(False)),
    ("bgp next-hop-unchanged", _nhu(True)),
    ("no bgp next-hop-unchanged", _nhu(False)),
]


def bgp_vrf(cfg: RunningConfig, name: str | None) -> BgpVrf:
    assert cfg.bgp is not None and name is not None
    return cfg.bgp.vrfs.setdefault(name, BgpVrf())


def _rd(cfg: RunningConfig, v: str | None, a: Args) -> None:
    bgp_vrf(cfg, v).rd = a.get("rd")


def _route_target(add: bool) -> Handler:
    def run(cfg: RunningConfig, v: str | None, a: Args) -> None:
        rts = bgp_vrf(cfg, v).route_targets
        directions = ("import", "export") if a["dir"] == "both" else (a["dir"],)
        for direction in directions:
            key = (direction, a.get("af", ""))
            if add:
                rts.setdefault(key, set()).add(a["rt"])
            else:
                rts.get(key, set()).discard(a["rt"])
                if not rts.get(key, True):
                    del rts[key]

    return run


def _vrf_router_id(cfg: RunningConfig, v: str | None, a: Args) -> None:
    bgp_vrf(cfg, v).router_id = a.get("id")


def _redistribute(add: bool) -> Handler:
    def run(cfg: RunningConfig, v: str | None, a: Args) -> None:
        (bgp_vrf(cfg, v).redistribute.add if add else bgp_vrf(cfg, v).redistribute.discard)(a["what"])

    return run


def _vrf_network(add: bool) -> Handler:
    def run(cfg: RunningConfig, v: str | None, a: Args) -> None:
        (bgp_vrf(cfg, v).networks.add if add else bgp_vrf(cfg, v).networks.discard)(a["prefix"])

    return run


RT = "route-target <dir:import|export|both> [<af:evpn|vpn-ipv4|vpn-ipv6>] <rt:rt>"
WHAT = "<what:connected|static>"
BGP_VRF: list[tuple[str, Handler]] = [
    ("rd <rd:rt>", _rd),
    ("no rd", _rd),
    (RT, _route_target(True)),
    (f"no {RT}", _route_target(False)),
    ("router-id <id:ipv4>", _vrf_router_id),
    ("no router-id", _vrf_router_id),
    (f"redistribute {WHAT}", _redistribute(True)),
    (f"no redistribute {WHAT}", _redistribute(False)),
]
VRF_AF: list[tuple[str, Handler]] = [
    ("network <prefix:prefix>", _vrf_network(True)),
    ("no network <prefix:prefix>", _vrf_network(False)),
]
