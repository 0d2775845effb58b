"""The vendors' EOS / Cumulus headroom guidance (``src/xoff/data/skus/guidance/``) used by the plan and by
``lossless.headroom`` (issue 15): Cumulus on Spectrum leaves the headroom to switchd and the plan shows the documented
defaults it relies on beside xoff's model; EOS on a Trident SONiC has no table for takes Habana's ingress headroom;
EOS on a Trident SKU with a SONiC table keeps the table's row and shows the guidance beside it where they differ."""

from __future__ import annotations

import io
from functools import cache

import pytest
from rich.console import Console

from tests.support.paths import ROOT
from xoff.buffers.catalogue import switch_asic
from xoff.buffers.guidance import guidance_for, guided, load_guidance
from xoff.buffers.result import Headroom, HeadroomUnavailable
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.builders.buffers import HeadroomArgs, port_headroom
from xoff.intent import load_intent
from xoff.report.plan_text import device_detail
from xoff.validate import Status, run_checks

SPINES = ROOT / "tests" / "fixtures" / "intent" / "guidance" / "spines.yaml"
HABANA = "guidance eos-trident-habana.yaml: ingress_headroom 64000 B, headroom_cells 250 cells, cell_size 254 B"
CUMULUS = (
    "switchd's: the NOS sizes it from the port's cable-length 40 m, xoff renders no threshold (documented defaults:"
    " cumulus-pfc-profile.yaml: port_buffer 25000 B, xoff_threshold 10000 B, xon_threshold 2000 B, cable_length"
    " 50 m; cumulus-roce.yaml: cable_length 100 m); xoff's model, for comparison: lookup:"
)
SN5600_100G_40M = "ACS-SN5600/pg_profile_lookup.ini row 100000 40m"
TD3_ROW = "Arista-7050CX3-32S-C32/BALANCED/pg_profile_lookup.ini row 100000 40m"


@cache
def _state() -> FabricState:
    return build_fabric_state(load_intent(SPINES))


@pytest.mark.parametrize(
    ("device", "numbers", "says"),
    [
        # Cumulus on Spectrum-4: the numbers are xoff's model (the reference SKU's table), the headroom switchd's
        ("spine1", (19456, 126976, 146432), [CUMULUS, SN5600_100G_40M]),
        # EOS on a Trident 3 with no SKU: SONiC has no table, the guidance's number is the plan's
        ("spine2", (0, 64000, 64000), [HABANA, "xoff's model has none: no static headroom for Broadcom Trident 3"]),
        # EOS on the 7050CX3-32S: SONiC's row stays, the guidance differs and is shown beside it
        (
            "spine3",
            (4608, 160000, 4608),
            ["xoff's model: xoff 160000 size 4608", TD3_ROW, "the guidance differs: " + HABANA],
        ),
        # SONiC leaves: no guidance, the table's row as before
        ("leaf1", (19456, 126976, 146432), [SN5600_100G_40M]),
    ],
)
def test_plan_uses_the_guidance(device: str, numbers: tuple[int, int, int], says: list[str]) -> None:
    buffers = _state().devices[device].buffers
    assert buffers is not None
    (profile,) = (p for p in buffers.profiles.values() if p.name.startswith("pg_lossless_100000_40m"))
    assert (profile.xon, profile.xoff, profile.size) == numbers
    for text in says:
        assert text in profile.source, profile.source
    if device == "leaf1":
        assert "guidance" not in profile.source and "switchd" not in profile.source


@pytest.mark.parametrize(("device", "says"), [("spine1", "cumulus-pfc-profile.yaml"), ("spine2", HABANA)])
def test_plan_text_names_the_guidance_file_and_number(device: str, says: str) -> None:
    """``xoff plan --device D --format text`` prints the profile's source: the guidance file and the number used."""
    out = io.StringIO()
    Console(file=out, width=400, color_system=None).print(device_detail(_state().devices[device]))
    flat = "".join(c for c in out.getvalue() if not c.isspace() and c not in "│┃")
    assert says.replace(" ", "") in flat, out.getvalue()[-2000:]


def test_the_guided_intent_passes_the_headroom_check() -> None:
    """lossless.headroom asks the same function as the plan: Habana's number is the rule on spine2."""
    (result,) = run_checks(_state(), ["lossless.headroom"])
    assert result.status is Status.SUCCESS, result


def test_the_check_fails_a_pg_below_the_guidance() -> None:
    state = _state()
    dev = state.devices["spine2"]
    assert dev.buffers is not None
    profiles = {n: p.model_copy(update={"xoff": 32000, "size": 32000}) for n, p in dev.buffers.profiles.items()}
    low = dev.model_copy(update={"buffers": dev.buffers.model_copy(update={"profiles": profiles})})
    (result,) = run_checks(
        state.model_copy(update={"devices": {**state.devices, "spine2": low}}), ["lossless.headroom"]
    )
    assert result.status is Status.FAILURE, result
    assert any(f.device == "spine2" for f in result.findings), result.findings


@pytest.mark.parametrize(
    ("platform", "asic", "names"),
    [
        ("cumulus", "spectrum4", ["cumulus-pfc-profile", "cumulus-roce"]),
        ("eos", "trident3", ["eos-trident-habana"]),
        ("eos", "trident4", ["eos-trident-habana"]),
        ("eos", "tomahawk5", []),  # Habana's page names the Trident MMU only
        ("sonic", "spectrum4", []),  # SONiC's own tables speak for it
        ("cumulus", "tomahawk3", []),
    ],
)
def test_which_guidance_applies(platform: str, asic: str, names: list[str]) -> None:
    assert [g.name for g in guidance_for(platform, asic)] == names


def test_every_shipped_guidance_file_loads_and_its_numbers_exist() -> None:
    for g in load_guidance():
        if g.use is not None:
            for name in [*g.use.show, *([g.use.number] if g.use.number else [])]:
                assert g.number(name).value > 0


@pytest.mark.parametrize(
    ("model", "source"),
    [
        (None, "xoff's model has none: no row"),
        (Headroom(0, 64000, 64000, None, "row", 100000, 40), "row; agrees with guidance eos-trident-habana.yaml"),
        (Headroom(0, 70000, 70000, None, "row", 100000, 40), "xoff's model: xoff 70000 size 70000 (row); the guidance"),
    ],
)
def test_per_port_guidance_against_the_model(model: Headroom | None, source: str) -> None:
    room = guided(guidance_for("eos", "trident3"), model, "no row", 100000, 40)
    assert room is not None and source in room.source
    assert room.xoff == (64000 if model is None else model.xoff)


def test_nos_computed_guidance_needs_a_model_to_compare() -> None:
    assert guided(guidance_for("cumulus", "spectrum3"), None, "no row", 400000, 40) is None


def test_cumulus_with_no_table_row_compares_with_the_asics_formula() -> None:
    """The static model has no 60 m row for Spectrum-4, but switchd sizes any cable: the plan does not refuse, and
    the ASIC's formula stands beside switchd's defaults; with no guidance (SONiC) the same port is refused."""
    args: HeadroomArgs = (switch_asic("spectrum4", None), 100000, 60, "static", 9100, (4096, 50, False, 0, "exact"))
    room = port_headroom(guidance_for("cumulus", "spectrum4"), args)
    assert "cable-length 60 m" in room.source and "xoff's model, for comparison: formula" in room.source
    with pytest.raises(HeadroomUnavailable, match="60 m"):
        port_headroom((), args)
