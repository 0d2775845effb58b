"""FEC, pre-FEC BER and transceiver DOM: ``show interfaces phy detail`` and ``show interfaces transceiver dom
thresholds`` (``| json``), from the state dir's ``counters.json`` (the same hook file as ``show_counters``)::

    {"fec":    {"Ethernet1/1": {"correctedCodewords": n, "uncorrectedCodewords": n, "preFecBer": x}},
     "optics": {"Ethernet1/1": {"rxPower": [dBm per lane, lane 1 first], "temperature": C}}}

each value plain or in the running-counter / gauge form (``moving``; resolved before this module sees it).

The lab's links are veth pairs: no PHY counts FEC errors and no port holds a module. So a port the file does not
name shows one PHY entry with zero codewords and no ``preFecBer`` (nothing measured), and ``dom thresholds``
lists it with ``displayName`` only, as EOS lists a port without a DOM-capable module. The ``| json`` keys are
EOS's as ANTA's ``VerifyInterfacesBER`` and ``VerifyInterfacesOptics*`` unit tests show them
(tests/fixtures/real/eos/README.md). The TEXT forms are reconstructed and UNCONFIRMED; nothing parses them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xoff.lab.emulators.eos import ifnames
from xoff.lab.emulators.eos.model import RunningConfig
from xoff.lab.emulators.eos.show_counters import Counters, ethernet_ports

Json = dict[str, Any]
Shown = tuple[str, Json]
TABLES = {"fec": ("correctedCodewords", "uncorrectedCodewords", "preFecBer"), "optics": ("rxPower", "temperature")}
CHIP = "BCM78900-TSC"  # the switch ASIC's SerDes: the first PHY on every port's path
RX_LOW_ALARM, RX_LOW_WARN = -10.4, -7.4  # a DR4/DR8 module's receive-power thresholds (dBm)
MEDIA = {4: "400GBASE-DR4", 8: "800GBASE-DR8"}  # the module by its lane count


def _number(value: Any) -> bool:
    return type(value) in (int, float)


def check(data: Json, path: Path) -> None:
    """The ``fec`` and ``optics`` tables' shape, or ValueError (a wrong hook file is a broken test)."""
    for table, fields in TABLES.items():
        for port, row in data.get(table, {}).items():
            ifnames.kind(port)
            bad = [k for k in row if k not in fields]
            rx = row.get("rxPower", [])
            if bad or not all(_number(v) for k, v in row.items() if k != "rxPower") or not isinstance(rx, list):
                raise ValueError(f"{path}: {table}.{port}: bad {bad or row} (allowed: {fields})")
            if not all(_number(v) for v in rx):
                raise ValueError(f"{path}: {table}.{port}.rxPower: a number per lane")


def _phy(row: Json) -> Json:
    status: Json = {
        "description": {"phyChipName": CHIP, "location": "line"},
        "fec": {
            k: {"value": int(row.get(k, 0)), "changes": 0 if not row.get(k) else 1, "lastChange": 0.0}
            for k in TABLES["fec"][:2]
        },
    }
    if "preFecBer" in row:
        status["preFecBer"] = {"value": float(row["preFecBer"])}
    status["phyState"] = {"value": "linkUp", "changes": 1, "lastChange": 0.0}
    return {"phyStatuses": [status], "interfaceState": {}, "transceiver": {}, "macFaults": {}}


def phy_detail(cfg: RunningConfig, counters: Counters) -> Shown:
    """``show interfaces phy detail``: per Ethernet port its PHY, FEC codewords and (where measured) pre-FEC BER."""
    fec = counters.data.get("fec", {})
    ports = {port: _phy(fec.get(port, {})) for port in ethernet_ports(cfg)}
    lines = []
    for port, detail in ports.items():
        s = detail["phyStatuses"][0]
        ber = s.get("preFecBer", {}).get("value", "-")
        corr, uncorr = (s["fec"][k]["value"] for k in TABLES["fec"][:2])
        lines.append(f"{ifnames.short(port)}\n  FEC corrected codewords   {corr}\n  FEC uncorrected codewords {uncorr}")
        lines.append(f"  Pre-FEC bit error rate    {ber}")
    return "".join(line + "\n" for line in lines), {"interfacePhyStatuses": ports}


def _dom(port: str, row: Json) -> Json:
    out: Json = {"displayName": port}
    if not row:
        return out
    parameters: Json = {}
    if "temperature" in row:
        parameters["temperature"] = {"unit": "C", "channels": {"-": float(row["temperature"])}}
    if row.get("rxPower"):
        threshold = {"lowAlarm": RX_LOW_ALARM, "lowAlarmOverridden": False}
        threshold |= {"lowWarn": RX_LOW_WARN, "lowWarnOverridden": False}
        channels = {str(i): float(v) for i, v in enumerate(row["rxPower"], 1)}
        parameters["rxPower"] = {"unit": "dBm", "channels": channels, "threshold": threshold}
    media = MEDIA.get(len(row.get("rxPower", [])), "400GBASE-DR4")
    return out | {"mediaType": media, "parameters": parameters}


def dom_thresholds(cfg: RunningConfig, counters: Counters) -> Shown:
    """``show interfaces transceiver dom thresholds``: per Ethernet port its module's DOM, or its name only."""
    optics = counters.data.get("optics", {})
    ports = {port: _dom(port, optics.get(port, {})) for port in ethernet_ports(cfg)}
    lines = []
    for port, detail in ports.items():
        for name, param in detail.get("parameters", {}).items():
            values = " ".join(f"{v:.2f}" for v in param["channels"].values())
            lines.append(f"{ifnames.short(port):<11} {name:<12} {values} {param['unit']}")
    return "".join(line + "\n" for line in lines), {"interfaces": ports}
