"""The ConnectX/BlueField ``ROCE_ACCL`` access register: ``mlxreg -d RDMA --reg_name ROCE_ACCL --get``.

mlxreg (NVIDIA MFT; mstflint's ``mstreg``) prints a known register as ``Sending access register...``, a blank line,
``Field Name`` padded to the longest field name plus three, `` | Data``, a line of ``=`` (that width plus 14), one
``<field> | 0x%08x`` line per leaf field in layout order, and the ``=`` line again. Which fields there are follows
the firmware's register layout: ConnectX-5/6 firmware shows the four ``roce_*`` accelerations and their
``*_field_select`` capability bits; later firmware adds ``adaptive_routing_forced_en``, ``selective_repeat_forced_en``,
``ack_dscp``, the adaptive-retransmission profile, ... (docs.nvidia.com "Adaptive Retransmission: Parameters
Control", "ROCE_ACCL Layout"). A field xoff does not model is kept as unmodelled; a modelled field the firmware
does not show is not observed (None).

What xoff sets (docs/designs.md, "Load balancing" and "Congestion-control profiles"):

- adaptive routing on the fabric (NVIDIA Spectrum-X reference architecture, as NVIDIA's NIC Configuration Operator
  applies it, ``bindata/spectrum-x/RA2.0.yaml`` "adaptiveRouting"): adaptive retransmission and the TX window on,
  slow restart and slow restart on idle off, adaptive routing forced on;
- lossy RoCE (profile ecn-only, no PFC): NVIDIA's "lossy RoCE accelerations", adaptive retransmission, the TX window
  and slow restart on (NVIDIA developer forum, "Error checking lossy RoCE acceleration state").
"""

from __future__ import annotations

import re

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
ATTRIBUTES = {attr: name for name, attr in FIELDS.items()}
SPECTRUM_X_AR = RoceAccl(
    adaptive_retransmission=True, tx_window=True, slow_restart=False, slow_restart_idle=False, adaptive_routing_forced=True
)
LOSSY_ROCE = RoceAccl(adaptive_retransmission=True, tx_window=True, slow_restart=True)

_HEADER = re.compile(r"^Field Name\s+\|\s+Data\s*$")
_ROW = re.compile(r"^([A-Za-z][A-Za-z0-9_.\[\]]*)\s+\|\s+0x([0-9a-fA-F]{1,16})\s*$")
_IGNORED = (re.compile(r"^Sending access register\.\.\.\s*$"), re.compile(r"^=+\s*$"), re.compile(r"^\s*$"))


def get_command(rdma: str) -> Command:
    return Command(f"mlxreg -d {rdma} --reg_name {REGISTER} --get")


def set_args(rdma: str, want: RoceAccl) -> list[str]:
    """``mlxreg`` arguments that set the fields ``want`` gives (the others left as they are), non-interactive."""
    data = ",".join(f"{name}=0x{int(value)}" for name, value in register_values(want).items())
    return ["-d", rdma, "--reg_name", REGISTER, "--set", data, "--yes"]


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


def parse_roce_accl(text: str) -> tuple[RoceAccl, list[str]]:
    """The fields xoff models (None where the firmware shows none) and the names of the others (unmodelled)."""
    rows = parse_fields(text)
    values: dict[str, bool] = {}
    for name, attr in FIELDS.items():
        if name in rows:
            if rows[name] not in (0, 1):
                raise ValueError(f"mlxreg {REGISTER}: {name} is 0x{rows[name]:08x} (a one-bit field)")
            values[attr] = bool(rows[name])
    return RoceAccl(**values), [name for name in rows if name not in FIELDS]


def intended_only(observed: RoceAccl, intended: RoceAccl) -> RoceAccl:
    """The observed fields the intent sets (the others are not judged: xoff leaves them as they are)."""
    return RoceAccl(**{attr: getattr(observed, attr) for attr in FIELDS.values() if getattr(intended, attr) is not None})
