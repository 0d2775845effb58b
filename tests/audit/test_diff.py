"""``xoff diff SNAP_A SNAP_B`` on hand-built snapshots: each kind of change is named in its section with the device
and the subject; fields read on one side only are said, never compared; counters are rates, a counter that went down
a reset; an old snapshot (without intent hash or xoff version) loads; exit 0 no change, 1 changes, 2 bad input.

The snapshots are ``validate.mirror`` copies of lab-mini's desired state, edited as a device would have changed."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.paths import INVENTORY, ROOT
from xoff import api
from xoff.api.audit import DiffOptions, diff
from xoff.audit.diff import diff_snapshots
from xoff.cli import app
from xoff.contracts.observed import Snapshot
from xoff.desired import build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.validate.mirror import mirror_snapshot

Edit = Callable[[dict[str, Any]], None]
T0, T1 = "2026-01-01T00:00:00+00:00", "2026-01-01T00:01:00+00:00"  # 60 s apart


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    snap = mirror_snapshot(build_fabric_state(load_intent(INVENTORY / "lab-mini")))
    data: dict[str, Any] = json.loads(snap.model_dump_json())
    data["collected_at"] = T0
    return data


def _after(base: dict[str, Any], edit: Edit) -> tuple[Snapshot, Snapshot]:
    a = Snapshot.model_validate(base)
    data = json.loads(json.dumps(base))
    data["collected_at"] = T1
    edit(data)
    return a, Snapshot.model_validate(data)


def _dscp(d: dict[str, Any]) -> None:
    d["observed"]["devices"]["leaf1"]["qos"]["dscp_to_tc"]["26"] = 0


def _unread(d: dict[str, Any]) -> None:  # qos no longer read on leaf1 (and its copy differs): said, not compared
    d["observed_fields"]["leaf1"].remove("qos")
    d["observed"]["devices"]["leaf1"]["qos"]["dscp_to_tc"]["26"] = 0


def _moved(d: dict[str, Any]) -> None:
    d["lldp"]["leaf1"][0]["neighbor"] = "spine2"


def _lldp_gone(d: dict[str, Any]) -> None:
    del d["lldp"]["leaf1"][0]


def _bgp_down(d: dict[str, Any]) -> None:
    d["bgp_sessions"]["leaf1"][0]["state"] = "Active"


def _route(d: dict[str, Any]) -> None:
    d["fib"]["leaf1"].append({"prefix": "198.18.99.0/24", "protocol": "static", "ports": ["Ethernet0"]})


def _reset(d: dict[str, Any]) -> None:
    d["counters"]["leaf1"]["Ethernet0"]["queues"]["3"]["packets"] = 10


def _port_unread(d: dict[str, Any]) -> None:
    del d["counters"]["leaf1"]["Ethernet0"]


def _module(d: dict[str, Any]) -> None:
    d["hosts"]["gpu1"]["modules"] = []


def _gone(d: dict[str, Any]) -> None:
    del d["observed"]["devices"]["leaf2"]
    d["errors"].append({"device": "leaf2", "command": None, "kind": "unreachable", "message": "no route to host"})


def _mtu(d: dict[str, Any]) -> None:
    d["observed"]["devices"]["spine1"]["interfaces"]["Ethernet0"]["mtu"] = 1500


CASES: list[tuple[str, Edit, tuple[str, str, str, str]]] = [
    ("dscp remapped", _dscp, ("values", "leaf1", "qos.dscp_to_tc.26", "changed")),
    ("mtu", _mtu, ("values", "spine1", "interfaces.Ethernet0.mtu", "changed")),
    ("read on one side", _unread, ("values", "leaf1", "qos", "one side")),
    ("neighbour moved", _moved, ("cabling", "leaf1", "Ethernet32", "moved")),
    ("neighbour lost", _lldp_gone, ("cabling", "leaf1", "Ethernet32", "removed")),
    ("session down", _bgp_down, ("bgp", "leaf1", "neighbor 198.18.0.0", "changed")),
    ("route added", _route, ("fib", "leaf1", "198.18.99.0/24", "added")),
    ("counter reset", _reset, ("counters", "leaf1", "Ethernet0 queues.3.packets", "reset")),
    ("port counters not read", _port_unread, ("counters", "leaf1", "Ethernet0", "one side")),
    ("module unloaded", _module, ("hosts", "gpu1", "modules", "changed")),
    ("device not read", _gone, ("devices", "leaf2", "device", "removed")),
]


@pytest.mark.parametrize(("edit", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_change_is_named(base: dict[str, Any], edit: Edit, expected: tuple[str, str, str, str]) -> None:
    a, b = _after(base, edit)
    result = diff_snapshots(a, b)
    assert [(c.section, c.device, c.subject, c.what) for c in result.changes] == [expected]
    assert result.changed


def test_no_change_and_unread_values_not_compared(base: dict[str, Any]) -> None:
    a, b = _after(base, lambda _: None)
    assert diff_snapshots(a, b).changes == []
    # qos not read on either side: a difference in the copies is not a change
    data = json.loads(json.dumps(base))
    data["observed_fields"]["leaf1"].remove("qos")
    data2 = json.loads(json.dumps(data))
    data2["observed"]["devices"]["leaf1"]["qos"]["dscp_to_tc"]["26"] = 0
    assert diff_snapshots(Snapshot.model_validate(data), Snapshot.model_validate(data2)).changes == []


def test_unread_value_is_not_copied_into_a_change(base: dict[str, Any]) -> None:
    a, b = _after(base, _unread)
    (change,) = diff_snapshots(a, b).changes
    assert change.line() == "leaf1: qos: observed only in snapshot A (read), not compared"


def test_counters_are_rates_over_the_interval(base: dict[str, Any]) -> None:
    def busy(d: dict[str, Any]) -> None:
        d["counters"]["leaf1"]["Ethernet0"]["pfc"]["rx_pause"]["3"] = 600
        d["counters"]["leaf1"]["Ethernet0"]["queues"]["3"]["dropped_bytes"] = 5  # None in A: not observed, no rate

    a, b = _after(base, busy)
    result = diff_snapshots(a, b)
    assert result.interval_s == 60.0 and not result.changed
    assert [(r.device, r.port, r.counter, r.delta, r.per_second) for r in result.rates] == [
        ("leaf1", "Ethernet0", "pfc.rx_pause.3", 600, 10.0)
    ]


def test_intent_and_version_said_first(base: dict[str, Any], tmp_path: Path) -> None:
    old = {k: v for k, v in base.items() if k not in ("intent_sha256", "xoff_version")}  # an old-format file
    new = {**base, "intent_sha256": "sha256:" + "ab" * 32, "xoff_version": "0.1.0", "collected_at": T1}
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(old), encoding="utf-8")
    pb.write_text(json.dumps(new), encoding="utf-8")
    result = diff(pa, pb)
    assert result.a.intent_sha256 is None and result.a.xoff_version is None
    assert result.headline == [
        f"intent differs: not recorded -> sha256:{'ab' * 32}",
        "xoff differs: not recorded -> 0.1.0",
    ]
    out = CliRunner().invoke(app, ["diff", str(pa), str(pb)])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[1].startswith("!! intent differs") and lines[-1] == "no change in the running state"


def _write(tmp_path: Path, base: dict[str, Any], edit: Edit) -> tuple[Path, Path]:
    a, b = _after(base, edit)
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(a.model_dump_json(), encoding="utf-8")
    pb.write_text(b.model_dump_json(), encoding="utf-8")
    return pa, pb


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_formats_name_device_and_value(base: dict[str, Any], tmp_path: Path, fmt: str) -> None:
    pa, pb = _write(tmp_path, base, _dscp)
    out = CliRunner().invoke(app, ["diff", str(pa), str(pb), "--format", fmt])
    assert out.exit_code == 1, out.output
    if fmt == "json":
        doc = json.loads(out.output)
        assert doc["changed"] and doc["changes"][0] == {
            "section": "values",
            "device": "leaf1",
            "subject": "qos.dscp_to_tc.26",
            "what": "changed",
            "before": "3",
            "after": "0",
        }
    else:
        assert "leaf1" in out.output and "qos.dscp_to_tc.26" in out.output


def test_limit_keeps_other_devices_out(base: dict[str, Any], tmp_path: Path) -> None:
    pa, pb = _write(tmp_path, base, _dscp)
    assert diff(pa, pb, DiffOptions(limit=("spine*",))).changes == []
    assert len(diff(pa, pb, DiffOptions(limit=("leaf1",))).changes) == 1


def test_bad_input_exits_2(base: dict[str, Any], tmp_path: Path) -> None:
    pa, _ = _write(tmp_path, base, _dscp)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**base, "fabric": "elsewhere"}), encoding="utf-8")
    with pytest.raises(InputError) as exc:
        diff(pa, other)
    assert [str(p) for p in exc.value.problems] == [
        f"{other}:1:1: fabric: snapshot of fabric 'elsewhere', A is of 'lab-mini' (allowed: 'lab-mini')"
    ]
    out = CliRunner().invoke(app, ["diff", str(pa), str(tmp_path / "missing.json")])
    assert out.exit_code == 2 and "cannot read snapshot" in out.output


def test_host_lists_are_named_by_their_key(base: dict[str, Any]) -> None:
    def gpu_path(d: dict[str, Any]) -> None:
        d["hosts"]["gpu1"]["gpu_nic_paths"][0]["relation"] = "SYS"

    a, b = _after(base, gpu_path)
    (change,) = diff_snapshots(a, b).changes
    assert (change.device, change.subject, change.before, change.after) == (
        "gpu1",
        "gpu_nic_paths.GPU0.relation",
        "PIX",
        "SYS",
    )


IB_FATTREE = ROOT / "tests" / "fixtures" / "intents" / "ib-fattree"
IB_DUMP = ROOT / "tests" / "fixtures" / "deadlock" / "ib" / "fattree_ftree"


def test_infiniband_routes_and_sl2vl(tmp_path: Path) -> None:
    shutil.copytree(IB_DUMP, tmp_path / "captures" / "infiniband")
    snap = api.collect(IB_FATTREE, api.CollectOptions(from_captures=tmp_path / "captures")).snapshot
    assert snap.infiniband is not None
    data = json.loads(snap.model_dump_json())
    guid = sorted(data["infiniband"]["lfts"])[0]
    lid = sorted(data["infiniband"]["lfts"][guid], key=int)[0]
    data["infiniband"]["lfts"][guid][lid] += 1
    node = sorted(data["infiniband"]["sl2vl"])[0]
    table = data["infiniband"]["sl2vl"][node][0]
    table["vls"][0] = 15 if table["vls"][0] != 15 else 0
    data["infiniband"]["source"] = "read elsewhere"  # where it was read is not state
    changes = diff_snapshots(snap, Snapshot.model_validate(data)).changes
    assert [(c.section, c.subject) for c in changes] == [
        ("infiniband", f"lfts.{guid}.{lid}"),
        ("infiniband", f"sl2vl.{node}.{table['in_port']}>{table['out_port']}.vls"),
    ]


def test_markdown_renders_as_tables(base: dict[str, Any]) -> None:
    """The Markdown report through a real CommonMark renderer (markdown-it-py, with GFM tables): a table per section."""
    from markdown_it import MarkdownIt

    from xoff.audit.render import markdown_report

    def two(d: dict[str, Any]) -> None:
        _dscp(d)
        d["lldp"]["leaf1"][0]["neighbor"] = "spine|2"  # a pipe in a cell stays in its cell

    a, b = _after(base, two)
    html = MarkdownIt("commonmark").enable("table").render(markdown_report(diff_snapshots(a, b)))
    assert html.count("<table>") == 2 and "<h2>values (1)</h2>" in html and "<h2>cabling (1)</h2>" in html
    assert "<td>qos.dscp_to_tc.26</td>" in html and "<td>spine|2 Ethernet0</td>" in html


def _leaf1_unreachable(d: dict[str, Any]) -> None:
    del d["observed"]["devices"]["leaf1"]
    d["observed_fields"].pop("leaf1", None)
    d["errors"].append(
        {"device": "leaf1", "command": None, "kind": "unreachable", "message": "no route to host 198.19.252.11"}
    )


def _as_it_is(d: dict[str, Any]) -> None:  # B as A (but later)
    assert d


def test_a_device_read_in_neither_snapshot_is_not_a_clean_no_change(base: dict[str, Any], tmp_path: Path) -> None:
    both = json.loads(json.dumps(base))
    _leaf1_unreachable(both)
    pa, pb = _write(tmp_path, both, _as_it_is)
    out = CliRunner().invoke(app, ["diff", str(pa), str(pb)])
    assert out.exit_code == 4, out.output  # NOT_COLLECTED: nothing could be compared on leaf1
    assert "not compared (read in neither snapshot): leaf1" in out.output
    assert json.loads(CliRunner().invoke(app, ["diff", str(pa), str(pb), "-f", "json"]).stdout)["unread"] == ["leaf1"]
    assert diff(pa, pb, DiffOptions(limit=("spine*",))).unread == []  # not chosen: not said
