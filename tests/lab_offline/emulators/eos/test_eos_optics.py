"""The EOS emulator's FEC and optics (``show interfaces phy detail``, ``show interfaces transceiver dom thresholds``):
nothing measured on the lab's veth links, what the hook file's ``fec`` / ``optics`` hold otherwise, in EOS's ``|
json`` shapes (held to the raw real-format samples' shape, tests/fixtures/real/eos/); the bad-optic-eos seed is
read moving by the watch reader and undone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import covers, read_sample, samples, shape
from tests.support.eos_cli_helpers import Cli, make_cli, replace_with_rendered
from tests.support.fault_lab import fault_lab
from xoff.lab.faults import FAULTS
from xoff.platforms.eos import optics
from xoff.platforms.eos.watch import READER


@pytest.fixture
def spine2(tmp_path: Path) -> Cli:
    return replace_with_rendered(make_cli(tmp_path / "state"), tmp_path / "state")


def _raw_shape(slug: str) -> Any:
    return shape([json.loads(read_sample(p)) for p in samples("eos", slug)])


def _emulated(cli: Cli) -> dict[str, str]:
    return {c.text: cli.run(c.text) for c in COMMANDS}


COMMANDS = (optics.PHY, optics.DOM)


def test_nothing_measured_without_a_seed(spine2: Cli) -> None:
    out = _emulated(spine2)
    fec = optics.parse_phy(out[optics.PHY.text])
    assert set(fec) == {"Ethernet1/1", "Ethernet2/1", "Ethernet3/1", "Ethernet4/1"}
    assert {(f.corrected, f.uncorrectable, f.pre_ber) for f in fec.values()} == {(0, 0, None)}
    assert optics.parse_dom(out[optics.DOM.text]) == {}  # no module on a veth: displayName only


def test_the_seed_moves_what_the_watch_reader_reads_and_undo_restores(
    spine2: Cli, tmp_path: Path, lab_mini_state: Any
) -> None:
    fault = FAULTS["bad-optic-eos"]
    lab = fault_lab(tmp_path, lab_mini_state[1])
    device = lab_mini_state[1].devices["spine2"]
    fault.seed(lab, fault.target)
    hook = tmp_path / "state" / "counters.json"
    data = json.loads(hook.read_text())
    for entry in data["fec"][fault.target.port].values():  # as if seeded 10 s ago: no wait on the wall clock
        if "since" in entry:
            entry["since"] -= 10
    hook.write_text(json.dumps(data))
    out = _emulated(spine2)
    for command in COMMANDS:  # no key or type that no real sample has
        assert covers(_raw_shape(command.slug), shape([json.loads(out[command.text])])) == []
    got = READER.read(out, device)
    assert got.errors == []
    value = {(r.metric, r.labels): r.value for r in got.readings}
    port = (("port", fault.target.port),)
    assert value[("xoff_fec_corrected_codewords_total", port)] >= 2_500_000
    assert value[("xoff_pre_fec_ber", port)] == 2.4e-4
    assert value[("xoff_optic_rx_power_dbm", (("lane", "1"), *port))] == -13.9
    assert value[("xoff_optic_temperature_celsius", port)] == 71.5
    assert value[("xoff_fec_corrected_codewords_total", (("port", "Ethernet2/1"),))] == 0.0
    fault.undo(lab, fault.target)
    assert not hook.exists()
    assert optics.parse_dom(spine2.run(optics.DOM.text)) == {}


def test_a_broken_optics_hook_is_an_error_not_nothing(spine2: Cli, tmp_path: Path) -> None:
    (tmp_path / "state" / "counters.json").write_text('{"optics": {"Ethernet1/1": {"rxPower": ["low"]}}}')
    with pytest.raises(ValueError, match="rxPower"):
        spine2.run("show interfaces transceiver dom thresholds | json")
