"""The Cumulus collector through the NVUE emulator: parse(the emulator's output after applying the rendered
sleaf1 config) equals desired on every field it reads; on a factory switch exactly the lossless plan differs;
a malformed value is one located error and the rest is read. The parsers on real output:
tests/platforms/cumulus/test_corpus.py (tests/fixtures/real/cumulus/)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cumulus_emu import applied_sleaf1, fabric, fabric_file, run, session

from tests.support.collect_drift import differing_fields
from xoff.lab.emulators.cumulus import Emulator
from xoff.platforms.cumulus.collect import CONFIG, INTERFACES, Collector
from xoff.platforms.registry import collector_for

NV_COMMANDS = (CONFIG, INTERFACES)


@pytest.fixture
def applied(tmp_path: Path) -> dict[str, str]:
    """What the emulator prints for the collector's NVUE commands once xoff's rendered sleaf1 is applied."""
    emu = applied_sleaf1(tmp_path)
    return {c.text: run(emu, c.text).output for c in NV_COMMANDS}


def test_registered() -> None:
    assert isinstance(collector_for("cumulus"), Collector)


def test_emulator_round_trip(applied: dict[str, str]) -> None:
    """What the emulator prints after applying the rendered file reads back as desired."""
    desired = fabric().devices["sleaf1"]
    obs = Collector().parse(applied, desired)
    assert obs.errors == [] and obs.device is not None
    assert differing_fields(desired, obs.device, obs.fields) == []
    for path in ("name", "interfaces.*.mtu", "interfaces.*.pfc_priorities", "interfaces.*.cable_m", "qos.ecn",
                 "qos.dscp_to_tc", "qos.lossless_priorities", "pfc_watchdog", "bgp.neighbors"):  # fmt: skip
        assert path in obs.fields, path
    assert obs.device.interfaces["swp3"].cable_m == 10 and obs.device.interfaces["swp1"].pfc_priorities == [4]
    assert obs.port_settings == {}  # every port applies the same profiles


def test_factory_switch_differs_by_the_lossless_plan_only(tmp_path: Path) -> None:
    desired = fabric().devices["sleaf1"]
    emu: Emulator = session(tmp_path / "state", fabric_state=fabric_file(tmp_path))
    obs = Collector().parse({c.text: run(emu, c.text).output for c in NV_COMMANDS}, desired)
    assert obs.device is not None and obs.errors == []
    diff = differing_fields(desired, obs.device, obs.fields)
    keys = {line.split(":")[0] for line in diff}
    assert keys == {"qos", "pfc_watchdog"} | {f"interfaces.swp{n}.{f}" for n in (1, 2, 3, 4)
                                               for f in ("pfc_priorities", "pfc_watchdog", "cable_m")}  # fmt: skip


def _with(text: str, **extra: object) -> str:
    """The applied config with ``extra`` merged into its ``set`` tree (``path.to.key`` = value)."""
    import json

    doc = json.loads(text)
    tree = next(item["set"] for item in doc if "set" in item)
    for dotted, value in extra.items():
        node = tree
        *parents, last = dotted.split("/")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("extra", "unmodelled"),
    [
        ({"service/ntp": {"mgmt": {"server": {"pool.example.net": {"iburst": "on"}}}}}, "service"),
        ({"interface/bond1": {"type": "bond", "bond": {"member": {"swp7": {}}}}}, "interface (type bond)"),
        ({"interface/swp1/link/fec": "rs"}, "interface.*.link.fec"),
        ({"system/aaa": {"user": {"ops": {"role": "system-admin"}}}}, "system.aaa"),
        ({"vrf/default/router/bgp/neighbor/swp5": {"remote-as": "external", "type": "unnumbered"}},
         "vrf.*.router.bgp.neighbor (unnumbered)"),
    ],
)  # fmt: skip
def test_what_xoff_does_not_model_is_counted_never_refused(
    applied: dict[str, str], extra: dict[str, object], unmodelled: str
) -> None:
    desired = fabric().devices["sleaf1"]
    outputs = {**applied, CONFIG.text: _with(applied[CONFIG.text], **extra)}
    obs = Collector().parse(outputs, desired)
    assert obs.errors == [] and obs.device is not None
    assert obs.unmodelled.get(unmodelled, 0) >= 1, obs.unmodelled
    assert differing_fields(desired, obs.device, obs.fields) == []


@pytest.mark.parametrize(
    ("extra", "message", "not_read"),
    [
        ({"interface/swp3/qos/pfc-watchdog/state": "on"}, "interface swp3 qos pfc-watchdog state",
         "interfaces.swp3.pfc_watchdog"),
        ({"interface/swp2/qos/pfc/profile": "nope"}, "profile 'nope' does not exist", "interfaces.swp2.pfc_priorities"),
        ({"qos/mapping/default-global/trust": "both"}, "trust: 'both'", "qos.trust"),
        ({"qos/pfc-watchdog/robustness": "three"}, "qos pfc-watchdog robustness", "pfc_watchdog"),
        ({"router/bgp/autonomous-system": "65000"}, "router bgp autonomous-system", "bgp.asn"),
    ],
)  # fmt: skip
def test_a_malformed_value_is_one_located_error_and_the_rest_is_read(
    applied: dict[str, str], extra: dict[str, object], message: str, not_read: str
) -> None:
    desired = fabric().devices["sleaf1"]
    outputs = {**applied, CONFIG.text: _with(applied[CONFIG.text], **extra)}
    obs = Collector().parse(outputs, desired)
    assert obs.device is not None and {e.command for e in obs.errors} == {CONFIG.text}
    assert all(message in e.message for e in obs.errors), obs.errors
    head, _, rest = not_read.partition(".")
    assert not_read not in obs.fields and f"{head}.*.{rest.partition('.')[2]}" not in obs.fields
    assert {"name", "interfaces.*.mtu", "static_routes"} <= set(obs.fields)  # the rest of the device is read


def test_a_port_with_its_own_mapping_profile_is_a_port_setting(applied: dict[str, str]) -> None:
    desired = fabric().devices["sleaf1"]
    extra = {"qos/mapping/pcp-only": {"trust": "l2"}, "interface/swp2/qos/mapping": {"profile": "pcp-only"}}
    obs = Collector().parse({**applied, CONFIG.text: _with(applied[CONFIG.text], **extra)}, desired)
    assert obs.errors == [] and obs.device is not None and obs.device.qos is not None
    assert obs.device.qos.trust == "dscp"  # the most common value
    assert list(obs.port_settings) == ["swp2"] and obs.port_settings["swp2"].trust == "pcp"


def test_roce_mode_leaves_the_lossless_plan_not_observed(applied: dict[str, str]) -> None:
    desired = fabric().devices["sleaf1"]
    obs = Collector().parse(
        {**applied, CONFIG.text: _with(applied[CONFIG.text], **{"qos/roce": {"mode": "lossless"}})}, desired
    )
    assert obs.errors == [] and obs.device is not None
    assert not [f for f in obs.fields if f.startswith(("qos", "pfc_watchdog")) or "pfc_priorities" in f]


@pytest.mark.parametrize(
    ("command", "text", "message"),
    [
        (CONFIG, "Error: Invalid Command: config shw", "not JSON"),
        (CONFIG, '[{"header": {}}]', "expected one 'set' document"),
        (INTERFACES, "[1, 2]", "expected an object"),
    ],
)
def test_output_that_is_not_nvue_is_a_parse_error_naming_the_command(
    applied: dict[str, str], command: object, text: str, message: str
) -> None:
    desired = fabric().devices["sleaf1"]
    obs = Collector().parse({**applied, command.text: text}, desired)  # type: ignore[attr-defined]
    (error,) = obs.errors
    assert error.kind == "parse" and error.command == command.text and message in error.message  # type: ignore[attr-defined]
