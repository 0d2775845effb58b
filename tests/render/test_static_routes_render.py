"""Static routes (``Device.static_routes``) rendered on every switch platform and proven by each one's
own checker: FRR's daemons (vtysh + staticd dry runs), SONiC's YANG (yanglint), AVD's renderer for EOS,
and the NVUE grammar for Cumulus. The examples declare none, so lab-mini's switches get two routes here:
``10.0.0.0/8`` over two next hops (ECMP) and a default route."""

from __future__ import annotations

import pytest
import yaml

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import Device, FabricState, StaticRoute
from xoff.intent import load_intent
from xoff.platforms.cumulus.grammar import unmatched
from xoff.platforms.cumulus.render import COMMANDS_FILE, STARTUP_FILE
from xoff.platforms.cumulus.render import render as render_cumulus
from xoff.platforms.eos.render import render_running_config
from xoff.platforms.frr.check import check_frr_conf
from xoff.platforms.frr.render import render_frr_conf
from xoff.platforms.sonic.config_db import build_config_db
from xoff.platforms.sonic.yang import validate_config_db

INVENTORY = ROOT / "inventory"


@pytest.fixture(scope="module")
def lab_mini() -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / "lab-mini"))


def _with_routes(device: Device) -> tuple[Device, list[StaticRoute]]:
    """``device`` with 10.0.0.0/8 via its first two cabled peers and 0.0.0.0/0 via the first."""
    hops = []
    for name, iface in device.interfaces.items():
        if iface.peer is not None and iface.addresses:
            mine = iface.addresses[0].split("/")[0]
            a, b, c, d = (int(x) for x in mine.split("."))
            hops.append((f"{a}.{b}.{c}.{d ^ 1}", name))  # the other end of the /31
    assert len(hops) >= 2, device.name
    routes = [StaticRoute(prefix="10.0.0.0/8", next_hop=h, interface=i) for h, i in hops[:2]]
    routes.append(StaticRoute(prefix="0.0.0.0/0", next_hop=hops[0][0], interface=hops[0][1]))
    return device.model_copy(update={"static_routes": routes}), routes


def test_frr_conf_lines_pass_the_real_frr(lab_mini: FabricState) -> None:
    device, routes = _with_routes(lab_mini.devices["leaf1"])
    text = render_frr_conf(device, lab_mini)
    lines = text.splitlines()
    want = [f"ip route {r.prefix} {r.next_hop}" for r in routes]
    assert [line for line in lines if line.startswith("ip route ")] == want
    assert lines.index(want[-1]) < lines.index(next(line for line in lines if line.startswith("router bgp")))
    result = check_frr_conf(text)
    assert result.ok, result.report()
    assert "$ staticd --dryrun" in result.output  # the routes were executed by staticd, not only parsed
    broken = check_frr_conf(text.replace("ip route 0.0.0.0/0 ", "ip route 0.0.0.0/33 "))
    assert not broken.ok and any("0.0.0.0/33" in p for p in broken.problems), broken.problems
    # without static routes nothing changes (the examples' golden frr.conf files stay as they are)
    assert "ip route" not in render_frr_conf(lab_mini.devices["leaf1"], lab_mini)


def test_sonic_static_route_table_passes_yanglint(lab_mini: FabricState) -> None:
    device, routes = _with_routes(lab_mini.devices["leaf1"])
    db = build_config_db(device, lab_mini)
    assert db["STATIC_ROUTE"] == {
        "10.0.0.0/8": {
            "nexthop": f"{routes[0].next_hop},{routes[1].next_hop}",
            "ifname": f"{routes[0].interface},{routes[1].interface}",
        },
        "0.0.0.0/0": {"nexthop": routes[2].next_hop, "ifname": routes[2].interface},
    }
    assert validate_config_db(db) == []
    bad = dict(db, STATIC_ROUTE={"10.0.0.0/33": {"nexthop": routes[0].next_hop}})
    assert validate_config_db(bad) != []  # yanglint really judges the table
    assert "STATIC_ROUTE" not in build_config_db(lab_mini.devices["leaf1"], lab_mini)


def test_eos_lines_match_avd(lab_mini: FabricState) -> None:
    from pyavd import get_device_config

    device, routes = _with_routes(lab_mini.devices["spine2"])
    ours = render_running_config(device).splitlines()
    avd_config = {
        "hostname": device.name,
        "ip_routing": True,
        "static_routes": [{"prefix": r.prefix, "interface": r.interface, "next_hop": r.next_hop} for r in routes],
    }
    avd = get_device_config(avd_config).splitlines()
    start = avd.index("ip routing") + 1
    stanza = avd[start : start + 4]  # "!" then the three ip route lines
    assert stanza[0] == "!" and all(line.startswith("ip route ") for line in stanza[1:]), avd
    at = ours.index("ip routing") + 1
    assert ours[at : at + len(stanza)] == stanza


def test_cumulus_commands_and_startup(lab_mini: FabricState) -> None:
    device, routes = _with_routes(lab_mini.devices["sleaf1"])
    files = render_cumulus(device, lab_mini)
    cmds = [line for line in files[COMMANDS_FILE].splitlines() if line.startswith("nv set")]
    assert [c for c in cmds if " router static " in c] == [
        f"nv set vrf default router static {r.prefix} via {r.next_hop}" for r in routes
    ]
    assert unmatched(cmds) == []
    tree = yaml.safe_load(files[STARTUP_FILE])
    static = tree[0]["set"]["vrf"]["default"]["router"]["static"] if isinstance(tree, list) else None
    assert static is not None and set(static["10.0.0.0/8"]["via"]) == {routes[0].next_hop, routes[1].next_hop}
