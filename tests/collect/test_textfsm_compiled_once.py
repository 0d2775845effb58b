"""``collect.textfsm.parse_text`` compiles each template once and parses with it directly; clitable's
``ParseCmd`` (what it used before) is the reference: on every real fixture of every indexed command the rows
are the same, in the same order, and where clitable raises, parse_text raises."""

from __future__ import annotations

from pathlib import Path

import pytest
from textfsm import clitable  # type: ignore[import-untyped]
from textfsm.parser import Error as TextFSMError  # type: ignore[import-untyped]

from xoff.collect.textfsm import TextParseError, parse_text

SRC = Path(__file__).resolve().parents[2] / "src" / "xoff" / "platforms"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"

# (platform, command as collected, fixture directory)
CASES = [
    ("sonic", "show pfc counters", "sonic/show_pfc_counters"),
    ("sonic", "show queue counters", "sonic/show_queue_counters"),
    ("sonic", "show pfcwd stats", "sonic/show_pfcwd_stats"),
    ("linux", "lspci -vvv", "linux/lspci_-vvv"),
    ("infiniband", "ibnetdiscover", "infiniband/ibnetdiscover"),
    ("infiniband", "dump_fts", "infiniband/dump_fts"),
    ("infiniband", "iblinkinfo", "infiniband/iblinkinfo"),
    ("infiniband", "ibstat", "infiniband/ibstat"),
    ("infiniband", "sminfo", "infiniband/sminfo"),
    ("infiniband", "opensm log", "infiniband/opensm_log"),
    ("infiniband", "smpquery sl2vl", "infiniband/smpquery_sl2vl_LID_PORT"),
    ("infiniband", "smpquery vlarb", "infiniband/smpquery_vlarb_LID_PORT"),
    ("infiniband", "smpquery pkeys", "infiniband/smpquery_pkeys_LID_PORT"),
    ("infiniband", "saquery PKeyTableRecord", "infiniband/saquery_--smkey_KEY_PKeyTableRecord_LID_PORT"),
]


def _clitable(platform: str, command: str, text: str) -> list[dict[str, object]]:
    """What parse_text returned before: a fresh CliTable's ParseCmd."""
    table = clitable.CliTable("index", str(SRC / platform / "textfsm"))
    table.ParseCmd(text, attributes={"Command": command, "Platform": platform})
    header = [str(h).lower() for h in table.header]
    return [dict(zip(header, list(row), strict=True)) for row in table]


def _outcome(fn: object, *args: str) -> object:
    try:
        return fn(*args)  # type: ignore[operator]
    except (TextFSMError, TextParseError):
        return "raises"


def _samples() -> list[tuple[str, str, Path]]:
    out = [(p, c, f) for p, c, d in CASES for f in sorted((REAL / d).glob("*.txt"))]
    assert len(out) >= 3 * len(CASES)  # every case has real outputs to compare on
    return out


@pytest.mark.parametrize(("platform", "command", "fixture"), _samples(), ids=lambda v: getattr(v, "name", v))
def test_the_rows_are_clitables(platform: str, command: str, fixture: Path) -> None:
    text = fixture.read_text(encoding="utf-8")
    want = _outcome(_clitable, platform, command, text)
    got = _outcome(parse_text, SRC / platform / "textfsm", platform, command, text)
    assert got == want


def test_a_parse_leaves_nothing_for_the_next() -> None:
    """The compiled template is reused: a parse that an Error rule stopped half way, then a good one, then the
    first good one again give the rows each gives alone."""
    where = SRC / "sonic" / "textfsm"
    first, second = sorted((REAL / "sonic" / "show_queue_counters").glob("*.txt"))[:2]
    alone = [parse_text(where, "sonic", "show queue counters", f.read_text(encoding="utf-8")) for f in (first, second)]
    assert alone[0] and alone[1] and alone[0] != alone[1]
    with pytest.raises(TextParseError):
        parse_text(where, "sonic", "show queue counters", "Port  TxQ  Counter/pkts\nnot a counters line\n")
    again = [parse_text(where, "sonic", "show queue counters", f.read_text(encoding="utf-8")) for f in (second, first)]
    assert again == alone[::-1]


def test_a_command_with_no_template_is_said() -> None:
    with pytest.raises(TextParseError, match="no template for 'show version' on sonic"):
        parse_text(SRC / "sonic" / "textfsm", "sonic", "show version", "")
