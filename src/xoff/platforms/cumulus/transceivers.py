"""Every port's module DOM in one NVUE command (Cumulus Linux 5.11 and later), for ``xoff watch``:
``nv show platform transceiver detail -o json``, into ``PortOptic`` per port.

NVIDIA's guide: "a detailed view of module information for all ports" (``nv show platform transceiver detail``,
introduced in 5.11.0, as is the per-port ``nv show interface <swp> transceiver`` it replaces here: one command a
round instead of one per port). Its JSON maps each front-panel port to the object ``nv show platform transceiver
<swp>`` prints: inventory strings (``cable-type``, ``identifier``, ``vendor-pn``...), ``temperature`` with its
``temperature`` (``42.56 C``) and thresholds, ``voltage``, and ``channel`` with ``channel-<n>`` holding
``rx-power`` / ``tx-power`` (``power``: ``0.8625 mW / -0.64 dBm``; ``-inf dBm``: no light) and
``tx-bias-current`` (``current``). Read: each lane's receive power and the temperature. ``voltage``, transmit
power and bias current are counted in ``unmodelled``; inventory is not a counter and is not counted. A module
without DOM (a copper cable: ``No Diagnostic Data Available``) or no module has neither: that port is left out
(not observed). Sources: tests/fixtures/real/cumulus/README.md.
"""

from __future__ import annotations

import json
import re
from typing import Any

from xoff.contracts.collect import Command
from xoff.watch.readings import PortOptic

TRANSCEIVERS = Command("nv show platform transceiver detail -o json")
NAME = "nv show platform transceiver detail"  # the unmodelled counts name the command
_CHANNEL = re.compile(r"^channel-(\d+)$")
_DBM = re.compile(r"/\s*(?P<dbm>-?(?:inf|\d+(?:\.\d+)?))\s*dBm$")
_CELSIUS = re.compile(r"^(?P<c>-?\d+(?:\.\d+)?)\s*C$")
MONITORED = ("tx-power", "tx-bias-current")  # per channel, beside rx-power


class TransceiverParseError(ValueError):
    """Output of ``nv show platform transceiver detail -o json`` this module cannot read (one line)."""


def _tally(unmodelled: dict[str, int] | None, what: str) -> None:
    if unmodelled is not None:
        key = f"{NAME}: {what}"
        unmodelled[key] = unmodelled.get(key, 0) + 1


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TransceiverParseError(f"{where}: an object was expected, not {type(value).__name__}")
    return value


def _temperature(port: str, value: Any) -> float:
    text = _object(value, f"{port}.temperature").get("temperature")
    found = _CELSIUS.match(text.strip()) if isinstance(text, str) else None
    if found is None:
        raise TransceiverParseError(f"{port}.temperature.temperature {text!r} is not 'N C'")
    return float(found["c"])


def _rx_power(port: str, channel: str, value: Any) -> float:
    text = _object(value, f"{port}.channel.{channel}.rx-power").get("power")
    found = _DBM.search(text.strip()) if isinstance(text, str) else None
    if found is None:
        raise TransceiverParseError(f"{port}.channel.{channel}.rx-power.power {text!r} is not 'mW / dBm'")
    return float(found["dbm"])  # "-inf": no light on the lane


def _port(port: str, body: dict[str, Any], unmodelled: dict[str, int] | None) -> PortOptic | None:
    temperature = _temperature(port, body["temperature"]) if "temperature" in body else None
    if "voltage" in body:
        _tally(unmodelled, "voltage")
    rx: dict[int, float | None] = {}
    for channel, lanes in _object(body.get("channel", {}), f"{port}.channel").items():
        lane = _CHANNEL.match(channel)
        if lane is None:
            raise TransceiverParseError(f"{port}.channel: {channel!r} is not channel-<n>")
        fields = _object(lanes, f"{port}.channel.{channel}")
        if "rx-power" in fields:
            rx[int(lane[1])] = _rx_power(port, channel, fields["rx-power"])
        for name in MONITORED:
            if name in fields:
                _tally(unmodelled, f"channel-n {name}")
    if not rx and temperature is None:
        return None  # no DOM: nothing measured
    return PortOptic(dict(sorted(rx.items())), temperature)


def parse_transceivers(text: str, unmodelled: dict[str, int] | None = None) -> dict[str, PortOptic]:
    """Each port whose module reports DOM: receive power per lane and temperature (ports without DOM left out)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TransceiverParseError(f"not JSON: {exc}") from None
    out: dict[str, PortOptic] = {}
    for port, body in _object(data, "the output").items():
        optic = _port(port, _object(body, port), unmodelled)
        if optic is not None:
            out[port] = optic
    return out
