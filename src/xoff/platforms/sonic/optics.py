"""``show interfaces transceiver eeprom --dom`` (sonic-utilities ``sfpshow eeprom --dom``): per port the optic's
receive power per lane and its temperature, into ``PortOptic``.

Each port is a block: ``<port>: SFP EEPROM detected`` (or ``Not detected``: no module, nothing read), its
inventory fields indented 8 spaces, then the DOM sections ``ChannelMonitorValues:``, ``ChannelThresholdValues:``,
``ModuleMonitorValues:``, ``ModuleThresholdValues:`` with their fields indented 16. Read: ``RX<n>Power``
(``0.3802dBm``; ``-infdBm`` is a lane with no light, kept as -inf) and ``Temperature`` (``30.9258C``). sfpshow
leaves out a value the module has not (N/A), so a lane it does not print is not there; ``N/A`` or ``Unknown`` as
a value is None. Other monitor and threshold fields are counted in ``unmodelled`` by name (lane digits as ``n``:
``TXnBias``); inventory fields (vendor, part number, ...) are not counters and are not counted. Formats and
sources: tests/fixtures/real/sonic/README.md.
"""

from __future__ import annotations

import re

from xoff.contracts.collect import Command
from xoff.watch.readings import PortOptic

TRANSCEIVER_DOM = Command("show interfaces transceiver eeprom --dom")
_PORT = re.compile(r"^(?P<port>\S+): SFP EEPROM (?P<state>detected|Not detected)\s*$")
_SECTION = re.compile(r"^ {8}(?P<name>\w+Values):\s*$")
_FIELD = re.compile(r"^ {16}(?P<key>\S+?)\s*: (?P<value>.*?)\s*$")
_RX = re.compile(r"^RX(\d+)Power$")
_DIGITS = re.compile(r"\d+")
MISSING = ("N/A", "Unknown")


class OpticParseError(ValueError):
    """Transceiver output this module cannot read (one line)."""


def _value(text: str, unit: str, where: str) -> float | None:
    if text in MISSING:
        return None
    number = text.removesuffix(unit).strip()
    try:
        return float(number)  # "-inf": no light on the lane
    except ValueError:
        raise OpticParseError(f"{TRANSCEIVER_DOM.text!r}: {where}: {text!r} is not a value in {unit}") from None


class _Port:
    def __init__(self) -> None:
        self.rx: dict[int, float | None] = {}
        self.temperature: float | None = None


def _field(port: str, into: _Port, section: str, key: str, value: str, unmodelled: dict[str, int] | None) -> None:
    rx = _RX.match(key)
    if section == "ChannelMonitorValues" and rx is not None:
        into.rx[int(rx[1])] = _value(value, "dBm", f"{port} {key}")
    elif section == "ModuleMonitorValues" and key == "Temperature":
        into.temperature = _value(value, "C", f"{port} {key}")
    elif unmodelled is not None:
        name = f"{TRANSCEIVER_DOM.text}: {_DIGITS.sub('n', key)}"
        unmodelled[name] = unmodelled.get(name, 0) + 1


def parse_transceiver_dom(text: str, unmodelled: dict[str, int] | None = None) -> dict[str, PortOptic]:
    """Port -> receive power per lane and temperature, for every port whose module was detected."""
    ports: dict[str, _Port] = {}
    name, section = "", None
    for number, line in enumerate(text.splitlines(), 1):
        head = _PORT.match(line)
        if head is not None:
            name, section = head["port"], None
            if head["state"] == "detected":
                ports[name] = _Port()
            continue
        if not line.strip():
            continue
        if name not in ports:
            raise OpticParseError(f"{TRANSCEIVER_DOM.text!r}: line {number} outside a detected port: {line[:80]!r}")
        found = _SECTION.match(line)
        field = _FIELD.match(line)
        if found is not None:
            section = found["name"]
        elif section is not None and field is not None:
            _field(name, ports[name], section, field["key"], field["value"], unmodelled)
        elif not line.startswith(" " * 16):
            section = None  # an inventory field (8 spaces): not a counter
    return {
        p: PortOptic(dict(sorted(v.rx.items())), v.temperature)
        for p, v in ports.items()
        if v.rx or v.temperature is not None
    }
