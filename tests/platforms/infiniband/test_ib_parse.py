"""infiniband-diags parsers on real output captured from ibsim + OpenSM (tests/fixtures/parse/infiniband/),
against hand-checked expectations; anything the templates do not know is an error, not a raw string."""

from __future__ import annotations

import json

import pytest

from tests.support.paths import ROOT
from xoff.platforms.infiniband import parse
from xoff.platforms.infiniband.parse import IbParseError

FIXTURES = ROOT / "tests" / "fixtures" / "parse" / "infiniband"


def raw(command: str, case: str) -> str:
    return (FIXTURES / command / f"{case}.raw").read_text(encoding="utf-8")


def expected(command: str, case: str) -> dict[str, object]:
    return dict(json.loads((FIXTURES / command / f"{case}.json").read_text(encoding="utf-8")))


def test_every_fixture_has_a_parser_that_reads_it() -> None:
    readers = {
        "ibnetdiscover": parse.ibnetdiscover,
        "dump_fts": parse.dump_fts,
        "ibroute": lambda t: parse.dump_fts(t, "ibroute"),
        "smpquery_sl2vl": parse.smpquery_sl2vl,
        "smpquery_vlarb": parse.smpquery_vlarb,
        "smpquery_pkeys": parse.smpquery_pkeys,
        "saquery_pkeytablerecord": parse.saquery_pkey_records,
        "iblinkinfo": parse.iblinkinfo,
        "opensm_log": parse.opensm_log,
    }
    cases = sorted(FIXTURES.glob("*/*.raw"))
    assert {c.parent.name for c in cases} == set(readers)
    for case in cases:
        assert readers[case.parent.name](case.read_text(encoding="utf-8"))


def test_ibnetdiscover_fat_tree() -> None:
    nodes = parse.ibnetdiscover(raw("ibnetdiscover", "fattree"))
    switches = {n.description: n for n in nodes.values() if n.kind == "switch"}
    cas = {n.description: n for n in nodes.values() if n.kind == "ca"}
    assert sorted(switches) == ["ibleaf1", "ibleaf2", "ibleaf3", "ibspine1", "ibspine2"]
    assert sorted(cas) == ["gpu1 mlx5_0", "gpu2 mlx5_0", "gpu3 mlx5_0", "gpu4 mlx5_0", "gpu5 mlx5_0", "sm01 mlx5_0"]
    leaf3 = switches["ibleaf3"]
    assert (leaf3.guid, leaf3.lid) == ("0x0002c90300000003", 5)
    assert sorted(leaf3.ports) == [1, 5, 6, 7, 8]
    p5 = leaf3.ports[5]
    assert (p5.peer and p5.peer.guid, p5.peer and p5.peer.port, p5.width, p5.speed) == (
        "0x0002c90300000004",
        5,
        "4X",
        "HDR",
    )
    sm = cas["sm01 mlx5_0"].ports[1]  # [1](2c90400000001) "S-0002c90300000001"[4] # lid 1 lmc 0 ...
    assert (sm.guid, sm.lid, sm.peer and sm.peer.guid, sm.peer and sm.peer.port) == (
        "0x0002c90400000001", 1, "0x0002c90300000001", 4,
    )  # fmt: skip


def test_dump_fts_and_ibroute() -> None:
    fts = parse.dump_fts(raw("dump_fts", "fattree"))
    assert len(fts) == 5
    assert fts["0x0002c90300000003"][0x0B] == 1  # ibleaf3: gpu5 (LID 11) on port 1
    assert fts["0x0002c90300000003"][0x05] == 0  # itself
    assert 7 not in fts["0x0002c90300000005"]  # ftree left spine1's LID out of spine2's table
    got = parse.dump_fts(raw("ibroute", "spine1"), "ibroute")
    assert {g: {str(k): v for k, v in t.items()} for g, t in got.items()} == expected("ibroute", "spine1")


@pytest.mark.parametrize("case", ["switch_out5", "ca"])
def test_smpquery_sl2vl(case: str) -> None:
    lid, tables = parse.smpquery_sl2vl(raw("smpquery_sl2vl", case))
    assert {"lid": lid, "tables": [t.model_dump() for t in tables]} == expected("smpquery_sl2vl", case)


def test_smpquery_vlarb() -> None:
    lid, port, arb = parse.smpquery_vlarb(raw("smpquery_vlarb", "switch_port5"))
    want = expected("smpquery_vlarb", "switch_port5")
    assert (lid, port, arb.low_cap, arb.high_cap) == (want["lid"], want["port"], want["low_cap"], want["high_cap"])
    assert [list(e) for e in arb.low] == want["low"] and [list(e) for e in arb.high] == want["high"]
    assert (arb.weight(0), arb.weight(1), arb.weight(2)) == (192, 64, 0)


@pytest.mark.parametrize("case", ["ca_tenant", "sm_host"])
def test_smpquery_pkeys(case: str) -> None:
    assert {"pkeys": parse.smpquery_pkeys(raw("smpquery_pkeys", case))} == expected("smpquery_pkeys", case)


@pytest.mark.parametrize("case", ["switch_port_to_host", "switch_port_to_switch", "ca_port", "fabric_ibsim"])
def test_saquery_pkey_table_records(case: str) -> None:
    """Each record keeps its LID, port and block and all 32 entries of the block (zeros included)."""
    records = parse.saquery_pkey_records(raw("saquery_pkeytablerecord", case))
    assert all(len(r.pkeys) == parse.PKEYS_PER_BLOCK for r in records)
    got = [[r.lid, r.port, r.block, [f"{k:#06x}" for k in r.pkeys if k]] for r in records]
    assert {"records": got} == expected("saquery_pkeytablerecord", case)


def test_saquery_block_of_fewer_than_32_pkeys_is_an_error() -> None:
    lines = raw("saquery_pkeytablerecord", "ca_port").splitlines()
    del lines[6]  # the second line of 8 PKeys of block 0
    with pytest.raises(IbParseError, match="LID 5 port 1 block 0: 24 PKeys, not 32"):
        parse.saquery_pkey_records("\n".join(lines) + "\n")


def test_iblinkinfo_states_widths_speeds() -> None:
    states = parse.iblinkinfo(raw("iblinkinfo", "fattree"))
    leaf3 = {s.port: s for s in states if s.node == "0x0002c90300000003"}
    assert sorted(leaf3) == list(range(1, 9))
    assert (leaf3[1].state, leaf3[1].phys_state, leaf3[1].width, leaf3[1].speed) == ("Active", "LinkUp", "4X", "HDR")
    assert (leaf3[2].state, leaf3[2].phys_state, leaf3[2].width, leaf3[2].remote_lid) == ("Down", "Polling", None, None)
    gpu5 = [s for s in states if s.node_kind == "ca" and s.description == "gpu5 mlx5_0"]
    assert [(s.node, s.lid, s.port, s.remote_lid, s.remote_port) for s in gpu5] == [("0x0002c90400000006", 11, 1, 5, 1)]


def test_opensm_log() -> None:
    configured, failed = parse.opensm_log(raw("opensm_log", "ftree"))
    assert {"configured": configured, "failed": failed} == expected("opensm_log", "ftree")


@pytest.mark.parametrize(
    ("reader", "command", "case", "bad"),
    [
        (
            parse.ibnetdiscover,
            "ibnetdiscover",
            "fattree",
            '[5]\t"S-0002c90300000004"[5]\t\t# "ibspine1" lid seven 4xHDR',
        ),
        (parse.dump_fts, "dump_fts", "fattree", "0x0001 five : (Channel Adapter portguid 0x1: 'x')"),
        (parse.smpquery_sl2vl, "smpquery_sl2vl", "ca", "ports: in  0, out  0: | 0| 1| 0|"),
        (parse.smpquery_vlarb, "smpquery_vlarb", "switch_port5", "WEIGHT: |0xC0|zz|"),
        (parse.smpquery_pkeys, "smpquery_pkeys", "ca_tenant", "  64: 0x7fff"),
        (parse.saquery_pkey_records, "saquery_pkeytablerecord", "ca_port", "\t\t0x7fff 0x8001 0x0000"),
        (parse.saquery_pkey_records, "saquery_pkeytablerecord", "ca_port", "\t\tGID........fe80::1"),
        (
            parse.iblinkinfo,
            "iblinkinfo",
            "fattree",
            "           5    9[  ] ==( 4X  53.125 Gbps Active/ LinkUp)==> garbage",
        ),
    ],
)
def test_an_unknown_line_is_an_error(reader: object, command: str, case: str, bad: str) -> None:
    text = raw(command, case)
    lines = text.splitlines()
    lines.insert(len(lines) // 2, bad)
    with pytest.raises(IbParseError):
        reader("\n".join(lines) + "\n")  # type: ignore[operator]


def test_pkey_table_shorter_than_its_capacity_is_an_error() -> None:
    text = raw("smpquery_pkeys", "ca_tenant").splitlines()
    with pytest.raises(IbParseError, match="capacity"):
        parse.smpquery_pkeys("\n".join(text[:3] + text[-1:]) + "\n")


def test_unknown_lane_speed_is_an_error() -> None:
    with pytest.raises(IbParseError, match="lane speed"):
        parse.lane_generation("7.5")
