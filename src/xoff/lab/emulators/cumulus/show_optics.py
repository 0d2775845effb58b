"""``nv show interface <swp> link phy-detail`` and ``nv show interface <swp> transceiver``: a port's PHY health
(FEC histogram, effective errors, raw BER) and its module, in NVUE's text (no public ``-o json`` capture of either
was found: the emulator prints the text whatever ``-o`` says); ``nv show platform transceiver detail``: every
front-panel port's module at once, as the object NVIDIA's guide prints for one (``nv show platform transceiver
<swp>``: inventory, ``temperature`` and ``voltage`` with thresholds, ``channel-<n>`` with ``rx-power``,
``tx-power``, ``tx-bias-current``), keyed by port (``-o json``; otherwise NVUE's ``name : value`` blocks).

From the state dir's ``counters.json`` (the same hook file as ``show_counters``), in NVUE's terms::

    {"fec":    {"swp1": {"rs-num-corr-err-bin1": n, "effective-errors": n, "raw-ber": x}},
     "optics": {"swp1": {"rx-power": [dBm per lane, lane 1 first], "temperature": C}}}

each value plain or in the moving form (``moving``; resolved before this module sees it). The lab's links are veth
pairs: no codeword is ever received, so a port the file does not name shows zero counts and NVUE's ``15E-255``
(no BER measured); its "cable" is a copper cable without DOM (inventory only, as NVIDIA's guide shows such a
module). A seeded port holds an optical module with DOM. Formats: tests/fixtures/real/cumulus/README.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.cumulus.moving import read_counters
from xoff.lab.emulators.cumulus.show import ShowError, interfaces
from xoff.lab.emulators.cumulus.show_counters import FILE, PORT
from xoff.lab.emulators.cumulus.tree import Tree

Json = dict[str, Any]
TABLES = {"fec": ("rs-num-corr-err-bin1", "effective-errors", "raw-ber"), "optics": ("rx-power", "temperature")}
NONE_MEASURED = "15E-255"
LANES = 8


def check(data: Json, path: Path) -> None:
    """The ``fec`` and ``optics`` tables' shape, or ValueError (a wrong hook file is a broken test)."""
    for table, fields in TABLES.items():
        for port, row in data.get(table, {}).items():
            rx = row.get("rx-power", [])
            numbers = [v for k, v in row.items() if k != "rx-power"] + (rx if isinstance(rx, list) else [None])
            if not PORT.match(port) or set(row) - set(fields) or not all(type(v) in (int, float) for v in numbers):
                raise ValueError(f"{path}: {table}.{port}: bad {row} (allowed: {fields})")


def _ber(value: float) -> str:
    """A BER as NVUE prints one: an integer mantissa of at most two digits and an exponent (``2E-7``, ``15E-255``)."""
    mantissa, exponent = f"{value:.1e}".split("e")
    digits, power = mantissa.replace(".", ""), int(exponent) - 1
    if digits.endswith("0"):
        digits, power = digits[:-1], power + 1
    return f"{digits}E{power}"


def _phy_detail(row: Json) -> str:
    bins = [0] * 16
    bins[1] = int(row.get("rs-num-corr-err-bin1", 0))
    rows = [("time-since-last-clear-min", "0"), ("phy-received-bits", "0"), ("symbol-errors", "0")]
    rows.append(("effective-errors", str(int(row.get("effective-errors", 0)))))
    rows += [(f"phy-raw-errors-lane{i}", "0") for i in range(LANES)]
    raw = _ber(float(row["raw-ber"])) if "raw-ber" in row else NONE_MEASURED
    rows += [("raw-ber", raw), ("symbol-ber", NONE_MEASURED), ("effective-ber", NONE_MEASURED)]
    rows += [(f"raw-ber-lane{i}", "0") for i in range(LANES)]
    rows += [(f"rs-num-corr-err-bin{i}", str(v)) for i, v in enumerate(bins)]
    head = " " * 27 + "operational\n" + "-" * 25 + "  " + "-" * 11 + "\n"
    return head + "".join(f"{k:<27}{v}\n" for k, v in rows)


_COPPER = [
    ("cable-type", "Copper cable"),
    ("cable-length", "1m"),
    ("diagnostics-status", "No Diagnostic Data Available. Module is not DDMI capable"),
    ("status", "plugged_enabled"),
    ("error-status", "N/A"),
    ("identifier", "QSFP28"),
]
_OPTICAL = [
    ("cable-type", "Optical module"),
    ("diagnostics-status", "Diagnostic Data Available"),
    ("status", "plugged_enabled"),
    ("error-status", "N/A"),
    ("identifier", "OSFP 8X Pluggable Transceiver"),
]


def _transceiver(row: Json) -> str:
    if not row:
        fields = _COPPER
    else:
        fields = list(_OPTICAL)
        if "temperature" in row:
            c = float(row["temperature"])
            fields.append(("temperature", f"{c:.2f} degrees C / {c * 9 / 5 + 32:.2f} degrees F"))
        for lane, dbm in enumerate(row.get("rx-power", []), 1):
            fields.append((f"ch-{lane}-rx-power", f"{10 ** (float(dbm) / 10):.4f} mW / {float(dbm):.2f} dBm"))
    return "".join(f"{k:<23}: {v}\n" for k, v in fields)


_THRESHOLDS = {  # a 400G DR4-class module's alarm and warning thresholds (high alarm, low alarm, high warn, low warn)
    "temperature": ("80.00 C", "-10.00 C", "70.00 C", "0.00 C"),
    "voltage": ("3.5000 V", "3.1000 V", "3.4650 V", "3.1350 V"),
    "rx-power": ("5.40 dBm", "-13.31 dBm", "2.40 dBm", "-10.30 dBm"),
    "tx-power": ("5.40 dBm", "-11.40 dBm", "2.40 dBm", "-8.40 dBm"),
    "tx-bias-current": ("8.500 mA", "5.492 mA", "8.000 mA", "6.000 mA"),
}
_LIMITS = ("high-alarm-threshold", "low-alarm-threshold", "high-warning-threshold", "low-warning-threshold")
TX_DBM, BIAS_MA, VOLTS = -0.46, 6.75, 3.2862  # what the lab's modules send and draw: constant


def _measured(kind: str, key: str, value: str) -> Json:
    return {key: value, **dict(zip(_LIMITS, _THRESHOLDS[kind], strict=True)), "alarm": "Off"}


def _power(dbm: float) -> str:
    return f"{10 ** (dbm / 10):.4f} mW / {dbm:.2f} dBm"


def _module(row: Json) -> Json:
    """One port's entry of ``nv show platform transceiver detail``."""
    if not row:
        return dict(_COPPER)
    out: Json = dict(_OPTICAL)
    if "temperature" in row:
        out["temperature"] = _measured("temperature", "temperature", f"{float(row['temperature']):.2f} C")
    out["voltage"] = _measured("voltage", "voltage", f"{VOLTS:.4f} V")
    channels = {}
    for lane, dbm in enumerate(row.get("rx-power", []), 1):
        channels[f"channel-{lane}"] = {
            "rx-power": _measured("rx-power", "power", _power(float(dbm))),
            "tx-power": _measured("tx-power", "power", _power(TX_DBM)),
            "tx-bias-current": _measured("tx-bias-current", "current", f"{BIAS_MA:.3f} mA"),
        }
    if channels:
        out["channel"] = channels
    return out


def _blocks(value: Json, depth: int = 0) -> list[str]:
    """NVUE's ``name : value`` form of a nested object (sub-objects under ``name:``, indented two more)."""
    lines = []
    width = max((len(k) for k, v in value.items() if not isinstance(v, dict)), default=0)
    for key, sub in value.items():
        pad = "  " * depth
        lines += (
            [f"{pad}{key}:", *_blocks(sub, depth + 1)] if isinstance(sub, dict) else [f"{pad}{key:<{width}} : {sub}"]
        )
    return lines


def platform_detail(ctx: EmulatorContext, applied: Tree, output: str) -> str:
    """``nv show platform transceiver detail``: every swp port's module (a copper cable unless the hook file
    seeds an optic), ``-o json`` as JSON, any other view as NVUE's blocks."""
    data = read_counters(ctx.state_dir / FILE)
    check(data, ctx.state_dir / FILE)
    optics = data.get("optics", {})
    ports = sorted(
        (p for p in interfaces(ctx, applied) if PORT.match(p)), key=lambda p: [int(n) for n in re.findall(r"\d+", p)]
    )
    value = {p: _module(optics.get(p, {})) for p in ports}
    if output == "json":
        return json.dumps(value, indent=2) + "\n"
    return "".join(f"{line}\n" for line in _blocks(value))


def lookup(ctx: EmulatorContext, applied: Tree, path: tuple[str, ...]) -> str | None:
    """The text for a phy-detail or transceiver path, None for any other path; ShowError as NVUE."""
    if len(path) < 3 or path[0] != "interface" or path[2:] not in (("link", "phy-detail"), ("transceiver",)):
        return None
    port = path[1]
    if port not in interfaces(ctx, applied):
        raise ShowError(f"Error: The requested item does not exist: interface {port}")
    data = read_counters(ctx.state_dir / FILE)
    check(data, ctx.state_dir / FILE)
    if path[2] == "link":
        return _phy_detail(data.get("fec", {}).get(port, {}))
    return _transceiver(data.get("optics", {}).get(port, {}))
