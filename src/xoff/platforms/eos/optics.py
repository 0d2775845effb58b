"""EOS's FEC, pre-FEC BER and optics for ``xoff watch`` (eAPI ``| json``), into ``PortFec`` and ``PortOptic``.

- ``show interfaces phy detail``: ``interfacePhyStatuses.<port>.phyStatuses`` is a list, one entry per PHY chip
  on the port's path (the switch ASIC's SerDes first, then gearboxes/retimers, system and line side). Read from the
  first entry that carries ``fec``: ``fec.correctedCodewords.value``, ``fec.uncorrectedCodewords.value`` and
  ``preFecBer.value``. A key the entry lacks is None (not observed); further PHYs with FEC counters, and the other
  ``fec`` fields (``hiSer``, ``laneMap``, ...), are counted in ``unmodelled``. A port with no PHY carrying ``fec``
  is left out (nothing read).
- ``show interfaces transceiver dom thresholds``: ``interfaces.<port>.parameters.<name>`` with ``unit``,
  ``channels`` (lane number -> value; ``"-"`` for a module-wide value) and ``threshold``. Read: ``rxPower``
  (dBm, per lane) and ``temperature`` (C, channel ``"-"``); other parameters (``txPower``, ``txBias``,
  ``voltage``, ...) are counted in ``unmodelled``. A port without ``parameters`` (no module, or no DOM) is left out.

Keys and shapes: ANTA's ``VerifyInterfacesBER`` and ``VerifyInterfacesOpticsReceivePower`` /
``VerifyInterfacesOpticsTemperature`` unit tests (tests/fixtures/real/eos/README.md).
"""

from __future__ import annotations

from typing import Any

from xoff.collect.json_shape import ShapeError as OpticsParseError
from xoff.collect.json_shape import key as _key
from xoff.collect.json_shape import obj as _obj
from xoff.contracts.collect import Command
from xoff.platforms.eos.counters import load_output
from xoff.watch.readings import PortFec, PortOptic

PHY = Command("show interfaces phy detail | json")
DOM = Command("show interfaces transceiver dom thresholds | json")
FEC_READ = ("correctedCodewords", "uncorrectedCodewords")
MODULE_WIDE = "-"

__all__ = ["DOM", "PHY", "OpticsParseError", "parse_dom", "parse_phy"]


def _count(node: dict[str, Any], name: str, where: str) -> int | None:
    if name not in node:
        return None
    value = _key(_obj(node[name], f"{where}.{name}"), "value", f"{where}.{name}")
    if type(value) is not int or value < 0:
        raise OpticsParseError(f"{where}.{name}.value: expected a count, got {value!r}")
    return value


def _number(value: Any, where: str) -> float:
    if type(value) not in (int, float):
        raise OpticsParseError(f"{where}: expected a number, got {value!r}")
    return float(value)


def _tally(unmodelled: dict[str, int] | None, command: Command, name: str) -> None:
    if unmodelled is not None:
        key = f"{command.text}: {name}"
        unmodelled[key] = unmodelled.get(key, 0) + 1


def _phy_fec(port: str, status: dict[str, Any], unmodelled: dict[str, int] | None) -> PortFec:
    where = f"interfacePhyStatuses.{port}"
    fec = _obj(status["fec"], f"{where}.fec")
    for name in fec:
        if name not in FEC_READ:
            _tally(unmodelled, PHY, f"fec.{name}")
    ber = None
    if "preFecBer" in status:
        ber = _number(_key(_obj(status["preFecBer"], f"{where}.preFecBer"), "value", where), f"{where}.preFecBer")
    return PortFec(_count(fec, FEC_READ[0], f"{where}.fec"), _count(fec, FEC_READ[1], f"{where}.fec"), ber)


def parse_phy(text: str, unmodelled: dict[str, int] | None = None) -> dict[str, PortFec]:
    """Port -> FEC codewords and pre-FEC BER of the first PHY on its path that counts FEC."""
    out: dict[str, PortFec] = {}
    for port, detail in load_output(text, "interfacePhyStatuses").items():
        statuses = _key(detail, "phyStatuses", f"interfacePhyStatuses.{port}")
        if not isinstance(statuses, list):
            raise OpticsParseError(f"interfacePhyStatuses.{port}.phyStatuses: expected a list")
        with_fec = [_obj(s, f"interfacePhyStatuses.{port}.phyStatuses") for s in statuses]
        with_fec = [s for s in with_fec if "fec" in s]
        if not with_fec:
            continue
        out[port] = _phy_fec(port, with_fec[0], unmodelled)
        for _ in with_fec[1:]:
            _tally(unmodelled, PHY, "fec of a further PHY on the path")
    return out


def _lanes(port: str, channels: dict[str, Any]) -> dict[int, float | None]:
    lanes: dict[int, float | None] = {}
    for lane, value in channels.items():
        if not lane.isdigit():
            raise OpticsParseError(f"interfaces.{port}.parameters.rxPower.channels: {lane!r} is not a lane")
        lanes[int(lane)] = _number(value, f"interfaces.{port}.rxPower.{lane}")
    return dict(sorted(lanes.items()))


def _optic(port: str, parameters: dict[str, Any], unmodelled: dict[str, int] | None) -> PortOptic:
    rx: dict[int, float | None] = {}
    temperature = None
    for name, param in parameters.items():
        where = f"interfaces.{port}.parameters.{name}"
        channels = _obj(_key(param, "channels", where), f"{where}.channels")
        if name == "rxPower":
            rx = _lanes(port, channels)
        elif name == "temperature":
            value = channels.get(MODULE_WIDE)
            temperature = None if value is None else _number(value, f"{where}.channels.-")
        else:
            _tally(unmodelled, DOM, name)
    return PortOptic(rx, temperature)


def parse_dom(text: str, unmodelled: dict[str, int] | None = None) -> dict[str, PortOptic]:
    """Port -> receive power per lane and module temperature, for every port whose module reports DOM."""
    out: dict[str, PortOptic] = {}
    for port, detail in load_output(text, "interfaces").items():
        parameters = _obj(detail, f"interfaces.{port}").get("parameters")
        if parameters is None:
            continue
        optic = _optic(port, _obj(parameters, f"interfaces.{port}.parameters"), unmodelled)
        if optic.rx_power_dbm or optic.temperature_c is not None:
            out[port] = optic
    return out
