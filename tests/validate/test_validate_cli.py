"""`xoff validate`: exit 0 clean, 1 findings, 2 bad input (one located line, no traceback); every format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.validate.mirror import mirror_snapshot

LAB_MINI = ROOT / "inventory" / "lab-mini"


def validate(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xoff.cli.validate", *args], capture_output=True, text=True, cwd=cwd, check=False
    )


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("snap")
    desired = build_fabric_state(load_intent(LAB_MINI))
    clean = mirror_snapshot(desired)
    leaf = clean.observed.devices["leaf1"]
    port = next(i for i in leaf.interfaces.values() if i.pfc_priorities)
    faulty = clean.model_copy(
        update={
            "observed": clean.observed.model_copy(
                update={
                    "devices": {
                        **clean.observed.devices,
                        "leaf1": leaf.model_copy(
                            update={"interfaces": {**leaf.interfaces, port.name: port.model_copy(update={"mtu": 1500})}}
                        ),
                    }
                }
            )
        }
    )
    out = {"clean": folder / "clean.json", "faulty": folder / "faulty.json", "other": folder / "other.json"}
    out["clean"].write_text(clean.model_dump_json())
    out["faulty"].write_text(faulty.model_dump_json())
    out["other"].write_text(clean.model_copy(update={"fabric": "elsewhere"}).model_dump_json())
    return out


def test_offline_clean_exits_0() -> None:
    r = validate(str(LAB_MINI), "--offline", "--catalog", "pre-change")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "lab-mini: catalog pre-change, offline:" in r.stdout and "no blocking findings" in r.stdout


def test_snapshot_clean_and_faulty(snapshots: dict[str, Path]) -> None:
    r = validate(str(LAB_MINI), "--snapshot", str(snapshots["clean"]), "--catalog", "audit", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["source"] == "snapshot" and doc["summary"]["failure"] == 0 and doc["summary"]["success"] >= 18
    r = validate(str(LAB_MINI), "--snapshot", str(snapshots["faulty"]), "--format", "json")
    assert r.returncode == 1
    failing = {
        (e["check"], e["device"], e["port"]) for e in json.loads(r.stdout)["results"] if e["status"] == "failure"
    }
    assert ("drift.state", "leaf1", "Ethernet0") in failing or any(c == "drift.state" for c, _, _ in failing)
    assert any(c == "lossless.link_mtu" for c, _, _ in failing)


@pytest.mark.parametrize(
    ("fmt", "marker"),
    [
        ("junit", "<testsuites"),
        ("markdown", "# xoff validate"),
        ("html", "<!DOCTYPE html>"),
        ("text", "checks found problems"),
    ],
)
def test_every_format_to_a_file(fmt: str, marker: str, snapshots: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / f"report.{fmt}"
    r = validate(str(LAB_MINI), "--snapshot", str(snapshots["faulty"]), "--format", fmt, "-o", str(out))
    assert r.returncode == 1, r.stderr
    assert marker in out.read_text(encoding="utf-8")


def test_bad_inputs_are_one_located_line_exit_2(snapshots: dict[str, Path], tmp_path: Path) -> None:
    r = validate(str(LAB_MINI), "--snapshot", str(snapshots["other"]))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert (
        r.stderr.strip()
        == f"{snapshots['other']}:1:1: fabric: snapshot of fabric 'elsewhere', not of this intent (allowed: 'lab-mini')"
    )
    broken = tmp_path / "broken.json"
    broken.write_text(
        '{"fabric": "lab-mini", "collected_at": "x", "observed": {"fabric": "lab-mini", "networks": {}, "links": [], "devices": {}}, "lldp": {"leaf1": [{"port": 1}]}}'
    )
    r = validate(str(LAB_MINI), "--snapshot", str(broken))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert any(line.startswith(f"{broken}:1:") and "lldp.leaf1[0].port: expected a string" in line for line in lines)
    assert all(line.startswith(f"{broken}:1:") for line in lines)
    (tmp_path / "c.yaml").write_text("checks:\n  nope.check:\n")
    r = validate(str(LAB_MINI), "--offline", "--catalog", str(tmp_path / "c.yaml"))
    assert r.returncode == 2 and r.stderr.startswith(
        f"{tmp_path / 'c.yaml'}:2:3: checks.nope.check: unknown check (allowed: "
    )
    r = validate(str(LAB_MINI), "--offline", "--snapshot", str(snapshots["clean"]))
    assert r.returncode == 2 and "give one of --offline, --snapshot FILE, --lab NAME" in r.stderr
    r = validate(str(LAB_MINI), "--offline", "--catalog", "nightly")
    assert (
        r.returncode == 2
        and "'nightly': no such catalog (allowed: default, pre-change, audit, or a catalog file)" in r.stderr
    )


def test_missing_lab_is_bad_input(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "XOFF_LAB_DIR": str(tmp_path)}
    r = subprocess.run(
        [sys.executable, "-m", "xoff.cli.validate", str(LAB_MINI), "--lab", "v7nolab"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        env=env,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr and "no lab of that name is up" in r.stderr
