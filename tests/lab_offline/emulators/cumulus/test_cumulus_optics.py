"""The NVUE emulator's PHY health and modules (``nv show interface <swp> link phy-detail`` / ``transceiver``, and
every port's at once: ``nv show platform transceiver detail``): nothing measured and a copper cable without DOM on
the lab's veth links, what the hook file's ``fec`` / ``optics`` hold otherwise, in the text and JSON NVIDIA's guides
print (the names the corpus' samples have); the bad-optic-cumulus seed is read moving by the watch reader and
undone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cumulus_emu import applied_sleaf1, fabric, run

from tests.support.corpus import read_sample, samples
from tests.support.fault_lab import fault_lab
from xoff.lab.emulators.cumulus import Emulator
from xoff.lab.faults import FAULTS
from xoff.platforms.cumulus import optics, transceivers
from xoff.platforms.cumulus.watch import READER


@pytest.fixture
def sleaf1(tmp_path: Path) -> Emulator:
    return applied_sleaf1(tmp_path)


def _names(text: str, split: str) -> set[str]:
    return {line.split(split)[0].strip() for line in text.splitlines() if split in line and line.strip()[0] != "-"}


def _sample_names(command: str, split: str) -> set[str]:
    return set().union(*(_names(read_sample(p), split) for p in samples("cumulus", command)))


def _keys(node: Any, path: str = "") -> set[str]:
    """Every key path of a JSON object, port names and lane numbers as ``*`` (``*.channel.*.rx-power.power``)."""
    if not isinstance(node, dict):
        return {path}
    out: set[str] = set()
    for key, sub in node.items():
        name = "*" if path == "" or path.endswith("channel") else key
        out |= _keys(sub, f"{path}.{name}" if path else name)
    return out


def _detail(emu: Emulator) -> str:
    return run(emu, transceivers.TRANSCEIVERS.text).output


def test_nothing_measured_and_no_dom_without_a_seed(sleaf1: Emulator) -> None:
    phy = optics.parse_phy_detail(run(sleaf1, optics.phy_command("swp1").text).output)
    assert (phy.corrected, phy.uncorrectable, phy.pre_ber) == (0, 0, 1.5e-254)  # NVUE's 15E-255: none measured
    assert transceivers.parse_transceivers(_detail(sleaf1)) == {}  # copper on every port: no DOM, nothing read
    assert "swp1" in json.loads(_detail(sleaf1))  # ... but every port's module is listed
    assert "does not exist" in run(sleaf1, "nv show interface swp99 transceiver").output


def test_the_seed_moves_what_the_watch_reader_reads_and_undo_restores(sleaf1: Emulator, tmp_path: Path) -> None:
    fault = FAULTS["bad-optic-cumulus"]
    lab = fault_lab(tmp_path, fabric())
    fault.seed(lab, fault.target)
    hook = tmp_path / "state" / "counters.json"
    data = json.loads(hook.read_text())
    for entry in data["fec"][fault.target.port].values():  # as if seeded 10 s ago: no wait on the wall clock
        if "since" in entry:
            entry["since"] -= 10
    hook.write_text(json.dumps(data))
    device = fabric().devices["sleaf1"]
    outputs = {c.text: run(sleaf1, c.text).output for c in READER.commands(device)}
    port = fault.target.port
    assert port is not None
    phy, detail = outputs[optics.phy_command(port).text], outputs[transceivers.TRANSCEIVERS.text]
    # no row name or key path that no real sample has
    assert _names(phy, "  ") - {"operational"} <= _sample_names(optics.phy_command("PORT").slug, "  ")
    real = set().union(*(_keys(json.loads(read_sample(p))) for p in samples("cumulus", transceivers.TRANSCEIVERS.slug)))
    assert _keys(json.loads(detail)) <= real
    xcvr = run(sleaf1, f"nv show interface {port} transceiver").output  # the per-port form, as the guide prints it
    assert _names(xcvr, ":") <= _sample_names("nv_show_interface_PORT_transceiver", ":")
    got = READER.read(outputs, device)
    assert got.errors == []
    value = {(r.metric, r.labels): r.value for r in got.readings}
    at = (("port", port),)
    assert (value[("xoff_fec_corrected_codewords_total", at)] or 0) >= 2_500_000
    assert (value[("xoff_fec_uncorrectable_codewords_total", at)] or 0) >= 40
    assert value[("xoff_pre_fec_ber", at)] == 2.4e-4  # NVUE prints it as 24E-5
    assert value[("xoff_optic_rx_power_dbm", (("lane", "8"), *at))] == -13.9
    assert value[("xoff_optic_temperature_celsius", at)] == 71.5
    assert ("xoff_optic_temperature_celsius", (("port", "swp1"),)) not in value  # no DOM: not observed
    fault.undo(lab, fault.target)
    assert not hook.exists()
    assert transceivers.parse_transceivers(_detail(sleaf1)) == {}


def test_a_broken_optics_hook_is_an_error_not_nothing(sleaf1: Emulator, tmp_path: Path) -> None:
    (tmp_path / "state" / "counters.json").write_text('{"optics": {"swp1": {"rx-power": ["low"]}}}')
    with pytest.raises(ValueError, match="rx-power"):
        run(sleaf1, "nv show interface swp1 transceiver")
    with pytest.raises(ValueError, match="rx-power"):
        _detail(sleaf1)
