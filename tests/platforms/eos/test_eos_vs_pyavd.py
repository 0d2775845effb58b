"""xoff's EOS running-config against Arista AVD's renderer (pyavd ``get_device_config``).

For every EOS switch of lab-mini and roce-pod, ``eos_avd.py`` builds an AVD structured config from
the same FabricState (in test code, independent of xoff's builders), pyavd validates and renders
it, and the two texts are compared stanza by stanza.

Normalisations, each semantically irrelevant on EOS:
- stanza order (each ``interface``/``router bgp``/... block is compared as a whole, whatever its
  position), and the order of ``neighbor`` lines inside ``router bgp`` (AVD natural-sorts neighbours
  by address; xoff keeps FabricState's link order);
- AVD's ``qos profile NAME`` + ``service-profile NAME`` is inlined into each interface (EOS applies a
  qos profile as the interface commands it holds; reference/lossless.md §3.1 "qos profile ROCE ! or
  directly under interface EthernetX"). AVD 6.4 needs the profile: its ``ethernet_interfaces``
  schema has no key for ``priority strict``/``no priority``, ``bandwidth percent`` or the per-port
  ``priority-flow-control pause watchdog``; only ``qos_profiles`` has them.

After that there is no remaining difference: the test asserts equality of everything both render.
``test_interface_keys_match_avd_interface_form`` additionally renders the QoS with the keys AVD does
have on ``ethernet_interfaces`` and names every line only the profile can carry.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from eos_avd import avd_structured_config, blocks, inline_service_profiles

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import Device, FabricState
from xoff.intent import load_intent
from xoff.platforms.eos.render import render

INVENTORY = ROOT / "inventory"
CASES = [("lab-mini", "spine2"), *[("roce-pod", f"spine{n}") for n in range(5, 9)]]
PYAVD_REQUIREMENT = "pyavd==6.4.0"


@pytest.fixture(scope="module")
def pyavd() -> ModuleType:
    try:
        import pyavd as module  # type: ignore[import-untyped]
    except ImportError:
        pytest.fail(
            f"pyavd is not installed: the EOS comparison needs it (add {PYAVD_REQUIREMENT!r} to the test extras)"
        )
    loaded: ModuleType = module
    return loaded


@pytest.fixture(scope="module")
def fabrics() -> dict[str, FabricState]:
    return {name: build_fabric_state(load_intent(INVENTORY / name)) for name in ("lab-mini", "roce-pod")}


def avd_render(pyavd: ModuleType, sc: dict[str, Any]) -> str:
    """Validate with AVD's schema (must be clean: no violation, deprecation or ignored key), then render."""
    result = pyavd.validate_structured_config(sc)
    vr = result.validation_result
    problems = [f"{'.'.join(v.path)}: {v.message}" for v in vr.violations]
    assert not problems, f"AVD rejects the structured config: {problems}"
    assert not list(vr.deprecations), f"AVD deprecations: {list(vr.deprecations)}"
    assert not list(vr.ignored_eos_config_keys), f"AVD ignored keys: {list(vr.ignored_eos_config_keys)}"
    text: str = pyavd.get_device_config(result.validated_data)
    return text


_NEIGHBOR = re.compile(r"^   neighbor (\d+)\.(\d+)\.(\d+)\.(\d+) ")


def normalise(text: str) -> dict[str, list[str]]:
    """Stanzas by header; inside ``router bgp`` the run of ``neighbor`` lines in address order (each
    neighbour's own lines keep their order)."""
    out = blocks(text)
    for header, body in out.items():
        if header.startswith("router bgp "):
            idx = [i for i, ln in enumerate(body) if _NEIGHBOR.match(ln)]
            if idx:
                lo, hi = idx[0], idx[-1] + 1
                run = sorted(body[lo:hi], key=_neighbor_key)
                out[header] = [*body[:lo], *run, *body[hi:]]
    return out


def _neighbor_key(line: str) -> list[int]:
    m = _NEIGHBOR.match(line)
    assert m is not None, f"not a neighbor line inside the neighbor run: {line!r}"
    return [int(x) for x in m.groups()]


def differences(xoff_text: str, avd_text: str) -> list[str]:
    """Human-readable differences between the normalised texts (empty: equivalent)."""
    x, a = normalise(xoff_text), normalise(inline_service_profiles(avd_text))
    out = [f"only in xoff: {h}" for h in x if h not in a] + [f"only in AVD: {h}" for h in a if h not in x]
    for header in x.keys() & a.keys():
        if x[header] != a[header]:
            out.append(f"{header}:\n  xoff: {x[header]}\n  AVD:  {a[header]}")
    return sorted(out)


def _case(fabrics: dict[str, FabricState], inventory: str, name: str) -> tuple[Device, FabricState]:
    fabric = fabrics[inventory]
    return fabric.devices[name], fabric


@pytest.mark.parametrize(("inventory", "name"), CASES)
def test_running_config_equals_pyavd(
    pyavd: ModuleType, fabrics: dict[str, FabricState], inventory: str, name: str
) -> None:
    device, fabric = _case(fabrics, inventory, name)
    xoff_text = render(device, fabric)["running-config"]
    avd_text = avd_render(pyavd, avd_structured_config(device, fabric))
    assert differences(xoff_text, avd_text) == []
    # Which sections took part, so a section silently dropped by both sides cannot pass unnoticed.
    headers = set(normalise(xoff_text))
    expected = {f"hostname {name}", "ip routing", "interface Loopback0", "interface Management1"}
    expected |= {f"router bgp {device.bgp.asn}"} if device.bgp else set()
    assert expected <= headers
    assert sum(h.startswith("interface Ethernet") for h in headers) == sum(
        i.kind == "ethernet" for i in device.interfaces.values()
    )
    for must in ("qos map dscp 26 to traffic-class 3", "priority-flow-control pause watchdog action drop"):
        assert must in headers


@pytest.mark.parametrize(("inventory", "name"), CASES)
def test_byte_identical_to_pyavd_today(
    pyavd: ModuleType, fabrics: dict[str, FabricState], inventory: str, name: str
) -> None:
    """Stronger than needed: xoff's stanza and neighbour order are AVD's too, so after inlining the qos
    profile the texts are identical. If this fails while the test above passes, only order changed."""
    device, fabric = _case(fabrics, inventory, name)
    xoff_text = render(device, fabric)["running-config"]
    assert inline_service_profiles(avd_render(pyavd, avd_structured_config(device, fabric))) == xoff_text


# Lines xoff writes on a port that AVD 6.4 can only write inside a qos profile (see module docstring).
PROFILE_ONLY = re.compile(
    r"^(   priority-flow-control pause watchdog|      priority strict|      no priority|      bandwidth percent \d+)$"
)


@pytest.mark.parametrize(("inventory", "name"), CASES[:2])
def test_interface_keys_match_avd_interface_form(
    pyavd: ModuleType, fabrics: dict[str, FabricState], inventory: str, name: str
) -> None:
    """With QoS on ``ethernet_interfaces`` itself (trust, PFC, tx-queue ECN), AVD's interface stanzas
    are xoff's minus the profile-only lines, and minus the tx-queue blocks that then have nothing left
    (queues 0 and 6: scheduling only, no ECN)."""
    device, fabric = _case(fabrics, inventory, name)
    x = normalise(render(device, fabric)["running-config"])
    a = normalise(avd_render(pyavd, avd_structured_config(device, fabric, profile=False)))
    assert x.keys() == a.keys()
    for header, body in x.items():
        if not header.startswith("interface Ethernet"):
            assert body == a[header], header
            continue
        kept = [ln for ln in body if not PROFILE_ONLY.match(ln)]
        assert _drop_empty_queues(kept) == a[header], header


def _drop_empty_queues(lines: list[str]) -> list[str]:
    """Remove ``   !`` + ``   tx-queue N`` pairs with no line of their own after the profile-only lines went."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i] == "   !" and i + 1 < len(lines) and lines[i + 1].startswith("   tx-queue "):
            nxt = lines[i + 2] if i + 2 < len(lines) else ""
            if not nxt.startswith("      "):
                i += 2
                continue
        out.append(lines[i])
        i += 1
    return out


Mutation = Callable[[str], str]
MUTATIONS: dict[str, Mutation] = {
    "no-drop priority": lambda t: t.replace(
        "priority-flow-control priority 3 no-drop", "priority-flow-control priority 4 no-drop", 1
    ),
    "pfc off on a port": lambda t: t.replace("   priority-flow-control on\n", "", 1),
    "port watchdog": lambda t: t.replace("   priority-flow-control pause watchdog\n", "", 1),
    "ecn threshold": lambda t: t.replace("minimum-threshold 150000 bytes", "minimum-threshold 160000 bytes", 1),
    "ecn probability": lambda t: t.replace("max-mark-probability 100", "max-mark-probability 90", 1),
    "strict queue": lambda t: t.replace("      priority strict", "      no priority", 1),
    "dwrr share": lambda t: t.replace("bandwidth percent 50", "bandwidth percent 60", 1),
    "dscp map": lambda t: t.replace("qos map dscp 26 to", "qos map dscp 24 to", 1),
    "trust": lambda t: t.replace("qos trust dscp", "qos trust cos", 1),
    "watchdog timeout": lambda t: t.replace("default timeout 0.2", "default timeout 0.3", 1),
    "watchdog action": lambda t: t.replace("watchdog action drop", "watchdog action errdisable", 1),
    "speed": lambda t: t.replace("speed 400g-8", "speed 400g-4", 1),
    "mtu": lambda t: t.replace("mtu 9100", "mtu 9214", 1),
    "routed port": lambda t: t.replace("   no switchport\n", "", 1),
    "address": lambda t: t.replace("ip address 198.18.0.2/31", "ip address 198.18.0.4/31", 1),
    "remote-as": lambda t: t.replace("remote-as 65101", "remote-as 65199", 1),
    "ecmp": lambda t: t.replace("maximum-paths 64 ecmp 64", "maximum-paths 32 ecmp 32", 1),
    "network": lambda t: t.replace("network 198.18.255.2/32", "network 198.18.255.9/32", 1),
    "ip routing": lambda t: t.replace("!\nip routing\n", "", 1),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_comparison_catches_a_meaningful_change(
    pyavd: ModuleType, fabrics: dict[str, FabricState], mutation: str
) -> None:
    """The comparison is not vacuous: each one-line change to xoff's output is reported."""
    device, fabric = _case(fabrics, "lab-mini", "spine2")
    xoff_text = render(device, fabric)["running-config"]
    changed = MUTATIONS[mutation](xoff_text)
    assert changed != xoff_text, f"mutation {mutation!r} did not apply"
    avd_text = avd_render(pyavd, avd_structured_config(device, fabric))
    assert differences(changed, avd_text) != []
