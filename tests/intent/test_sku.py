"""A switch's ``sku:`` (issue 15): it sets the ASIC, its table and pools reach the plan, rows may name SKUs.

Runs against the catalogue fixtures in ``tests/fixtures/skus`` (the shipped directory swapped out).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.buffers import catalogue as cat
from xoff.desired import FabricState, build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
SPINE = "  - {name: spine1, role: spine, mgmt: 192.0.2.11}"
POLICY_END = "    pfc_watchdog: {poll_interval_ms: 200, detection_ms: 400, restoration_ms: 800}\n"


@pytest.fixture(autouse=True)
def fixture_skus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cat, "_SHIPPED", ROOT / "tests" / "fixtures" / "skus")
    monkeypatch.delenv(cat.SKU_DIR_ENV, raising=False)


def _plan(tmp_path: Path, spine: str, policy: str = "") -> FabricState:
    text = MINIMAL.read_text(encoding="utf-8")
    assert text.count(SPINE) == 1 and text.count(POLICY_END) == 1
    text = text.replace(SPINE, "  - {name: spine1, role: spine, mgmt: 192.0.2.11, " + spine + "}")
    text = text.replace(POLICY_END, POLICY_END + policy)
    path = tmp_path / "intent.yaml"
    path.write_text(text, encoding="utf-8")
    return build_fabric_state(load_intent(path))


def _error(tmp_path: Path, spine: str, policy: str = "", *, count: int = 1) -> str:
    with pytest.raises(InputError) as err:
        _plan(tmp_path, spine, policy)
    assert len(err.value.problems) == count, err.value.render()
    return "\n".join(str(p) for p in err.value.problems)


@pytest.mark.parametrize(
    ("spine", "asic", "hwsku"),
    [
        ("platform: eos, sku: 7060X6-64PE", "tomahawk5", None),  # the defaults' spectrum4 gives way to the sku
        ("platform: eos, sku: 7060x6-64pe, asic: th5", "tomahawk5", None),  # agreeing asic, any spelling
        ("sku: SN5600", "spectrum4", "ACS-SN5600"),  # SONiC: the defaults' hwsku
    ],
)
def test_sku_sets_the_asic_and_the_table(tmp_path: Path, spine: str, asic: str, hwsku: str | None) -> None:
    state = _plan(tmp_path, spine)
    dev = state.devices["spine1"]
    assert (dev.asic, dev.hwsku) == (asic, hwsku)
    assert dev.buffers is not None
    assert dev.buffers.sku == cat.get_sku(spine.rsplit("sku: ", 1)[1].split(",", maxsplit=1)[0]).hwsku
    sources = {p.source for p in dev.buffers.profiles.values()}
    assert all(s.startswith("lookup: sonic-net/sonic-buildimage@") for s in sources), sources
    # the SKU's pools, not the ASIC's
    pool = next(p for p in dev.buffers.pools if p.name == "ingress_lossless_pool")
    assert pool.size == cat.get_sku(dev.buffers.sku).pools.ingress_lossless_pool  # type: ignore[union-attr]


def test_sonic_switch_without_hwsku_takes_the_skus(tmp_path: Path) -> None:
    text = MINIMAL.read_text(encoding="utf-8").replace("    hwsku: ACS-SN5600\n", "")
    text = text.replace(SPINE, "  - {name: spine1, role: spine, mgmt: 192.0.2.11, sku: MSN5600}")
    (tmp_path / "intent.yaml").write_text(text, encoding="utf-8")
    state = build_fabric_state(load_intent(tmp_path / "intent.yaml"))
    assert state.devices["spine1"].hwsku == "ACS-SN5600"
    assert state.devices["leaf1"].hwsku is None


@pytest.mark.parametrize(
    ("spine", "line"),
    [
        ("platform: eos, sku: 7060X6-64PE, asic: spectrum4", "asic 'spectrum4' conflicts with sku Arista-7060X6-64PE"),
        ("platform: eos, sku: 7060X6-64P", "unknown SKU '7060X6-64P' (closest: 7060X6-64PE"),
        ("platform: eos, sku: nothing-like-it", "unknown SKU 'nothing-like-it' ("),
    ],
)
def test_a_wrong_sku_is_one_located_line(tmp_path: Path, spine: str, line: str) -> None:
    msg = _error(tmp_path, spine)
    assert msg.startswith(f"{tmp_path / 'intent.yaml'}:60:"), msg
    assert line in msg, msg


ROWS = (
    "    cable_lengths: {leaf_spine: 100}\n"
    "    buffers:\n"
    "      headroom_rows:\n"
    "        - {skus: [7060X6-64PE], speed: 400G, cable: 100, xon: 0, xoff: 700000, size: 18796}\n"
    "        - {asics: [spectrum4], speed: 400G, cable: 100, xon: 19456, xoff: 400000, size: 419456}\n"
)


def test_headroom_rows_tied_to_a_sku(tmp_path: Path) -> None:
    state = _plan(tmp_path, "platform: eos, sku: 7060X6-64PE", ROWS)
    for dev, rule in (("spine1", 0), ("leaf1", 1)):
        buffers = state.devices[dev].buffers
        assert buffers is not None
        assert [r.source.rsplit("[", 1)[1] for r in buffers.headroom_rules] == [f"{rule}]"]
        (profile,) = {p for pgs in buffers.port_priority_groups.values() for p in pgs.values()} - {
            p for p in buffers.profiles if "5m" in p
        }
        assert buffers.profiles[profile].source.endswith(f"headroom_rows[{rule}]")


def test_a_row_naming_an_unknown_sku_is_located(tmp_path: Path) -> None:
    msg = _error(tmp_path, "platform: eos, sku: 7060X6-64PE", ROWS.replace("skus: [7060X6-64PE]", "skus: [SN9999]"))
    assert "qos_policies.rdma.buffers.headroom_rows[0].skus[0]: unknown SKU 'SN9999'" in msg, msg


def test_cable_rounding_up_names_the_row_used(tmp_path: Path) -> None:
    policy = "    cable_lengths: {leaf_spine: 30}\n    buffers: {cable_rounding: up}\n"
    state = _plan(tmp_path, "platform: eos, sku: 7060X6-64PE", policy)
    buffers = state.devices["spine1"].buffers
    assert buffers is not None and buffers.cable_rounding == "up"
    (profile,) = buffers.profiles.values()
    assert profile.name == "pg_lossless_400000_30m_profile"  # named for the port's cable, as SONiC names it
    assert profile.source.endswith("row 400000 40m (nearest longer cable for 30 m, buffers.cable_rounding: up)")
    # exact (the default): one problem per switch and reason, naming the ports (the leaves' spectrum4 has none either)
    exact = _error(tmp_path, "platform: eos, sku: 7060X6-64PE", "    cable_lengths: {leaf_spine: 30}\n", count=3)
    assert "spine1 ports Ethernet0, Ethernet8: no static headroom for SKU Arista-7060X6-64PE" in exact
    assert "rows that exist: 400000 5m, 400000 40m, 800000 300m, 100 5m" in exact
