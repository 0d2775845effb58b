"""``--scale``: each reference fabric reduced to its smallest size keeps its design (tiers, planes, dual ToR, split
ports, congestion control, load balancing, platforms, tenants) and still passes check and the offline validation; a
scale that would break the shape is refused with one located line (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff import api
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.intent.scale import parse_scale, shape
from xoff.intent.scale_file import scale_to
from xoff.intent.scale_write import compact
from xoff.validate import Status

DESIGNS = sorted((ROOT / "examples" / "designs").glob("*.yaml"))
BAD = (Status.FAILURE, Status.ERROR)
# design -> (switches, hosts) at --scale min
SMALLEST = {
    "alibaba-hpn": (6, 2),  # 1 ToR per plane (a NIC's two ports), 2 aggregation switches per plane
    "apstra-dcqcn": (4, 2),
    "bytedance-3tier": (10, 2),  # 2 pods x (2 rail leaves + 2 spines) + 1 super-spine per plane
    "meta-pfc-only": (10, 2),
    "spectrum-x": (4, 2),
}


@pytest.mark.parametrize("path", DESIGNS, ids=[p.stem for p in DESIGNS])
def test_the_smallest_design_keeps_its_shape_and_passes(path: Path, tmp_path: Path) -> None:
    done = scale_to(path, parse_scale("min"), tmp_path / path.name)
    full = load_intent(path)
    assert shape(done.intent) == shape(full)
    assert (done.switches[1], done.hosts[1]) == SMALLEST[path.stem]
    small = done.intent.document
    assert small.qos_policies == full.document.qos_policies  # congestion control and classes as written
    assert small.defaults == full.document.defaults and small.roles == full.document.roles  # LB, split ports
    report = api.check(done.path)
    assert [r.id for r in report.results if r.status in BAD] == []
    offline = api.validate(report.loaded, api.ValidateOptions(offline=True))
    assert [r.id for r in offline.validation.results if r.status in BAD] == []
    text = done.path.read_text()
    assert text.startswith(f"# {full.name}, reduced by `xoff scale --scale min`")
    assert all(f"#   {line}" in text for line in done.reduced)


def test_a_factor_scales_every_count_above_its_floor(tmp_path: Path) -> None:
    """roce-pod at 1/4: 8 rails -> 2, 32 GPU hosts -> 8, 8 compute spines -> 2 (one of each NOS), storage kept."""
    done = scale_to(ROOT / "inventory" / "roce-pod", parse_scale("1/4"), tmp_path / "roce-pod.yaml")
    assert done.reduced[:4] == [
        "compute rails (NICs per host): 8 -> 2",
        "hosts of cabling[0] (rail_optimized): 32 -> 8",
        "hosts of cabling[3] (rail_optimized): 8 -> 2",
        "spines of cabling[1] (leaf_spine): 8 -> 2",
    ]
    assert {s.platform for s in done.intent.switches.values()} == {"sonic", "eos", "cumulus"}
    assert len(done.intent.hosts) == 10


def test_a_tenant_keeps_a_host(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "designs" / "apstra-dcqcn.yaml").read_text()
    intent = tmp_path / "tenants.yaml"
    intent.write_text(text + 'tenants:\n  - {name: blue, hosts: ["gpu{1..2}"]}\n  - {name: red, hosts: [gpu4]}\n')
    done = scale_to(intent, parse_scale("min"), tmp_path / "out" / "tenants.yaml")
    assert sorted(done.intent.hosts) == ["gpu1", "gpu2", "gpu4"]
    assert [(t.name, t.hosts()) for t in done.intent.tenants] == [("blue", ["gpu1", "gpu2"]), ("red", ["gpu4"])]
    assert "tenant red: keeps gpu4" in done.reduced


def _nics_at(design: Path) -> str:
    """LINE:COL of the host profile's ``nics`` list (the design's only profile), where a rail refusal points."""
    lines = design.read_text().splitlines()
    start = lines.index("host_profiles:")
    k = next(k for k in range(start, len(lines)) if lines[k].strip() == "nics:") + 1
    return f"{k + 1}:{len(lines[k]) - len(lines[k].lstrip()) + 1}"


def _xoff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xoff", *args], capture_output=True, text=True, check=False)


def test_a_scale_that_breaks_the_shape_is_one_located_line(tmp_path: Path) -> None:
    design = ROOT / "examples" / "designs" / "bytedance-3tier.yaml"
    r = _xoff("scale", str(design), "--scale", "1/8", "-o", str(tmp_path / "x.yaml"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        f"{design}:{_nics_at(design)}: host_profiles.gpu8x200.nics: --scale 1/8 would break the design: it leaves 1 of the 8"
        " compute rails (NICs per host) (rail-optimised cabling needs 2) (allowed: --scale min, or a factor of at"
        " least 1/4)"
    ]
    assert not (tmp_path / "x.yaml").exists()


def test_xoff_scale_writes_and_says_what_it_reduced(tmp_path: Path) -> None:
    out = tmp_path / "meta.yaml"
    r = _xoff("scale", str(ROOT / "examples" / "designs" / "meta-pfc-only.yaml"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == f"wrote {out}: 22 -> 10 switches, 4 -> 2 hosts"
    assert "  GPUs per host of profile grand-teton: 8 -> 2" in r.stdout.splitlines()
    assert load_intent(out).name == "meta-pfc-only"


@pytest.mark.parametrize("text", ["0", "2", "-1/2", "half", "1/0"])
def test_a_bad_scale_is_refused(text: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_scale(text)
    assert str(exc.value.problems[0]).startswith(f"--scale:1:1: {text}: ")


def test_an_infiniband_fabric_is_refused_not_half_reduced() -> None:
    with pytest.raises(InputError) as exc:
        scale_to(ROOT / "inventory" / "ib-pod", parse_scale("min"), Path("/nonexistent/ib.yaml"))
    assert "an InfiniBand fabric is not reduced yet" in str(exc.value.problems[0])


@pytest.mark.parametrize(
    ("names", "patterns"),
    [
        (["leaf1", "leaf2", "leaf9", "leaf10"], ["leaf{1..2}", "leaf{9..10}"]),
        (["gpu01", "gpu02", "gpu10"], ["gpu{01..02}", "gpu10"]),
        (["tor1a", "tor1b"], ["tor1a", "tor1b"]),
        (["eth0"], ["eth0"]),
        (["Ethernet0", "Ethernet1"], ["Ethernet{0..1}"]),
    ],
)
def test_kept_names_are_written_as_brace_patterns(names: list[str], patterns: list[str]) -> None:
    assert compact(names) == patterns


def test_plan_says_what_was_reduced() -> None:
    r = _xoff("plan", str(ROOT / "examples" / "designs" / "bytedance-3tier.yaml"), "--scale", "min", "-f", "text")
    assert r.returncode == 0, r.stderr
    said = r.stderr.splitlines()
    assert said[0] == "--scale min: 24 -> 10 switches, 8 -> 2 hosts"
    assert "  super-spines of plane 2: 2 -> 1" in said
    assert "ss3" in r.stdout and "ss2" not in r.stdout


def test_lab_up_scale_refused_is_bad_input_and_brings_nothing_up(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from xoff.lab.cli import lab_app

    monkeypatch.setenv("XOFF_LAB_DIR", str(tmp_path))
    design = ROOT / "examples" / "designs" / "meta-pfc-only.yaml"
    r = CliRunner().invoke(lab_app, ["up", str(design), "--scale", "1/8", "--name", "t-scale"])
    assert r.exit_code == 2, r.output
    assert (
        f"{design}:{_nics_at(design)}: host_profiles.grand-teton.nics: --scale 1/8 would break the design" in r.output
    )
    assert list(tmp_path.iterdir()) == []
