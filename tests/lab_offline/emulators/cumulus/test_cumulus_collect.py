"""The Cumulus collector: its parsers on real-format fixtures (tests/fixtures/parse/cumulus/<command>/),
their strictness, and the offline round trip: parse(the emulator's output after applying the rendered
sleaf1 config) equals desired on every field it reads; on a factory switch exactly the lossless plan differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cumulus_emu import fabric, fabric_file, push, rendered, run, session, set_lines

from tests.support.collect_drift import differing_fields
from tests.support.paths import ROOT
from xoff.platforms.cumulus.collect import BGP, CONFIG, INTERFACES, LLDP, Collector
from xoff.platforms.registry import collector_for

FIX = ROOT / "tests" / "fixtures" / "parse" / "cumulus"

NV_COMMANDS = (CONFIG, INTERFACES)


def raw(command: str, case: str) -> str:
    return (FIX / command / f"{case}.raw").read_text(encoding="utf-8")


def outputs(case: str) -> dict[str, str]:
    return {c.text: raw(c.slug, case) for c in (CONFIG, INTERFACES, BGP, LLDP)}


def test_registered() -> None:
    assert isinstance(collector_for("cumulus"), Collector)


def test_fixtures_round_trip_to_desired() -> None:
    desired = fabric().devices["sleaf1"]
    obs = Collector().parse(outputs("lab-mini-sleaf1"), desired)
    assert obs.errors == [] and obs.device is not None
    assert differing_fields(desired, obs.device, obs.fields) == []
    for path in ("name", "interfaces.*.mtu", "interfaces.*.pfc_priorities", "interfaces.*.cable_m", "qos.ecn",
                 "qos.dscp_to_tc", "qos.lossless_priorities", "pfc_watchdog", "bgp.neighbors", "bgp.max_paths"):  # fmt: skip
        assert path in obs.fields, path
    assert obs.device.interfaces["swp3"].cable_m == 10 and obs.device.interfaces["swp1"].pfc_priorities == [4]
    assert obs.bgp_sessions == []  # a storage leaf: BGP announces its host subnets, it has no peers (FRR: {})
    assert [(n.port, n.neighbor, n.neighbor_port) for n in obs.lldp] == [
        (f"swp{n}", f"gpu{n}", "eth2") for n in (1, 2, 3, 4)
    ]


def test_emulator_round_trip(tmp_path: Path) -> None:
    """What the emulator prints after applying the rendered file reads back as desired; the fixtures
    are exactly those prints (so the emulator prints the fixtures' shapes)."""
    desired = fabric().devices["sleaf1"]
    emu = session(tmp_path / "state", fabric_state=fabric_file(tmp_path))
    push(emu, set_lines(rendered()["nvue-commands.txt"]))
    assert run(emu, "nv config apply -y").status == 0
    printed = {c.text: run(emu, c.text).output for c in NV_COMMANDS}
    obs = Collector().parse(printed, desired)
    assert obs.errors == [] and obs.device is not None
    assert differing_fields(desired, obs.device, obs.fields) == []
    fixture = json.loads(raw(CONFIG.slug, "lab-mini-sleaf1"))
    assert json.loads(printed[CONFIG.text])[1] == fixture[1]  # the set tree; the header has the revision
    shown, captured = json.loads(printed[INTERFACES.text]), json.loads(raw(INTERFACES.slug, "lab-mini-sleaf1"))
    ports = [name for name in captured if name.startswith("swp")]
    assert ports and {p: shown[p] for p in ports} == {p: captured[p] for p in ports}  # no namespace: the config's


def test_factory_switch_differs_by_the_lossless_plan_only(tmp_path: Path) -> None:
    desired = fabric().devices["sleaf1"]
    emu = session(tmp_path / "state", fabric_state=fabric_file(tmp_path))
    obs = Collector().parse({c.text: run(emu, c.text).output for c in NV_COMMANDS}, desired)
    assert obs.device is not None and obs.errors == []
    diff = differing_fields(desired, obs.device, obs.fields)
    keys = {line.split(":")[0] for line in diff}
    assert keys == {"qos", "pfc_watchdog"} | {f"interfaces.swp{n}.{f}" for n in (1, 2, 3, 4)
                                               for f in ("pfc_priorities", "pfc_watchdog")}  # fmt: skip


@pytest.mark.parametrize(
    ("command", "text", "message"),
    [
        (CONFIG, "Error: Invalid Command: config shw", "not JSON"),
        (CONFIG, '[{"header": {}}]', "expected one 'set' document"),
        (CONFIG, '[{"header": {}}, {"set": {"interface": {"bond1": {"type": "bond"}}}}]', "type: 'bond'"),
        (
            CONFIG,
            '[{"set": {"interface": {"swp1": {"type": "swp", "qos": {"pfc": {"profile": "x"}}}}}}]',
            "profile 'x' does not exist",
        ),
        (
            CONFIG,
            '[{"set": {"router": {"bgp": {"autonomous-system": 1}}, "vrf": {"default": {"router": {"bgp": '
            '{"neighbor": {"10.0.0.1": {"remote-as": "external"}}}}}}}}]',
            "remote-as: 'external'",
        ),
        (CONFIG, '[{"set": {"interface": {"swp9": {"type": "swp", "link": {"mtu": "big"}}}}}]', "link mtu"),
        (INTERFACES, "[1, 2]", "expected an object"),
    ],
)
def test_bad_output_is_a_parse_error_naming_the_command(command: object, text: str, message: str) -> None:
    desired = fabric().devices["sleaf1"]
    good = outputs("lab-mini-sleaf1")
    good[command.text] = text  # type: ignore[attr-defined]
    obs = Collector().parse(good, desired)
    (error,) = obs.errors
    assert error.kind == "parse" and error.command == command.text and message in error.message  # type: ignore[attr-defined]
