"""Static routes in the NOS emulators (no lab): EOS ``ip route`` grammar and running-config, the FRR
``ip route`` lines each emulator types into staticd, and the collectors reading them back."""

from __future__ import annotations

from xoff.lab.emulators import static_routes
from xoff.lab.emulators.cumulus.apply import static_route_set as nvue_routes
from xoff.lab.emulators.eos.apply import linux_name
from xoff.lab.emulators.eos.apply import static_route_set as eos_routes
from xoff.lab.emulators.eos.commands import load
from xoff.lab.emulators.eos.model import render
from xoff.lab.emulators.sonic.apply import frr_static_lines
from xoff.platforms.cumulus.parse import static_routes as nvue_collected
from xoff.platforms.eos.parse import parse_running_config
from xoff.platforms.sonic.collect import _static_routes as sonic_collected

EOS = """hostname s
ip routing
ip route 198.18.0.9/32 Ethernet1/1 198.18.0.2
ip route 10.1.1.7/24 198.18.0.6 200
ip route 10.0.0.0/8 Ethernet2/1
"""


def test_eos_ip_route_is_taken_normalised_and_printed_after_ip_routing() -> None:
    cfg, errors = load(EOS)
    assert errors == []
    text = render(cfg)
    block = text[text.index("ip routing\n") :].split("!\n")[1]
    assert block == (
        "ip route 10.0.0.0/8 Ethernet2/1\n"
        "ip route 10.1.1.0/24 198.18.0.6 200\n"  # the network, not the typed host bits; distance kept
        "ip route 198.18.0.9/32 Ethernet1/1 198.18.0.2\n"
    )
    again, errors = load(text)  # the running-config reads back to the same configuration
    assert errors == [] and render(again) == text


def test_eos_no_ip_route_and_refusals() -> None:
    cfg, _ = load(EOS + "no ip route 10.0.0.0/8\nno ip route 198.18.0.9/32 Ethernet1/1 198.18.0.2\n")
    assert [r.prefix for r in cfg.static_routes] == ["10.1.1.0/24"]
    _, errors = load("ip route 1.2.3.4/32 nowhere\nip route 1.2.3.0/24\nip route 1.2.3.0/33 1.1.1.1\n")
    assert [e.message for e in errors] == [
        "% Invalid input (at token 3: 'nowhere')",
        "% Incomplete command",
        "% Invalid input (at token 2: '1.2.3.0/33')",
    ]


def test_each_emulator_types_the_difference_into_staticd() -> None:
    cfg, _ = load(EOS)
    lines = static_routes.frr_lines(set(), eos_routes(cfg))
    assert lines == [  # the kernel's port names (xoff.lab.names), as the lab's namespace has them
        f"ip route 10.0.0.0/8 {linux_name('Ethernet2/1')}",
        "ip route 10.1.1.0/24 198.18.0.6 200",
        f"ip route 198.18.0.9/32 198.18.0.2 {linux_name('Ethernet1/1')}",
    ]
    old = {"STATIC_ROUTE": {"10.0.0.0/8": {"nexthop": "198.18.0.1"}}}
    new = {"STATIC_ROUTE": {"198.18.0.9/32": {"nexthop": "198.18.0.0,198.18.0.2", "ifname": "Ethernet32,Ethernet40"}}}
    assert frr_static_lines(old, new, lambda p: p.lower()) == [
        "no ip route 10.0.0.0/8 198.18.0.1",
        "ip route 198.18.0.9/32 198.18.0.0 ethernet32",
        "ip route 198.18.0.9/32 198.18.0.2 ethernet40",
    ]
    tree = {"vrf": {"default": {"router": {"static": {"198.19.254.0/24": {"via": "198.19.0.1"}}}}}}
    assert static_routes.frr_lines(set(), nvue_routes(tree)) == ["ip route 198.19.254.0/24 198.19.0.1"]
    assert static_routes.frr_lines(nvue_routes(tree), set()) == ["no ip route 198.19.254.0/24 198.19.0.1"]


def test_collectors_read_static_routes_back() -> None:
    assert parse_running_config(EOS).static_routes == [
        ("198.18.0.9/32", "198.18.0.2", "Ethernet1/1"),
        ("10.1.1.7/24", "198.18.0.6", None),
        ("10.0.0.0/8", "", "Ethernet2/1"),
    ]
    table = {"198.18.0.9/32": {"nexthop": "198.18.0.0,198.18.0.2", "ifname": "Ethernet32,Ethernet40"}}
    assert sonic_collected(table) == [
        ("198.18.0.9/32", "198.18.0.0", "Ethernet32"),
        ("198.18.0.9/32", "198.18.0.2", "Ethernet40"),
    ]
    tree = {"vrf": {"default": {"router": {"static": {"198.19.254.0/24": {"via": {"198.19.0.1": {}, "swp2": {}}}}}}}}
    assert nvue_collected(tree) == [("198.19.254.0/24", "198.19.0.1", None), ("198.19.254.0/24", "", "swp2")]
