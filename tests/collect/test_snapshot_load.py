"""``load_snapshot``: the fast path (pydantic's JSON parser, GC paused) reads exactly what the located
slow path reads, and a file it refuses still gets located one-line problems."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import Snapshot
from xoff.desired import build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.run import load_snapshot

LAB_MINI = ROOT / "inventory" / "lab-mini"


@pytest.fixture(scope="module")
def clean() -> Snapshot:
    return mirror_snapshot(build_fabric_state(load_intent(LAB_MINI)))


def test_fast_path_equals_python_validation(clean: Snapshot, tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(clean.model_dump_json(indent=2), encoding="utf-8")
    loaded = load_snapshot(path, "lab-mini")
    assert loaded == Snapshot.model_validate(json.loads(path.read_text(encoding="utf-8"))) == clean
    # integer-keyed maps come back as integers, as from the slow path
    assert all(isinstance(k, int) for d in loaded.observed.devices.values() if d.qos for k in d.qos.dscp_to_tc)


def test_refused_files_are_located(clean: Snapshot, tmp_path: Path) -> None:
    bad_syntax = tmp_path / "syntax.json"
    bad_syntax.write_text('{"fabric": "lab-mini",\n  "collected_at": }\n', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_snapshot(bad_syntax, "lab-mini")
    assert [str(p) for p in exc.value.problems] == [
        f"{bad_syntax}:2:19: not a JSON snapshot (allowed: xoff collect output)"
    ]
    data = json.loads(clean.model_dump_json(indent=2))
    data["observed"]["devices"]["leaf1"]["interfaces"]["Ethernet0"]["mtu"] = "big"
    bad_value = tmp_path / "value.json"
    bad_value.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_snapshot(bad_value, "lab-mini")
    lines = [str(p) for p in exc.value.problems]
    assert len(lines) == 1 and "observed.devices.leaf1.interfaces.Ethernet0.mtu" in lines[0], lines
    line_no = next(i for i, t in enumerate(bad_value.read_text().splitlines(), 1) if '"big"' in t)
    assert lines[0].startswith(f"{bad_value}:{line_no}:"), lines
