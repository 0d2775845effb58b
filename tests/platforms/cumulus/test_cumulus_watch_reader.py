"""The Cumulus watch reader (``xoff.platforms.cumulus.watch.READER``) on real-format outputs (the corpus,
tests/fixtures/real/cumulus/): per port its QoS counters, watchdog, PHY health and PG buffers, and every port's module DOM
from one ``nv show platform transceiver detail -o json`` a round, not one command per port; a module in a port the
intent does not name is not watched, one without DOM is not observed, a broken answer is an error line and the
other readings stand."""

from __future__ import annotations

import math

from tests.support.corpus import read_sample, samples
from tests.support.shim_host import fabric
from xoff.platforms.cumulus import buffers, counters, optics, transceivers
from xoff.platforms.cumulus.watch import READER

SLEAF1 = fabric("lab-mini").devices["sleaf1"]  # swp1-8
DETAIL = "nv_show_platform_transceiver_detail_-o_json"


def _sample(slug: str, name: str | None = None) -> str:
    found = samples("cumulus", slug)
    return read_sample(next(p for p in found if name is None or p.stem == name))


def _outputs(detail: str) -> dict[str, str]:
    per_port = {
        counters.qos_command("PORT").slug: _sample(counters.qos_command("PORT").slug),
        counters.watchdog_command("PORT").slug: _sample(counters.watchdog_command("PORT").slug),
        optics.phy_command("PORT").slug: _sample(optics.phy_command("PORT").slug),
        buffers.buffer_command("PORT").slug: _sample(buffers.buffer_command("PORT").slug),
    }
    out = {}
    for command in READER.commands(SLEAF1):
        slug = "_".join("PORT" if w.startswith("swp") else w for w in command.slug.split("_"))
        out[command.text] = detail if command == transceivers.TRANSCEIVERS else per_port[slug]
    return out


def _values(detail: str) -> tuple[dict[tuple[str, tuple[tuple[str, str], ...]], float | None], list[str]]:
    got = READER.read(_outputs(detail), SLEAF1)
    return {(r.metric, r.labels): r.value for r in got.readings}, got.errors


def test_one_command_reads_every_ports_module() -> None:
    commands = [c.text for c in READER.commands(SLEAF1)]
    ports = [n for n, i in SLEAF1.interfaces.items() if i.kind == "ethernet"]
    assert len(ports) == 8
    assert commands.count(transceivers.TRANSCEIVERS.text) == 1
    assert not any(c.endswith(" transceiver") for c in commands)  # no per-port module command any more
    assert len(commands) == 4 * len(ports) + 1  # qos counters, watchdog, phy-detail, PG buffers per port; modules once


def test_lanes_and_temperature_per_port_dark_lanes_and_an_empty_cage() -> None:
    value, errors = _values(_sample(DETAIL, "sn5600-osfp-dark-lanes-empty-cage"))
    assert errors == []
    rx = {(dict(k[1])["port"], dict(k[1])["lane"]): v for k, v in value.items() if k[0] == "xoff_optic_rx_power_dbm"}
    assert rx[("swp1", "1")] == 0.4 and rx[("swp2", "1")] == -13.9
    assert rx[("swp2", "8")] == -math.inf  # no light, as the module says
    assert value[("xoff_optic_temperature_celsius", (("port", "swp2"),))] == 71.2
    assert not any(dict(k[1]).get("port") == "swp3" for k in value if k[0].startswith("xoff_optic"))  # no module
    assert value[("xoff_fec_corrected_codewords_total", (("port", "swp3"),))] is not None  # its PHY is still read


def test_a_module_outside_the_intent_is_not_watched_and_copper_is_not_observed() -> None:
    value, _ = _values(_sample(DETAIL, "breakout-and-temperature-only"))  # swp9: a DOM module; swp1s0/1, swp10: copper
    assert not [k for k in value if k[0].startswith("xoff_optic")]


def test_a_broken_answer_is_an_error_line_and_the_counters_stand() -> None:
    value, errors = _values('{"swp1": {"temperature": {"temperature": "hot"}}}')
    assert len(errors) == 1 and transceivers.NAME in errors[0] and "temperature" in errors[0]
    assert not [k for k in value if k[0].startswith("xoff_optic")]
    assert value[("xoff_pfc_rx_pause_frames_total", (("port", "swp1"), ("priority", "4")))] is not None
