"""The ConnectX/BlueField ``ROCE_ACCL`` access register: ``mlxreg -d RDMA --reg_name ROCE_ACCL --get``.

mlxreg (NVIDIA MFT; mstflint's ``mstreg``) prints a known register as ``Sending access register...``, a blank line,
``Field Name`` padded to the longest field name plus three, `` | Data``, a line of ``=`` (that width plus 14), one
``<field> | 0x%08x`` line per leaf field in layout order, and the ``=`` line again. Which fields there are follows
the firmware's register layout: ConnectX-5/6 firmware shows the four ``roce_*`` accelerations and their
``*_field_select`` capability bits; later firmware adds ``adaptive_routing_forced_en``, ``selective_repeat_forced_en``,
``ack_dscp``, the adaptive-retransmission profile, ... (docs.nvidia.com "Adaptive Retransmission: Parameters
Control", "ROCE_ACCL Layout"). A field xoff does not model is kept as unmodelled; a modelled field the firmware
does not show is not observed (None).

What xoff sets is the plan's (``xoff.desired.builders.host.roce_accl``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xoff.contracts.collect import Command
from xoff.desired.models import RoceAccl

REGISTER = "ROCE_ACCL"
# register field -> RoceAccl attribute
FIELDS = {
    "roce_adp_retrans_en": "adaptive_retransmission",
    "roce_tx_window_en": "tx_window",
    "roce_slow_restart_en": "slow_restart",
    "roce_slow_restart_idle_en": "slow_restart_idle",
    "adaptive_routing_forced_en": "adaptive_routing_forced",
}

_HEADER = re.compile(r"^Field Name\s+\|\s+Data\s*$")
_ROW = re.compile(r"^([A-Za-z][A-Za-z0-9_.\[\]]*)\s+\|\s+0x([0-9a-fA-F]{1,16})\s*$")
_IGNORED = (re.compile(r"^Sending access register\.\.\.\s*$"), re.compile(r"^=+\s*$"), re.compile(r"^\s*$"))


def get_command(rdma: str) -> Command:
    return Command(f"mlxreg -d {rdma} --reg_name {REGISTER} --get")


def register_values(want: RoceAccl) -> dict[str, int]:
    """The register fields ``want`` sets, in the register's order, as 0/1."""
    return {name: int(v) for name, attr in FIELDS.items() if (v := getattr(want, attr)) is not None}


def parse_fields(text: str) -> dict[str, int]:
    """Every ``<field> | 0x...`` row of a known-register GET, in order. ValueError on anything else."""
    rows: dict[str, int] = {}
    header = False
    for number, line in enumerate(text.replace("\r", "").splitlines(), 1):
        if _HEADER.match(line):
            header = True
            continue
        match = _ROW.match(line)
        if match is not None and header:
            rows[match[1]] = int(match[2], 16)
        elif not any(p.match(line) for p in _IGNORED):
            raise ValueError(f"mlxreg {REGISTER} line {number}: unreadable {line[:80]!r}")
    if not header or not rows:
        raise ValueError(f"mlxreg {REGISTER}: no 'Field Name | Data' table (the register was not read)")
    return rows


@dataclass(frozen=True)
class Register:
    """What one ROCE_ACCL GET showed: the fields xoff models (None where the firmware shows none) and the names of
    the others (unmodelled)."""

    fields: RoceAccl
    unmodelled: list[str]


def parse_roce_accl(text: str) -> Register:
    """A ROCE_ACCL GET, read (ValueError when it is not one, or a modelled field is not a bit)."""
    rows = parse_fields(text)
    values: dict[str, bool] = {}
    for name, attr in FIELDS.items():
        if name in rows:
            if rows[name] not in (0, 1):
                raise ValueError(f"mlxreg {REGISTER}: {name} is 0x{rows[name]:08x} (a one-bit field)")
            values[attr] = bool(rows[name])
    return Register(RoceAccl(**values), [name for name in rows if name not in FIELDS])


def intended_only(observed: RoceAccl, intended: RoceAccl) -> RoceAccl:
    """The observed fields the intent sets (the others are not judged: xoff leaves them as they are)."""
    return RoceAccl(
        **{attr: getattr(observed, attr) for attr in FIELDS.values() if getattr(intended, attr) is not None}
    )
