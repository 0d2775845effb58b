"""``collect --shard K/N`` on N controllers, then ``snapshot merge``: the same snapshot as one collect, and validate
judges it the same. The devices are read from saved captures (xoff's rendered configuration for lab-mini, as in
test_captures.py: they exercise the split and the merge only, no claim about a real device's output); the lab
test (tests/lab/test_shard_lab.py) does the same against running devices."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.collect.test_captures import LAB_MINI, captures, state  # noqa: F401 -- the module's fixtures
from tests.support.paths import ROOT
from xoff import api
from xoff.api.snapshot import merge
from xoff.contracts.observed import CollectError, Snapshot
from xoff.desired.shard import parse_shard
from xoff.errors import InputError


def _collect(folder: Path, out: Path, shard: str | None) -> Snapshot:
    part = parse_shard(shard)
    return api.collect(LAB_MINI, api.CollectOptions(from_captures=folder, output=out, shard=part)).snapshot


def _judged(snapshot: Path) -> list[tuple[str, str, str | None, int]]:
    results = api.validate(LAB_MINI, api.ValidateOptions(snapshot=snapshot)).validation.results
    return [(r.id, r.status.value, r.message, len(r.findings)) for r in results]


@pytest.mark.parametrize("count", [2, 3, 4])
def test_sharded_collect_then_merge_is_one_collect(captures: Path, tmp_path: Path, count: int) -> None:  # noqa: F811
    single = _collect(captures, tmp_path / "one.json", None)
    parts = [tmp_path / f"shard{k}.json" for k in range(1, count + 1)]
    shards = [_collect(captures, path, f"{k}/{count}") for k, path in enumerate(parts, start=1)]
    # each device once: the shards' targets are disjoint and cover the fabric
    names = [n for s in shards for n in [*s.observed.devices, *s.captures_absent]]
    assert sorted(names) == sorted([*single.observed.devices, *single.captures_absent])
    assert [s.shard for s in shards] == [f"{k}/{count}" for k in range(1, count + 1)]
    merged = merge(parts, tmp_path / "merged.json").snapshot
    assert merged.model_dump(exclude={"collected_at"}) == single.model_dump(exclude={"collected_at"})
    with pytest.raises(InputError) as exc:  # a forgotten part is never a clean merge
        merge(parts[1:])
    assert exc.value.render().endswith(f"shard: parts 1/{count} missing (allowed: all {count} parts)") or count == 2
    with pytest.raises(InputError) as exc:  # nor is a part given twice
        merge([*parts, parts[0]])
    assert f"shard: part 1/{count} given twice (allowed: each part once)" in exc.value.render()
    assert merged.collected_at == max(s.collected_at for s in shards)
    assert _judged(tmp_path / "merged.json") == _judged(tmp_path / "one.json")


def _snap(fabric: str = "f", **fields: object) -> Snapshot:
    base = {
        "fabric": fabric,
        "collected_at": "2026-01-01T00:00:00Z",
        "observed": {"fabric": fabric, "source": "observed", "networks": {}, "links": [], "devices": {}},
    }
    return Snapshot.model_validate({**base, **fields})


def _write(tmp_path: Path, name: str, snap: Snapshot) -> Path:
    path = tmp_path / name
    path.write_text(snap.model_dump_json())
    return path


def test_a_device_in_two_shards_is_named_once(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.json", _snap(captures_absent={"leaf1": ["show x"]}, unmodelled={"leaf1": {"X": 1}}))
    b = _write(tmp_path, "b.json", _snap(captures_absent={"leaf1": ["show x"]}, unmodelled={"leaf1": {"X": 1}}))
    with pytest.raises(InputError) as exc:
        merge([a, b])
    assert exc.value.render().splitlines() == [f"{b}:1:1: unmodelled: device leaf1 is also in {a} (allowed: one shard)"]


def test_scalars_must_agree_and_lists_and_late_times_join(tmp_path: Path) -> None:
    a = _write(
        tmp_path,
        "a.json",
        _snap(lab_only=["pfc"], errors=[CollectError(device="x", command=None, kind="auth", message="m")]),
    )
    b = _write(tmp_path, "b.json", _snap(collected_at="2026-01-02T00:00:00Z", lab_only=["pfc"]))
    merged = merge([a, b]).snapshot
    assert merged.collected_at == "2026-01-02T00:00:00Z" and merged.lab_only == ["pfc"] and len(merged.errors) == 1
    c = _write(tmp_path, "c.json", _snap("other"))
    with pytest.raises(InputError) as exc:
        merge([a, c])
    assert f"{c}:1:1: fabric: 'other' here but 'f' in {a} (allowed: the same)" in exc.value.render().splitlines()


def test_cli_merge_and_bad_input(captures: Path, tmp_path: Path) -> None:  # noqa: F811
    parts = [tmp_path / "s1.json", tmp_path / "s2.json"]
    for k, path in enumerate(parts, start=1):
        _collect(captures, path, f"{k}/2")
    run = [sys.executable, "-m", "xoff", "snapshot", "merge", *map(str, parts), "-o", str(tmp_path / "m.json")]
    done = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "m.json").read_text())["fabric"] == "lab-mini"
    (tmp_path / "bad.json").write_text("{}")
    run = [sys.executable, "-m", "xoff", "snapshot", "merge", str(parts[0]), str(tmp_path / "bad.json"), "-o", "x"]
    bad = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, check=False)
    assert bad.returncode == 2 and bad.stderr.startswith(f"{tmp_path / 'bad.json'}:"), bad.stderr
    shard = [sys.executable, "-m", "xoff", "collect", str(LAB_MINI), "--from-captures", str(captures)]
    wrong = subprocess.run([*shard, "-o", "x", "--shard", "5/4"], capture_output=True, text=True, cwd=ROOT, check=False)
    assert wrong.returncode == 2 and wrong.stderr.startswith("--shard:1:1: 5/4: expected K/N"), wrong.stderr
