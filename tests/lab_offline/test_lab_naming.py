"""Lab naming: ``--name`` and ``--lab`` on every command that takes a lab, ``xoff lab list`` from the labs'
state directories, and a seeded fault's undo line that names its lab (so it can be pasted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tests.support.paths import ROOT
from xoff import cli
from xoff.lab import listing
from xoff.lab.faults import Target
from xoff.lab.faults import cli as fault_cli
from xoff.lab.processes import start_ticks
from xoff.lab.state import STATE_FILE, DeviceRecord, LabState, ProcessRecord, save


def _commands() -> list[tuple[str, Any]]:
    """Every command of the root CLI, the lazily loaded ones included, as (path, click command)."""

    def walk(command: Any, path: str) -> list[tuple[str, Any]]:
        subs = getattr(command, "commands", None)
        if subs is None:
            return [(path, command)]
        return [found for name, sub in subs.items() for found in walk(sub, f"{path} {name}")]

    root = typer.main.get_command(cli.app)
    found = [c for name, command in root.commands.items() for c in walk(command, name)]  # type: ignore[attr-defined]
    return found + [c for name in cli.LAZY for c in walk(cli._lazy_command(name), name)]


def test_every_command_that_takes_a_lab_takes_both_spellings() -> None:
    taking = {}
    for path, command in _commands():
        for param in command.params:
            opts = set(param.opts)
            if opts & {"--lab", "--name"}:
                taking[path] = opts
    assert {"push", "collect", "validate", "inventory export", "lab up", "lab status", "lab exec", "lab down"} <= set(
        taking
    )
    assert {"lab export", "lab fault"} <= set(taking)
    assert {p: o for p, o in taking.items() if not {"--lab", "--name"} <= o} == {}


def _xoff(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xoff", *args], capture_output=True, text=True, env=env, check=False)


def test_both_spellings_reach_the_same_lab(tmp_path: Path) -> None:
    """A lab that is not up: each spelling gets the same refusal, naming the lab asked for."""
    env = os.environ | {"XOFF_LAB_DIR": str(tmp_path), "PYTHONPATH": str(ROOT / "src")}
    intent = str(ROOT / "inventory" / "lab-mini")
    for option in ("--lab", "--name"):
        down = _xoff(env, "lab", "down", option, "nosuch")
        assert (down.returncode, down.stderr) == (1, "xoff lab: no lab named 'nosuch' (labs up: none)\n")
        validate = _xoff(env, "validate", intent, option, "nosuch")
        assert validate.returncode == 2 and "nosuch" in validate.stderr and "no lab of that name" in validate.stderr


def _record(pid: int, ticks: int, key: str) -> ProcessRecord:
    device, role = key.split("/")
    return ProcessRecord(key=key, role=role, device=device, netns=None, pid=pid, start_ticks=ticks, argv=["x"])


def _write_lab(root: Path, name: str, processes: list[ProcessRecord], remap: list[tuple[str, str]]) -> None:
    device = DeviceRecord(
        name="leaf1",
        kind="switch",
        platform="sonic",
        role="leaf",
        netns=f"xl-{name}-leaf1",
        mgmt_port="eth0",
        mgmt_ifname="eth0",
        mgmt_address="198.19.252.21/24",
        root_veth="xv0",
        dir=str(root / name / "devices" / "leaf1"),
    )
    save(
        LabState(
            name=name,
            fabric="lab-mini",
            intent="/srv/intents/lab-mini",
            intent_digest="0" * 64,
            lab_dir=str(root / name),
            bridge="xlb000000",
            controller_address="198.19.252.1/24",
            mgmt_prefix="198.19.252.0/24",
            devices={"leaf1": device},
            processes={p.key: p for p in processes},
            remap=remap,
            created_at=1_700_000_000.0,
        )
    )


@pytest.fixture
def labs_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Four labs' state directories: one whose processes run (this test's own process stands in for them),
    one whose processes are gone, one half way, and one whose lab.json this xoff cannot read."""
    monkeypatch.setenv("XOFF_LAB_DIR", str(tmp_path))
    me, ticks = os.getpid(), start_ticks(os.getpid())
    assert ticks is not None
    gone = _record(me, ticks + 1, "leaf1/bgpd")  # the same PID with another start time: not that process
    _write_lab(tmp_path, "running", [_record(me, ticks, "leaf1/bgpd"), _record(me, ticks, "leaf1/zebra")], [])
    _write_lab(tmp_path, "leftover", [gone], [("10.0.0.0/24", "198.18.3.0/24"), ("198.18.0.0/24", "198.18.0.0/24")])
    _write_lab(tmp_path, "half", [_record(me, ticks, "leaf1/zebra"), gone], [])
    (tmp_path / "future").mkdir()
    (tmp_path / "future" / STATE_FILE).write_text(json.dumps({"version": 99}), encoding="utf-8")
    (tmp_path / "not-a-lab").mkdir()  # no lab.json: not listed
    return tmp_path


def test_lab_list_says_which_labs_run(labs_root: Path) -> None:
    from xoff.lab.cli import lab_app

    result = CliRunner().invoke(lab_app, ["list", "--format", "json"])
    assert result.exit_code == 0, result.output
    by_name = {r["name"]: r for r in json.loads(result.output)}
    assert sorted(by_name) == ["future", "half", "leftover", "running"]
    assert {n: r["state"] for n, r in by_name.items()} == {
        "running": "alive",
        "leftover": "stale",
        "half": "partial",
        "future": "unreadable",
    }
    assert by_name["running"] | {"problem": None} == {
        "name": "running",
        "state": "alive",
        "fabric": "lab-mini",
        "intent": "/srv/intents/lab-mini",
        "devices": 1,
        "started": "2023-11-14T22:13:20Z",
        "processes": 2,
        "processes_alive": 2,
        "remapped": False,
        "problem": None,
    }
    assert by_name["leftover"]["remapped"] and by_name["half"]["processes_alive"] == 1
    assert "lab state version 99" in by_name["future"]["problem"]


def test_lab_list_text(labs_root: Path) -> None:
    from xoff.lab.cli import lab_app

    lines = CliRunner().invoke(lab_app, ["list"]).output.splitlines()
    assert lines[0].split() == ["lab", "state", "devices", "started", "(UTC)", "processes", "intent"]
    assert lines[1].split()[:2] == ["future", "unreadable"]
    assert lines[3].split() == [
        "leftover",
        "stale",
        "1",
        "2023-11-14T22:13:20Z",
        "0/1",
        "/srv/intents/lab-mini",
        "(--remap)",
    ]
    assert lines[4].split() == ["running", "alive", "1", "2023-11-14T22:13:20Z", "2/2", "/srv/intents/lab-mini"]


def test_lab_list_with_no_lab(tmp_path: Path) -> None:
    assert listing.rows(tmp_path / "absent") == []
    assert listing.text([], tmp_path) == f"no lab on this machine (labs root: {tmp_path})"


@pytest.mark.parametrize(
    ("target", "line"),
    [
        (Target("leaf1", "Ethernet0", 3), "xoff lab fault pfc-off leaf1 Ethernet0 --priority 3 --undo --name lab-7"),
        (Target("gpu1", None, None), "xoff lab fault pfc-off gpu1 --undo --name lab-7"),
    ],
)
def test_the_undo_line_names_the_lab(target: Target, line: str) -> None:
    assert fault_cli.undo_line("pfc-off", target, "lab-7") == line


def test_a_seeded_fault_prints_a_pasteable_undo_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lab comes from `the only lab up` (no --name given): the undo line names it all the same."""
    seeded: list[tuple[str, str, Target]] = []
    monkeypatch.setattr(fault_cli, "_only_lab", lambda: "only-one")
    monkeypatch.setattr(fault_cli, "Lab", lambda name: name)
    monkeypatch.setattr(fault_cli, "seed", lambda lab, name, target: seeded.append((lab, name, target)))
    app = typer.Typer()
    app.command()(fault_cli.fault_command)
    name = next(iter(fault_cli.FAULTS))
    result = CliRunner().invoke(app, [name])
    assert result.exit_code == 0, result.output
    ((lab, _, target),) = seeded
    assert lab == "only-one"
    assert result.output.splitlines()[-1].endswith(f"undo: {fault_cli.undo_line(name, target, 'only-one')}")
    assert result.output.rstrip().endswith("--undo --name only-one")
