"""Cumulus' FEC and pre-FEC BER for ``xoff watch``, per port (NVUE has no all-ports form of the PHY's health), from
NVUE's text (no public ``-o json`` capture was found), into ``PortFec``. The modules' DOM is read for all ports
at once: ``transceivers``.

- ``nv show interface <swp> link phy-detail`` (Spectrum-2 and later; AmBER PHY health): an ``operational`` column
  of ``name  value`` rows under a dash rule (releases before 5.11 print a blank line between header and rule).
  Read: ``raw-ber`` (the pre-FEC BER; NVUE prints ``15E-255`` where it measured none), ``effective-errors`` (NVIDIA:
  the effective BER "represents the uncorrectable bit error rate, which is the same as uncorrected FEC errors") and
  the RS-FEC histogram ``rs-num-corr-err-bin<n>`` (codewords with n symbols corrected): corrected codewords are the
  sum of bins 1-15 (bin 0 is codewords that needed no correction); no bins printed: not observed. Other rows
  (per-lane raw errors and BER, SNR, ...) are counted in ``unmodelled`` (lane digits as ``n``).

Sources: tests/fixtures/real/cumulus/README.md.
"""

from __future__ import annotations

import re

from xoff.contracts.collect import Command
from xoff.watch.readings import PortFec

_RULE = re.compile(r"^-+ +-+\s*$")
_ROW = re.compile(r"^(?P<name>[a-z][a-z0-9-]*) +(?P<value>\S.*?)\s*$")
_BIN = re.compile(r"^rs-num-corr-err-bin(\d+)$")
_DIGITS = re.compile(r"\d+")
PHY_NAME = "nv show interface <swp> link phy-detail"  # the unmodelled counts name the command, not the port


class OpticsParseError(ValueError):
    """phy-detail output this module cannot read (one line)."""


def phy_command(port: str) -> Command:
    return Command(f"nv show interface {port} link phy-detail")


def _tally(unmodelled: dict[str, int] | None, command: str, name: str) -> None:
    if unmodelled is not None:
        key = f"{command}: {_DIGITS.sub('n', name)}"
        unmodelled[key] = unmodelled.get(key, 0) + 1


def _rows(text: str) -> dict[str, str]:
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if _RULE.match(line)), None)
    if at is None:
        raise OpticsParseError("phy-detail: no table (the operational header and its dash rule)")
    rows: dict[str, str] = {}
    for line in lines[at + 1 :]:
        if not line.strip():
            continue
        row = _ROW.match(line)
        if row is None:
            raise OpticsParseError(f"phy-detail: a row that is not 'name value': {line.strip()[:80]!r}")
        rows[row["name"]] = row["value"]
    return rows


def _count(rows: dict[str, str], name: str) -> int | None:
    value = rows.get(name)
    if value is None:
        return None
    if not value.isdigit():
        raise OpticsParseError(f"phy-detail: {name} {value!r} is not a count")
    return int(value)


def parse_phy_detail(text: str, unmodelled: dict[str, int] | None = None) -> PortFec:
    """One port's FEC codewords (corrected: RS-FEC histogram bins 1-15; uncorrected) and pre-FEC BER."""
    rows = _rows(text)
    bins: dict[int, int] = {}
    for name in rows:
        found = _BIN.match(name)
        if found is not None:
            bins[int(found[1])] = _count(rows, name) or 0
        elif name not in ("raw-ber", "effective-errors"):
            _tally(unmodelled, PHY_NAME, name)
    ber = None
    if "raw-ber" in rows:
        try:
            ber = float(rows["raw-ber"])
        except ValueError:
            raise OpticsParseError(f"phy-detail: raw-ber {rows['raw-ber']!r} is not a bit error rate") from None
    corrected = sum(v for n, v in bins.items() if n > 0) if bins else None
    return PortFec(corrected, _count(rows, "effective-errors"), ber)
