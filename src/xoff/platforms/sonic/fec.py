"""``show interfaces counters fec-stats`` (sonic-utilities ``portstat -f``): per port the FEC codewords corrected
and uncorrectable, and the pre-FEC BER, into ``PortFec``.

portstat prints a ``tabulate`` "simple" table whose columns grew over releases: ``IFACE STATE FEC_CORR FEC_UNCORR
FEC_SYMBOL_ERR`` first, ``FEC_PRE_BER FEC_POST_BER`` with the BER design (COUNTERS_DB RATES), then ``FEC_PRE_BER_MAX``,
``FLR(O)``, ``FLR(P) (Accuracy)`` and ``FEC_MAX_T``. A header may hold a space (``FLR(P) (Accuracy)``), so the
columns are read by the dash rule's spans, not by splitting. ``N/A`` (no value in COUNTERS_DB) is None. Columns
other than the three read are counted in ``unmodelled`` as ``show interfaces counters fec-stats: <column>``. A
line before the header (``The rates are calculated within 3 seconds period``) and the multi-ASIC ``Reminder:``
after the table are read past. Formats and sources: tests/fixtures/real/sonic/README.md.
"""

from __future__ import annotations

import re

from xoff.contracts.collect import Command
from xoff.watch.readings import PortFec

FEC_STATS = Command("show interfaces counters fec-stats")
NA = "N/A"
READ = ("IFACE", "FEC_CORR", "FEC_UNCORR", "FEC_PRE_BER")
_RULE = re.compile(r"^-+(  +-+)+\s*$")


class FecParseError(ValueError):
    """fec-stats output this module cannot read (one line)."""


def _spans(rule: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]


def _cell_count(text: str) -> int | None:
    if text == NA:
        return None
    if not text.replace(",", "").isdigit():
        raise FecParseError(f"{FEC_STATS.text!r}: {text!r} is not a count or N/A")
    return int(text.replace(",", ""))


def _cell_ber(text: str) -> float | None:
    if text == NA:
        return None
    try:
        return float(text)
    except ValueError:
        raise FecParseError(f"{FEC_STATS.text!r}: {text!r} is not a bit error rate or N/A") from None


def _table(text: str) -> tuple[list[str], list[list[str]]]:
    """The header cells and each row's cells, cut at the dash rule's column spans."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if _RULE.match(line)), None)
    if at is None or at == 0:
        raise FecParseError(f"{FEC_STATS.text!r}: no table (header and dash rule)")
    spans = _spans(lines[at])
    starts = [0] + [end for _, end in spans[:-1]]  # a cell may reach left into the gap (right-aligned)

    def cut(line: str) -> list[str]:
        return [line[s:e].strip() for s, (_, e) in zip(starts, spans, strict=True)] + [line[spans[-1][1] :].strip()]

    header = cut(lines[at - 1])
    rows: list[list[str]] = []
    for line in lines[at + 1 :]:
        if not line.strip():
            break
        row = cut(line)
        if row[-1] or not all(row[:-1]):
            raise FecParseError(f"{FEC_STATS.text!r}: a row that does not fit the table: {line.strip()[:80]!r}")
        rows.append(row[:-1])
    for line in lines[at + 1 + len(rows) :]:
        if line.strip() and not line.startswith("Reminder:"):
            raise FecParseError(f"{FEC_STATS.text!r}: unexpected line after the table: {line.strip()[:80]!r}")
    return header[:-1], rows


def parse_fec_stats(text: str, unmodelled: dict[str, int] | None = None) -> dict[str, PortFec]:
    header, rows = _table(text)
    missing = [c for c in READ[:3] if c not in header]
    if missing:
        raise FecParseError(f"{FEC_STATS.text!r}: header lacks {missing}")
    out: dict[str, PortFec] = {}
    for row in rows:
        cells = dict(zip(header, row, strict=True))
        if unmodelled is not None:
            for column in header:
                if column not in READ:
                    key = f"{FEC_STATS.text}: {column}"
                    unmodelled[key] = unmodelled.get(key, 0) + 1
        out[cells["IFACE"]] = PortFec(
            corrected=_cell_count(cells["FEC_CORR"]),
            uncorrectable=_cell_count(cells["FEC_UNCORR"]),
            pre_ber=_cell_ber(cells["FEC_PRE_BER"]) if "FEC_PRE_BER" in cells else None,
        )
    return out
