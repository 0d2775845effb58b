"""Malformed snapshots: exit 2 and exactly one line ``FILE:LINE:COL: key.path: what (allowed)``.

Each case edits the text of the valid ``u_turn.yaml`` fixture once (the old text must occur
exactly once) and runs the command on it from a temporary directory, so the file name in the
message is the stable ``case.yaml``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.paths import ROOT
from xoff.cli.deadlock import make_app

FIXTURES = ROOT / "tests" / "fixtures" / "deadlock"
BASE = (FIXTURES / "u_turn.yaml").read_text(encoding="utf-8")
H1_FWD = "H1: {L1: [h], S1: [p1], L2: [up]}"
NO_REWRITES = "priority_rewrite: []"

# (id, old text, new text, the one expected stderr line)
CASES = [
    (
        "unknown key in a link",
        "b: L1, b_port: up}",
        "b: L1, b_port: up, speed: 400}",
        "case.yaml:11:55: links[0].speed: unknown key (allowed: a, a_port, b, b_port, id, status)",
    ),
    (
        "unknown key under devices",
        "  hosts: [H1, H2]",
        "  hosts: [H1, H2]\n  routers: [R1]",
        "case.yaml:10:3: devices.routers: unknown key (allowed: hosts, switches)",
    ),
    (
        "priority out of range",
        "lossless_default: [3]",
        "lossless_default: [3, 9]",
        "case.yaml:15:23: lossless_default[1]: 9 is out of range (allowed: 0..7)",
    ),
    (
        "priority written as a string",
        "lossless_default: [3]",
        "lossless_default: ['3']",
        "case.yaml:15:20: lossless_default[0]: expected an integer priority, got '3' (allowed: 0..7)",
    ),
    (
        "priority listed twice",
        "lossless_default: [3]",
        "lossless_default: [3, 3]",
        "case.yaml:15:23: lossless_default[1]: 3 is listed twice (allowed: each priority once)",
    ),
    (
        "bad link status",
        "b: L1, b_port: h}",
        "b: L1, b_port: h, status: sideways}",
        "case.yaml:13:63: links[2].status: 'sideways' is not allowed (allowed: 'up' or 'down')",
    ),
    (
        "link end is not a device",
        "b: L2, b_port: h}",
        "b: L9, b_port: h}",
        "case.yaml:14:40: links[3].b: 'L9' is not a device (allowed: a name from devices)",
    ),
    (
        "port on two links",
        "{id: S1-L2, a: S1, a_port: p2",
        "{id: S1-L2, a: S1, a_port: p1",
        "case.yaml:12:32: links[1].a_port: port 'p1' of 'S1' is already on link 'S1-L1' (allowed: each port in at most one link)",
    ),
    (
        "link to itself",
        "a_port: p2, b: L2, b_port: up}",
        "a_port: p2, b: S1, b_port: up}",
        "case.yaml:12:39: links[1].b: link joins 'S1' to itself (allowed: two different devices)",
    ),
    (
        "duplicate link id",
        "{id: S1-L2,",
        "{id: S1-L1,",
        "case.yaml:12:10: links[1].id: 'S1-L1' is already used (allowed: each link id once)",
    ),
    (
        "duplicate device",
        "switches: [S1, L1, L2]",
        "switches: [S1, L1, L2, L1]",
        "case.yaml:8:26: devices.switches[3]: 'L1' is already listed in devices.switches (allowed: each device name once)",
    ),
    (
        "host with two up links",
        "  - {id: H2-L2, a: H2, a_port: nic, b: L2, b_port: h}",
        "  - {id: H2-L2, a: H2, a_port: nic, b: L2, b_port: h}\n  - {id: H2-L1, a: H2, a_port: nic2, b: L1, b_port: h2}",
        "case.yaml:9:15: devices.hosts[1]: host 'H2' has 2 up links (allowed: exactly one)",
    ),
    (
        "host whose only link is down",
        "b: L2, b_port: h}",
        "b: L2, b_port: h, status: down}",
        "case.yaml:9:15: devices.hosts[1]: host 'H2' has 0 up links (allowed: exactly one)",
    ),
    (
        "forwarding over a down link",
        "b: L1, b_port: up}",
        "b: L1, b_port: up, status: down}",
        "case.yaml:19:22: forwarding.H1.S1[0]: 'p1' is on a link that is down (allowed: up ports of 'S1': p2)",
    ),
    (
        "forwarding to a port that does not exist",
        H1_FWD,
        "H1: {L1: [h], S1: [p7], L2: [up]}",
        "case.yaml:19:22: forwarding.H1.S1[0]: 'p7' is not a port of any link (allowed: up ports of 'S1': p1, p2)",
    ),
    (
        "forwarding port listed twice",
        H1_FWD,
        "H1: {L1: [h, h], S1: [p1], L2: [up]}",
        "case.yaml:19:16: forwarding.H1.L1[1]: port 'h' is listed twice (allowed: each next-hop port once)",
    ),
    (
        "forwarding entry for a host",
        H1_FWD,
        "H1: {L1: [h], S1: [p1], L2: [up], H2: [nic]}",
        "case.yaml:19:37: forwarding.H1.H2: 'H2' is a host, which never forwards (allowed: a name from devices.switches)",
    ),
    (
        "forwarding destination is a switch",
        "  H2: {L2: [h]",
        "  L1: {L2: [h]",
        "case.yaml:20:3: forwarding.L1: 'L1' is a switch (allowed: a name from devices.hosts)",
    ),
    (
        "next hops not a list",
        H1_FWD,
        "H1: {L1: h, S1: [p1], L2: [up]}",
        "case.yaml:19:12: forwarding.H1.L1: expected a list, got 'h' (allowed: a list, e.g. ['h'])",
    ),
    (
        "rewrite on an unknown switch",
        NO_REWRITES,
        "priority_rewrite:\n  - {switch: X1, in_port: '*', out_port: '*', from: 3, to: 4}",
        "case.yaml:18:14: priority_rewrite[0].switch: 'X1' is not a switch (allowed: a name from devices.switches)",
    ),
    (
        "rewrite to priority 8",
        NO_REWRITES,
        "priority_rewrite:\n  - {switch: S1, in_port: '*', out_port: p2, from: 3, to: 8}",
        "case.yaml:18:59: priority_rewrite[0].to: 8 is out of range (allowed: 0..7)",
    ),
    (
        "rewrite on an unknown port",
        NO_REWRITES,
        "priority_rewrite:\n  - {switch: S1, in_port: [p1, p9], out_port: '*', from: 3, to: 4}",
        "case.yaml:18:27: priority_rewrite[0].in_port: 'S1' has no port 'p9' on any link (allowed: p1, p2 or '*')",
    ),
    (
        "rewrite without 'to'",
        NO_REWRITES,
        "priority_rewrite:\n  - {switch: S1, in_port: '*', out_port: '*', from: 3}",
        "case.yaml:18:5: priority_rewrite[0].to: required field is missing (add it)",
    ),
    (
        "lossless override of an unknown port",
        "lossless: {}",
        "lossless: {S1: {p9: [3]}}",
        "case.yaml:16:17: lossless.S1.p9: 'S1' has no port 'p9' on any link (allowed: p1, p2)",
    ),
    (
        "lossless override of an unknown device",
        "lossless: {}",
        "lossless: {Q1: {p1: [3]}}",
        "case.yaml:16:12: lossless.Q1: 'Q1' is not a device (allowed: a name from devices)",
    ),
    (
        "forwarding missing",
        "forwarding:\n",
        "forwardings:\n",
        "case.yaml:1:1: forwarding: required field is missing (add it)",
    ),
    (
        "YAML syntax",
        "lossless: {}",
        "lossless: {S1: [3}",
        "case.yaml:16:16: malformed YAML: '[' is not closed (allowed: a flow list [a, b, ...] closed with ']')",
    ),
]


def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, name: str = "case.yaml") -> tuple[int, str, str]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(make_app(), ["--snapshot", name])
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize(("old", "new", "line"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str, line: str) -> None:
    assert BASE.count(old) == 1, f"edit target must occur once: {old!r}"
    code, out, err = run(tmp_path, monkeypatch, BASE.replace(old, new))
    assert (code, out, err.splitlines()) == (2, "", [line])


def test_unknown_top_level_keys_are_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = BASE + "notes: {anything: [goes, here]}\nexpect_more: 1\n"
    code, out, err = run(tmp_path, monkeypatch, text)
    assert (code, err) == (0, "")
    assert "DEADLOCK RISK" in out


def test_top_level_must_be_a_mapping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run(tmp_path, monkeypatch, "- a\n- b\n")
    assert (code, err.strip()) == (
        2,
        "case.yaml:1:1: expected a mapping at the top level, got a list (allowed: a snapshot mapping)",
    )


def test_json_syntax_is_named_as_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = '{"name": "x",\n  "devices": {"switches": ["S1"], "hosts": []},\n  "links": [,]\n}\n'
    code, _, err = run(tmp_path, monkeypatch, text, "case.json")
    assert (code, err.strip()) == (2, "case.json:3:13: malformed JSON: Expecting value (allowed: valid JSON)")


def test_json_errors_are_located(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = json.loads(json.dumps(__import__("yaml").safe_load(BASE)))
    doc["lossless_default"] = [3, 11]
    code, _, err = run(tmp_path, monkeypatch, json.dumps(doc, indent=1), "case.json")
    assert code == 2
    assert err.startswith("case.json:") and ": lossless_default[1]: 11 is out of range (allowed: 0..7)" in err


def test_many_problems_still_one_line_the_first_in_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Schema problems come first (structure is only checked on a well-typed file), in file order."""
    text = BASE.replace("lossless_default: [3]", "lossless_default: [3, 9]")
    text = text.replace("b: L1, b_port: h}", "b: L1, b_port: h, status: sideways}")
    code, _, err = run(tmp_path, monkeypatch, text)
    assert code == 2
    assert err.splitlines() == ["case.yaml:13:63: links[2].status: 'sideways' is not allowed (allowed: 'up' or 'down')"]
    text = BASE.replace("b: L2, b_port: h}", "b: L9, b_port: h}").replace(H1_FWD, "H1: {L1: [h], S1: [p7], L2: [up]}")
    code, _, err = run(tmp_path, monkeypatch, text)
    assert code == 2
    assert err.splitlines() == ["case.yaml:14:40: links[3].b: 'L9' is not a device (allowed: a name from devices)"]


def test_missing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(make_app(), ["--snapshot", "nope.yaml"])
    assert (r.exit_code, r.stderr.strip()) == (2, "nope.yaml:1:1: cannot read file: No such file or directory")


def test_module_entry_point_exit_statuses(tmp_path: Path) -> None:
    """``python -m xoff.cli.deadlock``: 0 ran, 1 risk with --fail-on-risk, 2 malformed; no traceback."""

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "xoff.cli.deadlock", *args]
        return subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp_path, timeout=60)

    ring = str(FIXTURES / "ring_cycle.yaml")
    clean = str(FIXTURES / "leaf_spine_clean.yaml")
    assert cli("--snapshot", ring).returncode == 0
    r = cli("--snapshot", ring, "--format", "json", "--fail-on-risk")
    assert r.returncode == 1 and json.loads(r.stdout)["deadlock_risk"] is True
    assert cli("--snapshot", clean, "--fail-on-risk").returncode == 0
    (tmp_path / "bad.yaml").write_text(
        BASE.replace("lossless_default: [3]", "lossless_default: [3, 9]"), encoding="utf-8"
    )
    r = cli("--snapshot", "bad.yaml", "--format", "json")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.splitlines() == ["bad.yaml:15:23: lossless_default[1]: 9 is out of range (allowed: 0..7)"]
