"""The command line as a user meets it: real subprocesses, exit statuses, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.intent import load_intent

INVENTORY = ROOT / "inventory"
MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"


def xoff(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xoff", *args], capture_output=True, text=True, cwd=cwd, check=False)


def test_check_ok_text_and_json() -> None:
    r = xoff("check", str(INVENTORY / "lab-mini"))
    assert r.returncode == 0, r.stderr
    assert "intent OK" in r.stdout and "lab-mini" in r.stdout
    r = xoff("check", str(INVENTORY / "lab-mini"), "--format", "json")
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert doc["ok"] is True and doc["problems"] == []
    assert doc["counts"] == {"switches": 5, "ib_switches": 0, "hosts": 4, "links": 16}
    assert doc["networks"]["compute"]["roce_tos"] == 106


@pytest.mark.parametrize("example", ["lab-mini", "roce-pod", "ib-pod"])
def test_every_example_passes_check(example: str) -> None:
    r = xoff("check", str(INVENTORY / example), "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert doc["ok"] is True
    assert all(c["status"] in ("success", "skipped") for c in doc["checks"]), doc["checks"]


def test_check_bad_input_is_one_line_exit_2_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("fabric: {name: x}\nnetworks: {}\nbogus: 1\n")
    r = xoff("check", "bad.yaml", cwd=tmp_path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr + r.stdout
    assert r.stderr.splitlines() == [
        "bad.yaml:2:11: networks.compute: required field is missing (add it)",
        "bad.yaml:2:11: networks.management: required field is missing (add it)",
        "bad.yaml:3:1: bogus: unknown key (allowed: cabling, defaults, fabric, host_profiles, hosts, ib_switches,"
        " links, networks, qos_policies, roles, switches, tenants)",
    ]
    r = xoff("check", "bad.yaml", "--format", "json", cwd=tmp_path)
    assert r.returncode == 2
    problems = json.loads(r.stdout)["problems"]
    assert problems[2] == {
        "file": "bad.yaml",
        "line": 3,
        "column": 1,
        "path": "bogus",
        "message": problems[2]["message"],
    }


def test_missing_path_is_bad_input(tmp_path: Path) -> None:
    r = xoff("check", str(tmp_path / "nope"))
    assert r.returncode == 2
    assert r.stderr.strip() == f"{tmp_path / 'nope'}:1:1: no such file or directory"


@pytest.mark.parametrize("example", ["lab-mini", "roce-pod", "ib-pod"])
def test_plan_json_is_byte_identical_across_runs(example: str, tmp_path: Path) -> None:
    path = INVENTORY / example
    first = xoff("plan", str(path), "--format", "json")
    second = xoff("plan", str(path), "--format", "json")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    from xoff.desired import FabricState

    state = FabricState.model_validate_json(first.stdout)
    assert state.fabric == example


def test_plan_to_file_and_device_views(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    r = xoff("plan", str(INVENTORY / "lab-mini"), "-o", str(out))
    assert r.returncode == 0 and out.exists()
    assert json.loads(out.read_text())["devices"]["leaf1"]["bgp"]["asn"] == 65101
    r = xoff("plan", str(INVENTORY / "lab-mini"), "--device", "leaf1", "--format", "text")
    assert r.returncode == 0
    assert "pg_lossless_400000_40m_profile" in r.stdout and "spine1:Ethernet0" in r.stdout
    r = xoff("plan", str(INVENTORY / "lab-mini"), "--device", "nope")
    assert r.returncode == 2 and "no device named 'nope'" in r.stderr


@pytest.mark.parametrize(
    ("speed", "cable", "model", "expected", "source"),
    [
        ("100G", "5m", "dynamic", (19456, 113664, 133120), "formula: SONiC buffer_headroom_mellanox"),
        ("400G", "40m", "dynamic", (19456, 283648, 303104), "formula: SONiC buffer_headroom_mellanox"),
        ("400G", "40m", "static", (19456, 283648, 303104), "ACS-SN5600/pg_profile_lookup.ini row 400000 40m"),
        ("400G", "5m", "static", (19456, 231424, 250880), "ACS-SN5600/pg_profile_lookup.ini row 400000 5m"),
    ],
)
def test_headroom_reproduces_sn5600_rows(
    speed: str, cable: str, model: str, expected: tuple[int, int, int], source: str
) -> None:
    r = xoff(
        "headroom", "--speed", speed, "--cable", cable, "--asic", "spectrum4", "--model", model,
        "--small-packet-percent", "100", "--format", "json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["xon"], doc["xoff"], doc["size"]) == expected
    assert source in doc["source"]


# Expected numbers: SONiC's buffer_headroom_mellanox.lua run on the same inputs (tests/fixtures/sonic-lua/).
@pytest.mark.parametrize(
    ("args", "expected", "profile"),
    [
        (["--speed", "400G", "--cable", "40m"], (19456, 119808, 139264), "pg_lossless_400000_40m_profile"),
        (
            ["--speed", "100G", "--cable", "40m", "--mtu", "4200", "--eight-lanes", "--gearbox-delay-ns", "1300"],
            (38912, 88064, 132096),
            "pg_lossless_100000_40m_mtu4200_8lane_profile",
        ),
        (["--speed", "100M", "--cable", "5m"], (19456, 16384, 35840), "pg_lossless_100_5m_profile"),
        (
            ["--speed", "1.6T", "--cable", "5m", "--eight-lanes"],
            (38912, 62464, 110592),
            "pg_lossless_1600000_5m_8lane_profile",
        ),
    ],
)
def test_headroom_dynamic_is_sonics(args: list[str], expected: tuple[int, int, int], profile: str) -> None:
    r = xoff("headroom", *args, "--asic", "spectrum4", "--model", "dynamic", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["xon"], doc["xoff"], doc["size"], doc["profile"]) == (*expected, profile)


def test_headroom_text_and_bad_input() -> None:
    r = xoff("headroom", "--speed", "400G", "--cable", "40", "--asic", "sp4")
    assert r.returncode == 0 and "xoff   283648 bytes" in r.stdout and "source: lookup" in r.stdout
    r = xoff("headroom", "--speed", "300G", "--cable", "40m", "--asic", "spectrum4")
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "headroom: --speed: 300G is not a port speed (allowed: 100M, 1G, 10G, 25G, 40G, 50G, 100G, 200G, 400G, 800G, 1.6T)"
    )
    r = xoff("headroom", "--speed", "400G", "--cable", "40m", "--asic", "trident9")
    assert r.returncode == 2 and "trident9" in r.stderr and "spectrum4" in r.stderr and "Traceback" not in r.stderr


def test_usage_errors_exit_2_and_version() -> None:
    assert xoff("check").returncode == 2
    assert xoff("frobnicate").returncode == 2
    r = xoff("--version")
    assert r.returncode == 0 and r.stdout.startswith("xoff ")


def test_validate_without_a_mode_contacts_nothing_and_says_the_modes() -> None:
    r = xoff("validate", str(INVENTORY / "lab-mini"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stdout == ""
    assert r.stderr.splitlines() == [
        "xoff validate: say where the state comes from: --offline, --snapshot FILE, --lab NAME or --live "
        "(real devices only with --live)"
    ]
    r = xoff("validate", str(INVENTORY / "lab-mini"), "--offline", "--live")
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        "xoff validate: give one of --offline, --snapshot FILE, --lab NAME or --live (allowed: one)"
    ]


def test_validate_live_is_accepted_as_the_mode(tmp_path: Path) -> None:
    """--live is the explicit way to the real devices: with no secrets it stops before connecting (exit 2)."""
    missing = tmp_path / "no-secrets"
    r = xoff("validate", str(INVENTORY / "lab-mini"), "--live", "--secrets", str(missing))
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.splitlines() == [f"{missing}:1:1: secrets file does not exist"]


def test_plan_problems_are_lines_on_stderr_unless_json_is_asked(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("fabric: {name: x}\nnetworks: {}\nbogus: 1\n")
    r = xoff("plan", "bad.yaml", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert len(r.stderr.splitlines()) == 3 and r.stderr.splitlines()[2].startswith("bad.yaml:3:1: bogus: unknown key")
    r = xoff("plan", "bad.yaml", "--format", "text", cwd=tmp_path)
    assert (r.returncode, r.stdout, len(r.stderr.splitlines())) == (2, "", 3)
    r = xoff("plan", "bad.yaml", "--format", "json", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (2, "")
    assert [p["line"] for p in json.loads(r.stdout)["problems"]] == [2, 2, 3]


def test_render_diff_exits_1_when_something_differs_0_when_nothing_does(tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert xoff("render", str(INVENTORY / "lab-mini"), "-o", str(out)).returncode == 0
    r = xoff("render", str(INVENTORY / "lab-mini"), "--diff", str(out))
    assert (r.returncode, r.stdout) == (0, "")
    assert r.stderr.strip() == f"render: no differences from {out}"
    nvue = next(out.glob("*/startup.yaml"))
    nvue.write_text(nvue.read_text() + "# edited by hand\n")
    r = xoff("render", str(INVENTORY / "lab-mini"), "--diff", str(out))
    assert r.returncode == 1
    assert "-# edited by hand\n" in r.stdout
    # one device of a whole earlier render: the other devices' files are not "removed"
    r = xoff("render", str(INVENTORY / "lab-mini"), "--diff", str(out), "--device", "leaf1")
    assert (r.returncode, r.stdout) == (0, "")
    r = xoff("render", str(INVENTORY / "lab-mini"), "--diff", str(out), "--device", nvue.parent.name)
    assert r.returncode == 1 and r.stdout.startswith(f"--- a/{nvue.parent.name}/startup.yaml\n")


def test_lab_up_address_refusal_is_bad_input(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The refusal itself is proven in tests/lab_offline/test_lab_cleanup.py; here: its exit status."""
    from typer.testing import CliRunner

    from xoff.lab import lab as lab_module
    from xoff.lab.cli import lab_app

    def refuse(intent: Path, name: str | None = None, **_: object) -> None:
        mgmt = lab_module.Management(IPv4Network("10.9.0.0/24"), IPv4Address("10.9.0.1"))
        lab_module._addresses(build_fabric_state(load_intent(MINIMAL)), mgmt, remap_addresses=False)

    monkeypatch.setattr(lab_module, "up", refuse)
    r = CliRunner().invoke(lab_app, ["up", str(MINIMAL), "--name", "t-refuse"])
    assert r.exit_code == 2, r.output
    assert "outside the lab-safe ranges" in r.output and "use --remap" in r.output


def _make_n(target: str, tmp_path: Path, stamps: tuple[str, ...]) -> list[str]:
    """The commands ``make -n TARGET`` would run in a copy of the Makefile with these venv stamps present."""
    work = tmp_path / target
    (work / ".venv").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml"):
        (work / name).write_bytes((ROOT / name).read_bytes())
    for stamp in stamps:
        (work / ".venv" / stamp).touch()
    done = subprocess.run(
        ["make", "-n", target, "APT_PACKAGES="], cwd=work, capture_output=True, text=True, check=True, timeout=60
    )
    return [line for line in done.stdout.splitlines() if "pip install" in line]


def test_make_demo_installs_the_runtime_only_and_make_test_still_adds_the_dev_tools(tmp_path: Path) -> None:
    assert _make_n("demo", tmp_path / "fresh", ()) == [
        ".venv/bin/pip install -q --upgrade pip",
        ".venv/bin/pip install -q -e .",
    ]
    after_demo = (".created", ".installed-runtime")
    assert _make_n("test", tmp_path / "demo-then-test", after_demo) == [".venv/bin/pip install -q -e '.[dev]'"]
    after_test = (".created", ".installed-dev", ".installed-runtime")
    assert _make_n("demo", tmp_path / "test-then-demo", after_test) == []


def test_the_demo_lab_has_a_name_of_its_own_and_takes_down_only_that(tmp_path: Path) -> None:
    """scripts/demo-lab.sh against a stand-in xoff that records its calls (the real run: make demo as root)."""
    calls = tmp_path / "calls"
    fake = tmp_path / "fake-xoff"
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {calls}\n'
        # the seeded fault is caught: validate --catalog default exits 1, as the demo expects
        'case "$*" in *"--catalog default"*) exit 1;; esac\n'
        "exit 0\n"
    )
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "LAB"}
    done = subprocess.run(
        [str(ROOT / "scripts" / "demo-lab.sh")],
        env={**env, "XOFF": f"env XOFF_FAKE=1 {fake}", "OUT": str(tmp_path / "out")},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = calls.read_text().splitlines()
    up = next(line for line in lines if line.startswith("lab up "))
    name = up.split("--name ")[1].split()[0]
    assert name.startswith("demo-") and name != "lab-mini"
    assert all(f"--name {name}" in line or f"--lab {name}" in line for line in lines)
    assert lines[-1] == f"lab down --name {name}"
    assert sum(line.startswith("lab down") for line in lines) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "inventory/lab-mini", "--offline", "-o", "{dir}"],
        ["plan", "inventory/lab-mini", "-o", "{dir}"],
        ["change", "inventory/lab-mini", "inventory/lab-mini", "-o", "{dir}"],
    ],
    ids=["validate", "plan", "change"],
)
def test_an_output_path_that_cannot_be_written_is_one_line_exit_2(args: list[str], tmp_path: Path) -> None:
    done = xoff(*[a.format(dir=tmp_path) for a in args], cwd=ROOT)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"{tmp_path}:1:1: cannot use this path: Is a directory (allowed: a file path xoff can write)"
    ]
