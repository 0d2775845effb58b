"""The HTML audit report, parsed (stdlib html.parser): failures first with a remedy on every row, the header (intent
hash, version, mode, time, snapshot), a readable topology at 32 hosts, the device x check grid, the DSCP map along a
path and headroom per lossless port; self-contained."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.support.paths import ROOT, load_module
from xoff import __version__, api
from xoff.contracts.observed import Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.models import Device
from xoff.intent import load_intent
from xoff.report.grid import grid
from xoff.report.html import MAX_FINDINGS, html_report
from xoff.report.machine import json_report, junit_report
from xoff.report.meta import intent_hash
from xoff.report.people import markdown_report
from xoff.report.svg import svg
from xoff.report.topology import CHAR_W, Node, Picture, topology
from xoff.validate.catalog import load_catalog
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.model import CheckResult, Finding, Severity, Status
from xoff.validate.registry import CHECKS
from xoff.validate.run import Validation, validate

INTENT = ROOT / "inventory" / "lab-mini"
HASH = re.compile(r"^sha256:[0-9a-f]{64}$")


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element] = field(default_factory=list)
    text: str = ""

    def all(self, tag: str, **attrs: str) -> list[Element]:
        found = [self] if self.tag == tag and all(self.attrs.get(k) == v for k, v in attrs.items()) else []
        return found + [e for c in self.children for e in c.all(tag, **attrs)]

    def one(self, tag: str, **attrs: str) -> Element:
        (found,) = self.all(tag, **attrs)
        return found

    @property
    def content(self) -> str:
        return self.text + "".join(c.content for c in self.children)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


_VOID = {"meta", "br", "rect", "line", "img", "input", "hr", "link"}


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.root = Element("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(el)
        if tag not in _VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        while self.stack[-1].tag != tag:  # an end tag closes what it opened (the page is well formed)
            self.stack.pop()
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(Element("#text", {}, text=data))


def parse(page: str) -> Element:
    tree = _Tree()
    tree.feed(page)
    tree.close()
    assert len(tree.stack) == 1, [e.tag for e in tree.stack]  # every element closed
    return tree.root


def _rows(table: Element) -> list[list[Element]]:
    return [[c for c in tr.children if c.tag in ("td", "th")] for tr in table.all("tr")]


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(INTENT))


def _with_device(snap: Snapshot, device: Device) -> Snapshot:
    devices = {**snap.observed.devices, device.name: device}
    return snap.model_copy(update={"observed": snap.observed.model_copy(update={"devices": devices})})


@pytest.fixture(scope="module")
def faulty(desired: FabricState) -> Validation:
    """lab-mini's snapshot with known faults: PFC off on gpu1's NIC port, leaf2 mapping the RoCE DSCP to TC 0, and
    leaf1's 5 m profile read back with too little xoff."""
    snap = mirror_snapshot(desired)
    host = snap.observed.devices["gpu1"]
    nic = host.interfaces["eth0"].model_copy(update={"pfc_priorities": []})
    snap = _with_device(snap, host.model_copy(update={"interfaces": {**host.interfaces, "eth0": nic}}))
    leaf2 = snap.observed.devices["leaf2"]
    assert leaf2.qos is not None
    qos = leaf2.qos.model_copy(update={"dscp_to_tc": {**leaf2.qos.dscp_to_tc, 26: 0}})
    snap = _with_device(snap, leaf2.model_copy(update={"qos": qos}))
    leaf1 = snap.observed.devices["leaf1"]
    assert leaf1.buffers is not None
    small = leaf1.buffers.profiles["pg_lossless_400000_5m_profile"].model_copy(update={"xoff": 1024})
    buffers = leaf1.buffers.model_copy(
        update={"profiles": {**leaf1.buffers.profiles, "pg_lossless_400000_5m_profile": small}}
    )
    snap = _with_device(snap, leaf1.model_copy(update={"buffers": buffers}))
    v = validate(desired, load_catalog("audit"), snap, "snapshot")
    v.intent_hash, v.origin = intent_hash(load_intent(INTENT)), "snapshots/lab-mini.json"
    return v


@pytest.fixture(scope="module")
def page(faulty: Validation) -> Element:
    return parse(html_report(faulty))


def _section(page: Element, name: str) -> Element:
    return page.one("section", id=name)


def test_failures_come_first_with_counts_and_passes_are_folded(page: Element, faulty: Validation) -> None:
    order = [s.attrs["id"] for s in page.all("section")]
    assert order[0] == "failures" and order.index("failures") < order.index("passed")
    failures = _section(page, "failures")
    failing = [r for r in faulty.results if r.status.value in ("failure", "error")]
    n = sum(len(r.findings) for r in failing)
    assert f"({len(failing)} checks, {n} findings)" in failures.one("h2").content
    shown = [h.one("code").content for h in failures.all("h3")]
    assert set(shown) == {r.id for r in failing} and "lossless.headroom" in shown
    assert {"lossless.pfc_symmetry", "drift.state"} <= set(shown)
    passed = _section(page, "passed")
    folded = passed.all("details")
    assert len(folded) == 2 and all("open" not in d.attrs for d in folded)
    ok = sum(r.status.value == "success" for r in faulty.results)
    assert folded[0].one("summary").content == f"{ok} passed"
    in_passed = {c.content for c in folded[0].all("code")}
    assert in_passed == {r.id for r in faulty.results if r.status.value == "success"}
    assert not in_passed & set(shown)


def test_every_failure_row_has_a_concrete_remedy(page: Element, faulty: Validation) -> None:
    rows = [r for t in _section(page, "failures").all("table") for r in _rows(t)[1:]]
    assert len(rows) == sum(len(r.findings) for r in faulty.results if r.status.value == "failure")
    for cells in rows:
        device, port, fix = cells[0].content, cells[1].content, cells[-1].content
        assert f"fix at {device}" + (f" {port}" if port else "") in fix, fix
        assert len(fix) > 40 and "want " in fix, fix
    pfc = next(c for c in rows if "PFC priorities differ" in c[3].content)
    assert pfc[-1].content.startswith("enable PFC on the same priorities at both ends")
    head = next(c for c in rows if "xoff of pg_lossless_400000_5m_profile" in c[3].content)
    assert "regenerate the PG profile" in head[-1].content and "found 1024" in head[-1].content


def test_header_names_intent_version_mode_time_and_snapshot(page: Element, faulty: Validation) -> None:
    meta = {th.content: td.content for tr in page.one("table", id="meta").all("tr") for th, td in _pairs(tr)}
    assert HASH.match(meta["intent"]) and meta["intent"] == faulty.intent_hash
    assert meta["xoff"] == __version__ and meta["mode"] == "snapshot"
    assert meta["snapshot"].startswith("snapshots/lab-mini.json") and "collected" in meta["snapshot"]
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", meta["report"])


def _pairs(tr: Element) -> list[tuple[Element, Element]]:
    cells = [c for c in tr.children if c.tag in ("th", "td")]
    return list(zip(cells[::2], cells[1::2], strict=True))


def test_grid_has_a_cell_per_device_and_check_with_the_reason(page: Element, faulty: Validation) -> None:
    table = _section(page, "grid").one("table")
    head, *rows = _rows(table)
    assert [c.content for c in head[1:]] == [r.id for r in faulty.results]
    col = [r.id for r in faulty.results].index("lossless.pfc_symmetry")
    by_label = {r[0].content: r[1:] for r in rows}
    assert by_label["gpu1"][col].classes == {"c", "c-failing"}
    assert "gpu1: eth0 - PFC priorities differ" in by_label["gpu1"][col].attrs["title"]
    assert all(len(r) == len(head) for r in rows)
    listed = [d for r in rows for d in (r[0].attrs["title"].split(", "))]
    assert sorted(listed) == sorted(faulty.desired.devices)  # every device once
    clean = next(label for label in by_label if "spine" in label)
    assert all(c.classes & {"c-ok", "c-na", "c-skipped"} for c in by_label[clean]), clean


def test_path_map_shows_each_hop_and_marks_the_one_that_differs(page: Element) -> None:
    head, *rows = _rows(_section(page, "path").one("table"))
    roles = [h.content.split(h.one("code").content)[0] for h in head[3:]]
    assert roles == ["host NIC", "leaf", "spine", "leaf", "host NIC"]
    hops = [h.one("code").content for h in head[3:]]
    assert hops[0] != hops[-1] and hops[1] != hops[3] and "leaf2" in hops
    roce = next(r for r in rows if r[0].content == "roce")
    assert roce[1].content == "26" and roce[2].content == "prio 3 \u2192 Q3 \u2192 PG3 \u00b7 PFC"
    cells = dict(zip(hops, roce[3:], strict=True))
    assert "differs" in cells["leaf2"].classes and cells["leaf2"].content.startswith("prio 0")
    assert "differs: priority, queue" in cells["leaf2"].attrs["title"]
    assert not cells["leaf1"].classes and cells["leaf1"].content == "prio 3 \u2192 Q3 \u2192 PG3 \u00b7 PFC"


def test_headroom_shows_required_and_configured_per_lossless_port(page: Element) -> None:
    head, *rows = _rows(_section(page, "headroom").one("table"))
    assert [c.content for c in head][5] == "required xoff" and [c.content for c in head][8] == "configured xoff"
    first = rows[0]  # problems first
    assert first[0].content == "leaf1" and first[-1].content == "below" and "below" in first[-1].classes
    assert first[8].content == "1024" and int(first[5].content) > 1024
    assert "Ethernet0" in first[1].attrs["title"]
    assert {r[-1].content for r in rows[1:]} == {"ok"}
    assert {r[0].content for r in rows} == {"leaf1", "leaf2", "sleaf1", "spine1", "spine2"}


def test_offline_report_observes_nothing_and_says_so() -> None:
    result = api.validate(INTENT, api.ValidateOptions(offline=True))
    tree = parse(html_report(result.validation))
    _, *rows = _rows(_section(tree, "headroom").one("table"))
    assert rows and {r[-1].content for r in rows} == {"not observed"}
    assert {r[8].content for r in rows} == {""}  # no configured value made up from the plan
    head = _rows(_section(tree, "path").one("table"))[0]
    assert all(h.all("span")[0].content == "plan" for h in head[3:])
    grid_head, *grid = _rows(_section(tree, "grid").one("table"))
    col = [c.content for c in grid_head].index("drift.state")
    assert all("c-skipped" in r[col].classes for r in grid)
    assert "needs observed state" in grid[0][col].attrs["title"]


def test_self_contained(page: Element) -> None:
    for el in _every(page):
        for name in ("src", "href", "xlink:href"):
            assert name not in el.attrs, (el.tag, el.attrs)
        assert "http://" not in el.text and "https://" not in el.text
    assert not page.all("script") and not page.all("link") and not page.all("img")
    style = page.one("style").content
    assert "url(" not in style and "@import" not in style


def _every(el: Element) -> list[Element]:
    return [el] + [d for c in el.children for d in _every(c)]


def _bench_fabric(tmp: Path, hosts: int) -> Path:
    load_module("plan_scale", ROOT / "bench" / "plan_scale.py").generate(hosts, tmp)
    return tmp


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_topology_at_32_hosts_is_small_and_boxes_do_not_overlap(tmp_path: Path) -> None:
    intent = _bench_fabric(tmp_path, 32)  # 32 rail-optimised hosts, 8 leaves, 32 spines, 256 super-spines
    result = api.validate(intent, api.ValidateOptions(offline=True))
    state = result.validation.desired
    page = html_report(result.validation)
    svg = parse(page).one("svg")
    width, height = int(svg.attrs["width"]), int(svg.attrs["height"])
    assert width <= 1200 and height <= 600
    boxes = [{k: float(r.attrs[k]) for k in ("x", "y", "width", "height")} for r in svg.all("rect")]
    assert 8 <= len(boxes) <= 60  # not one box per device (328) or per NIC
    for i, a in enumerate(boxes):
        assert a["x"] >= 0 and a["x"] + a["width"] <= width and a["y"] + a["height"] <= height
        assert not any(_overlap(a, b) for b in boxes[i + 1 :]), a
    picture = topology(state, {}, {})
    for node in picture.nodes:
        assert len(node.label) * CHAR_W <= node.w - 8, node.label  # every label fits in its box
    linked = {p.device for link in state.links for p in (link.a, link.b)}
    assert sum(n.count for n in picture.nodes) == len(linked)  # every linked device drawn once
    assert {n.sub for n in picture.nodes if n.kind == "host"} == {"8 hosts"}
    assert len(page) < 600_000


def test_topology_colours_the_worst_status(desired: FabricState) -> None:
    picture = topology(desired, {("gpu1", "eth0"): "lossless.pfc_symmetry"}, {"gpu1": "failing", "gpu2": "warning"})
    state = {n.label: n.state for n in picture.nodes}
    assert state["gpu1"] == "failing" and state["gpu2"] == "warning" and state["leaf1"] == "ok"
    assert sum(e.failing for e in picture.edges) == 1


def test_every_registered_check_has_a_hint() -> None:
    missing = [i for i in CHECKS.ids() if not (CHECKS.get(i).hint or "").strip()]
    assert not missing, f"checks without a hint: {missing}"


def test_every_format_carries_the_same_intent_hash(faulty: Validation) -> None:
    doc = json.loads(json_report(faulty))
    assert doc["intent_hash"] == faulty.intent_hash and HASH.match(doc["intent_hash"])
    assert doc["xoff_version"] == __version__ and doc["mode"] == "snapshot"
    assert doc["snapshot"] == "snapshots/lab-mini.json"
    assert f"intent: `{faulty.intent_hash}`" in markdown_report(faulty)
    assert f'name="intent_hash" value="{faulty.intent_hash}"' in junit_report(faulty)


def test_intent_hash_is_stable_and_changes_with_a_value(tmp_path: Path) -> None:
    first, again = intent_hash(load_intent(INTENT)), intent_hash(load_intent(INTENT))
    assert first == again
    copy = tmp_path / "lab-mini"
    copy.mkdir()
    for f in sorted(INTENT.glob("*.yaml")):
        (copy / f.name).write_text(f.read_text(encoding="utf-8") + "\n# a comment changes no value\n")
    assert intent_hash(load_intent(copy)) == first
    fabric = copy / "qos.yaml"
    text = fabric.read_text(encoding="utf-8")
    changed = text.replace("probability: 100", "probability: 90", 1)
    assert changed != text
    fabric.write_text(changed, encoding="utf-8")
    assert intent_hash(load_intent(copy)) != first


def test_mode_is_lab_for_a_lab_collect(faulty: Validation) -> None:
    lab = Validation(faulty.desired, "default", "live", [], lab="mini")
    assert lab.mode == "lab" and faulty.mode == "snapshot"
    cells = parse(html_report(lab)).one("table", id="meta").all("td")
    assert cells[2].content == "lab" and cells[3].content == "read from lab mini by this run, not saved"


def test_grid_keeps_a_finding_on_something_that_is_not_a_device(desired: FabricState) -> None:
    finding = Finding("compute", "network", "a problem of the whole network", "x", "y")
    result = CheckResult("deadlock.cbd", "t", Severity.ERROR, Status.FAILURE, [finding], hint="h")
    rows = {g.label: g for g in grid(Validation(desired, "default", "offline", [result])).rows}
    assert rows["compute (not a device)"].cells[0].state == "failing"
    assert all(g.cells[0].state == "ok" for label, g in rows.items() if label != "compute (not a device)")


def test_validate_on_a_snapshot_file_names_it_and_the_intent(desired: FabricState, tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    path.write_text(mirror_snapshot(desired).model_dump_json(), encoding="utf-8")
    v = api.validate(INTENT, api.ValidateOptions(snapshot=path)).validation
    assert (v.mode, v.origin, v.intent_hash) == ("snapshot", str(path), intent_hash(load_intent(INTENT)))
    doc = json.loads(json_report(v))
    assert (doc["mode"], doc["snapshot"], doc["intent_hash"]) == ("snapshot", str(path), v.intent_hash)


def test_topology_at_128_hosts_and_1216_devices_stays_one_screen(tmp_path: Path) -> None:
    """Every tier grouped (32 leaves, 32 spines, 1024 super-spines): the same bounds as at 32 hosts."""
    state = build_fabric_state(load_intent(_bench_fabric(tmp_path, 128)))
    picture = topology(state, {}, {next(iter(sorted(state.devices))): "failing"})
    assert picture.width <= 1200 and picture.height <= 600 and len(picture.nodes) <= 60
    boxes = [{"x": n.x, "y": n.y, "width": n.w, "height": n.h} for n in picture.nodes]
    for i, a in enumerate(boxes):
        assert a["x"] >= 0 and a["x"] + a["width"] <= picture.width
        assert not any(_overlap(a, b) for b in boxes[i + 1 :]), a
    assert all(len(n.label) * CHAR_W <= n.w - 8 for n in picture.nodes)
    assert sum(n.count for n in picture.nodes) == len(state.devices)
    assert [n.state for n in picture.nodes].count("failing") == 1  # the group holding the failing device
    assert len(picture.edges) <= 400


def test_a_long_failing_check_is_cut_and_says_how_many_more(desired: FabricState) -> None:
    many = [Finding("gpu1", f"obj{i}", "wrong", "1", "2", port="eth0") for i in range(MAX_FINDINGS + 50)]
    result = CheckResult("drift.state", "t", Severity.ERROR, Status.FAILURE, many, hint="push it")
    failures = _section(parse(html_report(Validation(desired, "default", "offline", [result]))), "failures")
    assert len(_rows(failures.one("table"))) == 1 + MAX_FINDINGS
    assert "and 50 more findings" in failures.content


def test_svg_escapes_names() -> None:
    node = Node("<b>x</b>", "", 10, 10, 90, 38, "switch", "failing", 1, "<b>x</b>", "<script>alert(1)</script>")
    text = svg(Picture(200, 100, [node], []))
    assert "<script>" not in text and "&lt;script&gt;" in text and "&lt;b&gt;x&lt;/b&gt;" in text
    assert ET.fromstring(text).tag == "svg"  # well formed
