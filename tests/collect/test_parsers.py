"""Collector parsers on real-format fixtures (tests/fixtures/parse/<platform>/<command>/), their
strictness (bad output is a parse error naming the command), and the offline round trips:
parse(emulator output after loading the rendered config) == desired on the fields each platform reads."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.collect_drift import differing_fields
from tests.support.paths import ROOT
from xoff.collect.textfsm import TextParseError, parse_text
from xoff.contracts.collect import Command, read
from xoff.contracts.observed import CollectError
from xoff.desired.models import FabricState
from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.sonic import Emulator as SonicEmulator
from xoff.platforms.frr.observe import FrrParseError, parse_bgp_summary, parse_router_bgp
from xoff.platforms.linux import collect as host
from xoff.platforms.linux import kernel
from xoff.platforms.lldpd.parse import LldpParseError, parse_neighbors
from xoff.platforms.registry import collector_for
from xoff.platforms.sonic import collect as sonic
from xoff.platforms.sonic import counters as sonic_counters
from xoff.platforms.sonic.config_db import build_config_db
from xoff.render import render_fabric

FIX = ROOT / "tests" / "fixtures" / "parse"


def raw(platform: str, command: str, case: str) -> str:
    return (FIX / platform / command / f"{case}.raw").read_text(encoding="utf-8")


# --- SONiC counters (TextFSM) ----------------------------------------------------------------------


def test_sonic_counters() -> None:
    outputs = {
        sonic_counters.PFC_COUNTERS.text: raw("sonic", "show_pfc_counters", "lab-mini-leaf1"),
        sonic_counters.QUEUE_COUNTERS.text: raw("sonic", "show_queue_counters", "lab-mini-leaf1"),
    }
    counters = sonic_counters.read_counters(outputs, "d", [], {})[0]
    assert counters["Ethernet0"].pfc.rx_pause[3] == 1234  # "1,234" in pfcstat's comma format
    assert set(counters["Ethernet0"].queues) == set(range(8))  # unicast queues only
    assert counters["Ethernet8"].pfc.tx_pause == dict.fromkeys(range(8), 0)


def test_textfsm_rejects_an_unknown_line() -> None:
    text = raw("sonic", "show_pfc_counters", "lab-mini-leaf1") + "Ethernet0 surprise\n"
    with pytest.raises(TextParseError, match="unexpected line"):
        parse_text(sonic_counters.TEXTFSM, "sonic", "show pfc counters", text)


# --- hosts ------------------------------------------------------------------------------------------


def test_ecn_sysfs() -> None:
    pushed = kernel.parse_ecn(raw("linux", "ecn-sysfs", "connectx7-prio3"))
    assert pushed == {"ecn_np_priorities": [3], "ecn_rp_priorities": [3], "cnp_dscp": 48, "cnp_priority": 6}
    factory = kernel.parse_ecn(raw("linux", "ecn-sysfs", "factory"))
    assert (factory["ecn_np_priorities"], factory["ecn_rp_priorities"]) == ([], [])
    text = raw("linux", "ecn-sysfs", "connectx7-prio3")
    assert kernel.parse_ecn(text.replace("roce_np/cnp_dscp:48", "roce_np/cnp_dscp:24"))["cnp_dscp"] == 24
    # a driver without the CNP files: the values are not read (the host script leaves them alone too)
    bare = "\n".join(ln for ln in text.splitlines() if "cnp_" not in ln)
    assert "cnp_dscp" not in kernel.parse_ecn(bare) and "cnp_priority" not in kernel.parse_ecn(bare)
    for bad, message in (
        (text.replace("roce_np/enable/3:1", "roce_np/enable/3:2"), "allowed: enable/0..7 = 0 or 1"),
        (text.replace("roce_np/enable/3:1", "roce_np/enable/8:1"), "allowed: enable/0..7"),
        (text.replace("roce_np/cnp_dscp:48", "roce_np/cnp_dscp:64"), "allowed: 0..63"),
        (text.replace("roce_np/cnp_802p_prio:6", "roce_np/cnp_802p_prio:x"), "allowed: 0..7"),
        ("\n".join(ln for ln in text.splitlines() if "rp/enable" not in ln), "no roce_rp/enable"),
        ("grep: roce_np: No such file or directory\n", "not roce_np|roce_rp"),
        ("", "no roce_np/enable"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            kernel.parse_ecn(bad)


def test_ip_route_gateways() -> None:
    lab = kernel.parse_gateways(raw("linux", "ip_-j_-4_route_show_table_all", "lab-mini-gpu1"))
    assert lab == {"eth0": ["198.18.0.8"], "eth1": ["198.18.0.10"], "eth2": ["198.19.0.0"], "mgmt0": ["192.0.2.1"]}
    # a multipath route's next hops count on their own netdevs; a stray next hop shows beside the right one
    odd = kernel.parse_gateways(raw("linux", "ip_-j_-4_route_show_table_all", "multipath-and-stray-hop"))
    assert odd["eth0"] == ["198.18.0.10", "198.18.0.8"] and odd["eth1"] == ["198.18.0.10"]
    assert kernel.gateway_of(odd["eth0"]) == "198.18.0.10,198.18.0.8" and kernel.gateway_of([]) is None
    for bad in ('{"dst": "default"}', '[{"gateway": "198.18.0.8", "dev": "eth0"}]', "Error: ipv4: FIB table"):
        with pytest.raises(ValueError):
            kernel.parse_gateways(bad)


def test_iommu_mode() -> None:
    modes = {c: kernel.parse_iommu(raw("linux", "iommu", c)) for c in ("passthrough", "amd-passthrough", "off")}
    assert modes == {"passthrough": "passthrough", "amd-passthrough": "passthrough", "off": "off"}
    assert kernel.parse_iommu(raw("linux", "iommu", "translated")) == "translated"
    for bad in ("", "cmdline: ro quiet\n", "iommu: dmar0\ncmdline: ro\n", "BOOT_IMAGE=x\niommu:\n"):
        with pytest.raises(ValueError, match="cmdline"):
            kernel.parse_iommu(bad)


RAIL_TABLES, RAIL_PRIORITIES = {100, 101, 102}, {1000, 1001, 1002}


def test_ip_route_rail_tables(lab_mini_state: Any) -> None:
    """The routes of the rail tables xoff renders, as desired builds them; the kernel's and other tables not."""
    host_state = lab_mini_state[1].devices["gpu1"].host
    assert {r.table for r in host_state.routes} == RAIL_TABLES
    pushed = kernel.parse_routes(raw("linux", "ip_-j_-4_route_show_table_all", "lab-mini-gpu1"), RAIL_TABLES)
    assert pushed == host_state.routes
    odd = kernel.parse_routes(raw("linux", "ip_-j_-4_route_show_table_all", "extra-and-foreign"), RAIL_TABLES)
    extra = [r for r in odd if r not in host_state.routes]  # table 200 (a route, a dev route, a blackhole): not read
    assert [(r.table, r.destination, r.via, r.device) for r in extra] == [
        (100, "198.18.251.0/24", "198.18.0.8", "eth0"),  # with metric 10: a Route has none
        (101, "198.18.255.7/32", "198.18.0.10", "eth1"),  # ip prints a host route without its /32
    ]
    assert kernel.parse_routes(raw("linux", "ip_-j_-4_route_show_table_all", "extra-and-foreign"), set()) == []
    # the same output, read for gateways too: one command serves both
    assert kernel.parse_gateways(raw("linux", "ip_-j_-4_route_show_table_all", "extra-and-foreign"))["eth1"] == [
        "198.18.0.10"
    ]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("blackhole-in-rail-table", "ip -j route 198.18.254.0/24 table 100: blackhole in a rail table"),
        ("no-gateway-in-rail-table", "ip -j route 198.18.252.0/24 table 101: no next hop (via) in a rail table"),
        ("multipath-and-stray-hop", None),  # the multipath route is in main: not a rail table's, so read fine
    ],
)
def test_ip_route_rail_tables_are_strict(case: str, message: str | None) -> None:
    text = raw("linux", "ip_-j_-4_route_show_table_all", case)
    if message is None:
        assert len(kernel.parse_routes(text, RAIL_TABLES)) == 6
        return
    with pytest.raises(ValueError, match=re.escape(message)):
        kernel.parse_routes(text, RAIL_TABLES)


def test_ip_route_rail_tables_reject_what_a_route_cannot_say() -> None:
    multipath = '[{"dst":"198.18.0.0/24","table":"100","flags":[],"nexthops":[{"gateway":"198.18.0.8","dev":"eth0"}]}]'
    for bad, message in (
        (multipath, "a multipath route in a rail table"),
        ('[{"dst":"198.18.0.0/33","gateway":"198.18.0.8","dev":"eth0","table":"100"}]', "not an IPv4 prefix"),
        ('[{"gateway":"198.18.0.8","dev":"eth0","table":"100"}]', "not a route"),
        ('{"dst":"default"}', "not a JSON list"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            kernel.parse_routes(bad, RAIL_TABLES)
    # a table ip shows by its rt_tables name is another program's (xoff's rail tables are numbered): not read,
    # not an error, whatever the route in it looks like
    named = '[{"dst":"198.18.0.0/24","table":"vpn","flags":[],"nexthops":[{"gateway":"198.18.0.8","dev":"eth0"}]}]'
    assert kernel.parse_routes(named, RAIL_TABLES) == []


def test_ip_rule_rail_rules(lab_mini_state: Any) -> None:
    """The rules into the rail tables or at xoff's priorities; the kernel's local/main/default ones not."""
    host_state = lab_mini_state[1].devices["gpu1"].host
    assert kernel.parse_rules(raw("linux", "ip_-j_-4_rule_show", "lab-mini-gpu1"), RAIL_TABLES, RAIL_PRIORITIES) == (
        host_state.rules
    )
    missing = kernel.parse_rules(
        raw("linux", "ip_-j_-4_rule_show", "one-rail-rule-missing"), RAIL_TABLES, RAIL_PRIORITIES
    )
    assert missing == [r for r in host_state.rules if r.priority != 1001]  # table 200's rules are not xoff's
    # a rule at one of xoff's priorities is read whatever its table; a /24 source keeps its length; "all" is 0/0
    moved = (
        '[{"priority":1001,"src":"198.18.0.0","srclen":24,"table":"200"},{"priority":1002,"src":"all","table":"main"}]'
    )
    assert [(r.priority, r.source, r.table) for r in kernel.parse_rules(moved, RAIL_TABLES, RAIL_PRIORITIES)] == [
        (1001, "198.18.0.0/24", 200),
        (1002, "0.0.0.0/0", 254),
    ]


def test_ip_rule_rail_rules_reject_what_a_rule_cannot_say() -> None:
    text = raw("linux", "ip_-j_-4_rule_show", "fwmark-into-rail-table")
    with pytest.raises(ValueError, match=re.escape("ip -j rule 1010: fwmark 0x1 (allowed on a rail rule: from SOURCE")):
        kernel.parse_rules(text, RAIL_TABLES, RAIL_PRIORITIES)
    assert len(kernel.parse_rules(text, {100}, {1000})) == 1  # into a table and at a priority xoff does not manage
    named = '[{"priority":500,"src":"all","table":"vpn"}]'  # another program's named table, not at xoff's priorities
    assert kernel.parse_rules(named, RAIL_TABLES, RAIL_PRIORITIES) == []
    for bad, message in (
        ('[{"priority":1000,"src":"198.18.0.9","action":"unreachable"}]', "action unreachable"),
        ('[{"priority":1000,"not":null,"src":"198.18.0.9","table":"100"}]', "ip -j rule 1000: not ("),
        ('[{"priority":1000,"src":"198.18.0.9","iif":"eth0","table":"100"}]', "iif eth0"),
        ('[{"src":"198.18.0.9","table":"100"}]', "no priority"),
        ('[{"priority":1000,"src":"198.18.0.9","table":"rail0"}]', "table 'rail0' is an rt_tables name"),
        ("Error: something", "Expecting value"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            kernel.parse_rules(bad, RAIL_TABLES, RAIL_PRIORITIES)


def test_host_collector_reads_the_rail_tables_and_rules(lab_mini_state: Any) -> None:
    """gpu1 pushed (no drift on host.routes / host.rules), then with one rail's rule deleted and a stray route:
    the observed Device carries the rail tables and rules xoff manages, on listed field paths; one route
    command is run, not two."""
    desired = lab_mini_state[1].devices["gpu1"]
    commands = [c.text for c in host.Collector().commands(desired)]
    assert commands.count(kernel.ROUTES.text) == 1 and kernel.RULES.text in commands

    def observe(routes: str, rules: str) -> Any:
        outputs = {
            host.LINKS.text: json.dumps(
                [{"ifname": n, "mtu": i.mtu or 1500, "flags": ["UP"]} for n, i in desired.interfaces.items()]
            ),
            host.ADDRS.text: "[]",
            kernel.ROUTES.text: raw("linux", "ip_-j_-4_route_show_table_all", routes),
            kernel.RULES.text: raw("linux", "ip_-j_-4_rule_show", rules),
        }
        obs = host.Collector().parse(outputs, desired)
        assert obs.errors == [] and obs.device is not None and obs.device.host is not None
        assert {"host.routes", "host.rules"} <= set(obs.fields)
        return obs.device

    clean = observe("lab-mini-gpu1", "lab-mini-gpu1")
    assert clean.host.routes == desired.host.routes and clean.host.rules == desired.host.rules  # same order too
    broken = observe("extra-and-foreign", "one-rail-rule-missing")
    paths = ["host.routes", "host.rules"]
    differing = differing_fields(desired, broken, paths)
    assert [d.split(":")[0] for d in differing] == paths
    assert broken.host.rules == [r for r in desired.host.rules if r.priority != 1001]
    assert broken.host.routes[: len(desired.host.routes)] == desired.host.routes  # intent order, extras after
    # an unreadable rule is a parse error naming the command; the rest of the host is still read
    outputs = {
        host.LINKS.text: "[]",
        host.ADDRS.text: "[]",
        kernel.RULES.text: raw("linux", "ip_-j_-4_rule_show", "fwmark-into-rail-table"),
    }
    obs = host.Collector().parse(outputs, desired)
    assert [(e.kind, e.command) for e in obs.errors] == [("parse", kernel.RULES.text)]
    assert obs.device is not None and "host.rules" not in obs.fields
    # a route a rail table may not hold: one parse error, and the gateways are still read from the output
    outputs = {**outputs, kernel.ROUTES.text: raw("linux", "ip_-j_-4_route_show_table_all", "blackhole-in-rail-table")}
    del outputs[kernel.RULES.text]
    obs = host.Collector().parse(outputs, desired)
    assert [(e.kind, e.command) for e in obs.errors] == [("parse", kernel.ROUTES.text)]
    assert "blackhole in a rail table" in obs.errors[0].message
    assert obs.device is not None and "host.routes" not in obs.fields and "host.nics.*.gateway" in obs.fields


def test_host_collector_reads_dcqcn_gateway_and_iommu(lab_mini_state: Any) -> None:
    """gpu1 with a NIC whose ECN NP is off and CNP DSCP wrong, one rail's route via a stray next hop and
    the IOMMU translating: the observed Device carries exactly those values, on listed field paths."""
    desired = lab_mini_state[1].devices["gpu1"]
    assert desired.host is not None
    links = [{"ifname": n, "mtu": i.mtu or 1500, "flags": ["UP"]} for n, i in desired.interfaces.items()]
    addrs = [
        {"ifname": n, "addr_info": [{"family": "inet", "local": a.split("/")[0], "prefixlen": int(a.split("/")[1])}]}
        for n, i in desired.interfaces.items()
        for a in i.addresses
    ]
    ecn_ok = raw("linux", "ecn-sysfs", "connectx7-prio3")
    storage = ecn_ok.replace("enable/3:1", "enable/3:0").replace("enable/4:0", "enable/4:1")
    outputs = {
        host.LINKS.text: json.dumps(links),
        host.ADDRS.text: json.dumps(addrs),
        kernel.ROUTES.text: raw("linux", "ip_-j_-4_route_show_table_all", "multipath-and-stray-hop"),
        kernel.IOMMU.text: raw("linux", "iommu", "translated"),
        kernel.ecn("eth0").text: ecn_ok.replace("roce_np/enable/3:1", "roce_np/enable/3:0"),
        kernel.ecn("eth1").text: ecn_ok.replace("roce_np/cnp_dscp:48", "roce_np/cnp_dscp:46"),
        kernel.ecn("eth2").text: storage,
    }
    assert set(outputs) - {host.LINKS.text, host.ADDRS.text} <= {c.text for c in host.Collector().commands(desired)}
    obs = host.Collector().parse(outputs, desired)
    assert obs.errors == [] and obs.device is not None and obs.device.host is not None
    got = {
        n: (v.ecn_np_priorities, v.ecn_rp_priorities, v.cnp_dscp, v.cnp_priority, v.gateway)
        for n, v in obs.device.host.nics.items()
    }
    assert got == {
        "eth0": ([], [3], 48, 6, "198.18.0.10,198.18.0.8"),
        "eth1": ([3], [3], 46, 6, "198.18.0.10"),
        "eth2": ([4], [4], 48, 6, "198.19.0.0"),
    }
    assert obs.device.host.gpudirect is not None and obs.device.host.gpudirect.iommu == "translated"
    read = set(obs.fields)
    assert {f"host.nics.*.{k}" for k in ("ecn_np_priorities", "ecn_rp_priorities", "cnp_dscp", "cnp_priority")} <= read
    assert {"host.nics.*.gateway", "host.gpudirect.iommu"} <= read
    differing = sorted(differing_fields(desired, obs.device, sorted(read)))
    assert [d for d in differing if not d.startswith("host.routes:")] == [
        "host.gpudirect.iommu: desired 'passthrough' observed 'translated'",
        "host.nics.eth0.ecn_np_priorities: desired [3] observed []",
        "host.nics.eth0.gateway: desired '198.18.0.8' observed '198.18.0.10,198.18.0.8'",
        "host.nics.eth1.cnp_dscp: desired 48 observed 46",
    ]
    # the stray next hop is also a rail table's route that differs (the rail tables are read since)
    stray = [r for r in obs.device.host.routes if r.table == 100 and r.destination == "198.18.255.0/24"]
    assert [r.via for r in stray] == ["198.18.0.10"] and any(d.startswith("host.routes:") for d in differing)
    assert any("IOMMU" in note for note in obs.lab_only) and any("DCQCN" in note for note in obs.lab_only)


# --- lldpd, FRR, EOS JSON ---------------------------------------------------------------------------


def test_lldpd_json() -> None:
    (one,) = parse_neighbors(raw("lldpd", "lldpcli_-f_json_show_neighbors", "one-neighbour"))
    assert (one.port, one.neighbor, one.neighbor_port) == ("Ethernet1_1", "leaf1", "Ethernet40")
    assert parse_neighbors('{"lldp": {}}') == []
    with pytest.raises(LldpParseError):
        parse_neighbors("lldpcli: unable to connect")


def test_frr_json_and_running_config(lab_mini_state: Any) -> None:
    (session,) = parse_bgp_summary(raw("frr", "show_bgp_summary_json", "frr-8.4-one-peer"))
    assert (session.address, session.remote_asn, session.state, session.prefixes_received) == (
        "198.18.0.3",
        65101,
        "Established",
        1,
    )
    assert parse_bgp_summary("{}") == []
    with pytest.raises(FrrParseError):
        parse_bgp_summary('{"ipv4Unicast": {"peers": {"1.2.3.4": {"state": "Idle"}}}}')
    state: FabricState = lab_mini_state[1]
    frr = {f.device: f.content for f in render_fabric(state, devices=["leaf1"]) if f.name == "frr.conf"}["leaf1"]
    bgp = parse_router_bgp(frr)
    leaf1 = state.devices["leaf1"].bgp
    assert bgp is not None and leaf1 is not None
    assert (bgp["asn"], bgp["router_id"], bgp["max_paths"], bgp["networks"]) == (
        leaf1.asn,
        leaf1.router_id,
        leaf1.max_paths,
        leaf1.networks,
    )


@pytest.mark.parametrize(
    ("command", "text", "message"),
    [
        ("PFC", '{"interfaces": {"Ethernet1/1": {"priorities": {"8": {"rxFrames": 0, "txFrames": 0}}}}}', "0-7"),
        ("PFC", '{"interfaces": {"Ethernet1/1": {"priorities": {"3": {"rxFrames": "12"}}}}}', "expected a count"),
        ("WATCHDOG", '{"interfaces": {"Ethernet1/1": {"txQueues": {"3": {"stuckCount": 1}}}}}', "recoveryCount"),
        ("WATCHDOG", '{"interfaceCounters": {}}', "no 'interfaces'"),
        ("QUEUES", '{"egressQueueCounters": {"interfaces": {"Ethernet1/1": {"ucastQueues": {}}}}}', "trafficClasses"),
        (
            "QUEUES",
            (
                ROOT
                / "tests"
                / "fixtures"
                / "real"
                / "eos"
                / "show_interfaces_counters_queue_detail_json"
                / "modular-eight-classes-drops-only.txt"
            )
            .read_text()
            .replace("TC7", "TC9"),
            "TC9",
        ),
        ("QUEUES", "% Unavailable command (not supported on this hardware platform)", "not JSON"),
    ],
)
def test_eos_counters_of_an_unknown_shape_are_a_parse_error_naming_the_command(
    command: str, text: str, message: str, lab_mini_state: Any
) -> None:
    from xoff.platforms.eos import counters as eos
    from xoff.platforms.eos.collect import Collector

    cmd = getattr(eos, command)
    obs = Collector().parse({cmd.text: text}, lab_mini_state[1].devices["spine2"])
    assert [(e.kind, e.command) for e in obs.errors] == [("parse", cmd.text)]
    assert message in obs.errors[0].message
    assert obs.counters == {}


# --- strictness through the collector: a parse error names the command -------------------------------


@pytest.mark.parametrize(
    ("platform", "device", "command"),
    [
        ("sonic", "leaf1", sonic.RUNNING.text),
        ("sonic", "leaf1", sonic.LLDP.text),
        ("eos", "spine2", "show ip bgp summary | json"),
        ("linux", "gpu1", "mlnx_qos -i eth0"),
        ("linux", "gpu1", kernel.ecn("eth0").text),
        ("linux", "gpu1", kernel.ROUTES.text),
        ("linux", "gpu1", kernel.RULES.text),
        ("linux", "gpu1", kernel.IOMMU.text),
    ],
)
def test_garbage_is_a_parse_error(platform: str, device: str, command: str, lab_mini_state: Any) -> None:
    desired = lab_mini_state[1].devices[device]
    obs = collector_for(platform).parse({command: "% something else entirely\n"}, desired)
    assert [(e.kind, e.command) for e in obs.errors] == [("parse", command)]


def test_read_parses_or_records_a_parse_error_naming_the_command() -> None:
    errors: list[CollectError] = []
    lsmod = Command("lsmod")
    assert read({"lsmod": "42"}, lsmod, int, "h1", errors) == 42
    assert read({}, lsmod, int, "h1", errors) is None  # did not run: the engine recorded why
    assert errors == []
    assert read({"lsmod": "x"}, lsmod, int, "h1", errors) is None
    assert errors == [
        CollectError(device="h1", command="lsmod", kind="parse", message="invalid literal for int() with base 10: 'x'")
    ]
    key_error = read(
        {"lsmod": "{}"}, lsmod, lambda t: json.loads(t)["k"], "h1", errors, catch=(KeyError,), describe=repr
    )
    assert key_error is None
    assert errors[-1].message == "KeyError('k')"
    with pytest.raises(KeyError):  # only what ``catch`` names is a parse error
        read({"lsmod": "{}"}, lsmod, lambda t: json.loads(t)["k"], "h1", errors)


def test_command_slug() -> None:
    assert Command("vtysh -c 'show bgp summary json'").slug == "vtysh_-c_show_bgp_summary_json"


# --- offline round trips through the emulators --------------------------------------------------------


def test_sonic_round_trip(tmp_path: Path, lab_mini_state: Any) -> None:
    state: FabricState = lab_mini_state[1]
    fabric_file = tmp_path / "fabric.json"
    fabric_file.write_text(state.model_dump_json(), encoding="utf-8")
    ctx = EmulatorContext(device="leaf1", state_dir=tmp_path / "leaf1" / "state", netns=None, fabric_state=fabric_file)

    def run(line: str) -> str:
        emulator = SonicEmulator(ctx)
        emulator.exec_mode = True
        return emulator.execute(line).output

    patch = SonicEmulator(ctx).store.host_path("/home/admin/c.json")
    patch.parent.mkdir(parents=True, exist_ok=True)
    patch.write_text(json.dumps(build_config_db(state.devices["leaf1"], state)), encoding="utf-8")
    assert "Config replaced successfully." in run("sudo config replace /home/admin/c.json")
    dump = json.loads(run(sonic.RUNNING.text))
    assert dump["bgpraw"] == ""  # no FRR without a namespace: put the rendered frr.conf where FRR's would be
    files = {f.name: f.content for f in render_fabric(state, devices=["leaf1"])}
    dump["bgpraw"] = files["frr.conf"]
    outputs = {
        sonic.RUNNING.text: json.dumps(dump),
        sonic_counters.PFC_COUNTERS.text: run(sonic_counters.PFC_COUNTERS.text),
    }
    obs = sonic.Collector().parse(outputs, state.devices["leaf1"])
    assert obs.errors == [] and obs.device is not None
    assert differing_fields(state.devices["leaf1"], obs.device, obs.fields) == []
    assert {"qos.dscp_to_tc", "buffers.pools", "bgp.networks", "interfaces.*.pfc_priorities"} <= set(obs.fields)
    # a changed value is seen, by path
    dump["PORT"]["Ethernet8"]["mtu"] = "1500"
    drifted = sonic.Collector().parse({sonic.RUNNING.text: json.dumps(dump)}, state.devices["leaf1"])
    assert drifted.device is not None
    assert differing_fields(state.devices["leaf1"], drifted.device, drifted.fields) == [
        "interfaces.Ethernet8.mtu: desired 9100 observed 1500"
    ]


def test_eos_round_trip(tmp_path: Path, lab_mini_state: Any) -> None:
    from tests.support.eos_cli_helpers import make_cli, replace_with_rendered
    from xoff.platforms.eos.collect import RUNNING, Collector

    state: FabricState = lab_mini_state[1]
    cli = replace_with_rendered(make_cli(tmp_path / "state"), tmp_path / "state")
    obs = Collector().parse({RUNNING.text: cli.run("show running-config")}, state.devices["spine2"])
    assert obs.errors == [] and obs.device is not None
    assert differing_fields(state.devices["spine2"], obs.device, obs.fields) == []
    assert {"qos.dscp_to_tc", "qos.ecn", "pfc_watchdog", "bgp.neighbors"} <= set(obs.fields)
    cli.quiet("configure", "interface Ethernet1/1", "mtu 1500", "end")
    drifted = Collector().parse({RUNNING.text: cli.run("show running-config")}, state.devices["spine2"])
    assert drifted.device is not None
    assert "interfaces.Ethernet1/1.mtu: desired 9100 observed 1500" in differing_fields(
        state.devices["spine2"], drifted.device, drifted.fields
    )


# Cumulus NVUE: tests/platforms/cumulus/ (the real-format corpus and the collector on it).
