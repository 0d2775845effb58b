"""Bad input: every case must fail to load with exactly the rendered problems its table entry expects.

Cases live in ``bad_intent_cases.yaml``. A case either edits the text of the valid
``tests/fixtures/intent/minimal.yaml`` (``edits``) and loads it as ``intent.yaml``, or writes a
directory intent (``files``) under ``intent/`` and loads that directory. The test runs in a
temporary working directory and passes relative paths, so the file names in the rendered output
are stable: ``{file}`` in an expected line stands for ``intent.yaml``; directory cases write the
names as the loader prints them (``intent/<name>``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from xoff.errors import InputError
from xoff.intent import load_intent

HERE = Path(__file__).parent
MINIMAL = HERE.parent / "fixtures" / "intent" / "minimal.yaml"
CASES_FILE = HERE / "bad_intent_cases.yaml"
SINGLE_FILE = "intent.yaml"
DIRECTORY = "intent"


def _load_cases() -> list[dict[str, Any]]:
    cases = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))["cases"]
    ids = [c["id"] for c in cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, f"duplicate case ids in {CASES_FILE.name}: {duplicates}"
    return cases


CASES = _load_cases()
CASES_BY_ID = {c["id"]: c for c in CASES}


def apply_edits(text: str, edits: list[dict[str, Any]], case_id: str) -> str:
    """Apply a case's edits to the text of minimal.yaml, in order."""
    for edit in edits:
        assert len(edit) == 1, f"{case_id}: an edit has exactly one operation, got {sorted(edit)}"
        ((op, arg),) = edit.items()
        if op == "replace":
            old, new = arg
            count = text.count(old)
            assert count == 1, f"{case_id}: replace {old!r} must match exactly once, matched {count} times"
            text = text.replace(old, new)
        elif op == "append":
            text = text + ("" if text.endswith("\n") else "\n") + arg
        elif op == "text":
            text = arg
        else:
            raise AssertionError(f"{case_id}: unknown edit operation {op!r} (allowed: replace, append, text)")
    return text


def write_case(case: dict[str, Any], root: Path) -> Path:
    """Write a case's intent under ``root``; return the relative path to pass to the loader."""
    if "files" in case:
        assert "edits" not in case, f"{case['id']}: give edits or files, not both"
        for name, content in case["files"].items():
            target = root / DIRECTORY / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        return Path(DIRECTORY)
    text = apply_edits(MINIMAL.read_text(encoding="utf-8"), case["edits"], case["id"])
    (root / SINGLE_FILE).write_text(text, encoding="utf-8")
    return Path(SINGLE_FILE)


def expected_lines(case: dict[str, Any]) -> list[str]:
    return [line.replace("{file}", SINGLE_FILE) for line in case["expect"]]


def test_minimal_intent_loads_cleanly() -> None:
    intent = load_intent(MINIMAL)
    assert intent.name == "minimal"
    assert sorted(intent.switches) == ["leaf1", "leaf2", "spine1"]
    assert sorted(intent.hosts) == ["gpu1", "gpu2"]
    assert len(intent.links) == 6  # 2 leaf-spine + 4 host-leaf
    assert set(intent.document.qos_policies) == {"rdma"}


def test_edits_apply_to_minimal() -> None:
    """Every edit case still matches the fixture: a stale replace would make a case test nothing."""
    text = MINIMAL.read_text(encoding="utf-8")
    for case in CASES:
        if "edits" in case:
            apply_edits(text, case["edits"], case["id"])


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 34


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_bad_intent(case: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_case(case, tmp_path)
    with pytest.raises(InputError) as info:
        load_intent(path)
    assert info.value.render().splitlines() == expected_lines(case)


@pytest.mark.parametrize("case_id", ["dscp-64", "roce-class-points-at-a-lossy-class"])
def test_cli_check_reports_bad_input_with_exit_status_2(case_id: str, tmp_path: Path) -> None:
    """``xoff check`` prints the same problem lines as the loader, exits 2, and shows no traceback."""
    case = CASES_BY_ID[case_id]
    path = write_case(case, tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "xoff", "check", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(HERE.parents[1] / "src")},  # this checkout's xoff, from any cwd
    )
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert result.returncode == 2, output
    expected = expected_lines(case)
    assert len(expected) == 1
    streams = [result.stderr.strip().splitlines(), result.stdout.strip().splitlines()]
    assert expected in streams, output


MIXED_CASES = [
    "a-bad-field-in-one-switch-hides-no-address-or-cabling-mistake",
    "dir-schema-device-address-and-cabling-mistakes-in-four-files",
    "unknown-section-broken-device-and-unknown-leaf-together",
]
COMMANDS = {
    "check": ["check"],
    "plan": ["plan"],
    "render": ["render", "--output", "rendered"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("case_id", MIXED_CASES)
def test_cli_reports_every_problem_of_one_run(case_id: str, command: str, tmp_path: Path) -> None:
    """Schema, device, address and cabling mistakes through ``check``, ``plan`` and ``render``: exit 2, the
    case's lines (all of them, in order) on stderr, nothing on stdout, no traceback, nothing written."""
    case = CASES_BY_ID[case_id]
    path = write_case(case, tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = subprocess.run(
        [sys.executable, "-m", "xoff", *COMMANDS[command], str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(HERE.parents[1] / "src")},  # this checkout's xoff, from any cwd
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(expected_lines(case)) >= 3  # a mixed case: several stages' problems in one run
    assert result.stderr.splitlines() == expected_lines(case)
    assert result.stdout == ""
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


TOMAHAWK_LEAVES = [
    {"replace": ["    asic: spectrum4\n", "    asic: tomahawk\n"]},  # no 400G headroom row: a planning problem per port
]


def _api_problems(edits: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from xoff import api

    monkeypatch.chdir(tmp_path)
    Path(SINGLE_FILE).write_text(apply_edits(MINIMAL.read_text(encoding="utf-8"), edits, "plan"), encoding="utf-8")
    with pytest.raises(InputError) as info:
        api.load(Path(SINGLE_FILE))
    return [p.path for p in info.value.sorted()]


def test_planning_problems_come_with_the_loading_problems_it_does_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unknown key of the fabric and an address clash do not touch what the planner reads: the headroom
    problems of the plan are in the same run (8 cabled lossless ports on 3 switches: one problem per switch and
    speed/cable, each at the policy's buffers)."""
    edits = [
        *TOMAHAWK_LEAVES,
        {"replace": ["mgmt: 192.0.2.22, asn: 65102", "mgmt: 192.0.2.21, asn: 65102"]},
        {"replace": ["  site: lab\n", "  site: lab\n  colour: blue\n"]},
    ]
    fields = _api_problems(edits, tmp_path, monkeypatch)
    assert fields == ["fabric.colour", *["qos_policies.rdma.buffers"] * 5, "switches[2].mgmt"]


def test_no_planning_when_a_device_was_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With leaf2 refused, a plan of the rest would judge a fabric the user did not write: not run."""
    edits = [*TOMAHAWK_LEAVES, {"replace": ["leaf2, role: leaf, mgmt", "leaf2, role: leaf, mtu: big, mgmt"]}]
    assert _api_problems(edits, tmp_path, monkeypatch) == ["switches[2].mtu"]
