"""``mlnx_qos -i NETDEV`` as mlnx-tools' ``pretty_print`` prints it, every release since the tool moved to
Mellanox/mlnx-tools (MLNX_OFED 4.x to DOCA-host):

- ``DCBX mode: ...``, ``Priority trust state: pcp|dscp`` (or "... is not supported on your system"),
  ``dscp2prio mapping:`` with ``\\tprio:P dscp:DD,DD,...,`` lines (at most eight DSCPs a line) when trusting DSCP;
- up to 2024, ``default priority:`` and an optional ``\\tprio:P`` under it;
- ``Receive buffer size (bytes): B0,...,B7,`` with ``total_size=N`` (to 2023) or ``max_buffer_size=N`` (since),
  or "Buffers commands are not supported on your system" (no buffer line, no PFC ``buffer`` row);
- ``Cable len: N``; ``PFC configuration:`` with its ``priority`` / ``enabled`` / ``buffer`` rows;
- per traffic class ``tc: T ratelimit: R, tsa: ets, bw: P%|strict|vendor|unknown`` and one
  ``\\t priority:  P`` line per priority mapped to it (TCs in first-use order before 2022, sorted since).

Releases before the receive-buffer commands (MLNX_OFED 4.2 era captures) print no buffer line and no ``buffer``
row: those facts are then not observed (None), never zero.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from xoff.contracts.observed import NicQos

_TRUST = re.compile(r"^Priority trust state: (\S+)\s*$")
_DSCP = re.compile(r"^\s+prio:([0-7]) dscp:((?:\d{1,2},)*\d{0,2}),?\s*$")
_DEFAULT_PRIO = re.compile(r"^\s+prio:[0-7]\s*$")
_BUFFERS = re.compile(r"^Receive buffer size \(bytes\): ((?:\d+,){8})(?:(?:total_size|max_buffer_size)=\d+)?\s*$")
_CABLE = re.compile(r"^Cable len: (\d+)\s*$")
_PFC_ROW = re.compile(r"^\s+(priority|enabled|buffer)((?:\s+\d+){8})\s*$")
_TC = re.compile(r"^tc: (\d) ratelimit: ([^,]+), tsa: (ets, bw: (\d+)%|strict|vendor|unknown)\s*$")
_TC_PRIO = re.compile(r"^\s+priority:\s+([0-7])\s*$")
_IGNORED = (
    re.compile(r"^DCBX mode: (OS|Firmware) controlled\s*$"),
    re.compile(r"^dscp2prio mapping:\s*$"),
    re.compile(r"^default priority:\s*$"),
    re.compile(r"^PFC configuration:\s*$"),
    re.compile(r"^\*+ WARNING: lldpad service is running.*$"),
    re.compile(r"^Priority trust state is not supported on your system\s*$"),
    re.compile(r"^Buffers commands are not supported on your system\s*$"),
)


@dataclass
class _Read:
    trust: str | None = None
    dscp: dict[int, int] = field(default_factory=dict)
    pfc: list[int] | None = None
    prio_buffer: list[int] | None = None
    buffers: list[int] | None = None
    cable: int | None = None
    tc: int | None = None
    tsa: dict[int, str] = field(default_factory=dict)
    bw: dict[int, int] = field(default_factory=dict)
    prio_tc: dict[int, int] = field(default_factory=dict)


def _eight(text: str) -> list[int]:
    return [int(v) for v in text.replace(",", " ").split()]


def _line(state: _Read, line: str) -> bool:
    """Read one line into ``state``; False: not a line of mlnx_qos."""
    if m := _TRUST.match(line):
        state.trust = m[1]
    elif m := _DSCP.match(line):
        for dscp in filter(None, m[2].split(",")):
            state.dscp[int(dscp)] = int(m[1])
    elif m := _BUFFERS.match(line):
        state.buffers = _eight(m[1])
    elif m := _CABLE.match(line):
        state.cable = int(m[1])
    elif m := _PFC_ROW.match(line):
        if m[1] == "enabled":
            state.pfc = _eight(m[2])
        elif m[1] == "buffer":
            state.prio_buffer = _eight(m[2])
    elif m := _TC.match(line):
        state.tc = int(m[1])
        state.tsa[state.tc] = m[3].split(",")[0]
        if m[4] is not None:
            state.bw[state.tc] = int(m[4])
    elif (m := _TC_PRIO.match(line)) and state.tc is not None:
        state.prio_tc[int(m[1])] = state.tc
    else:
        return _DEFAULT_PRIO.match(line) is not None or any(p.match(line) for p in _IGNORED)
    return True


def parse_mlnx_qos(text: str) -> tuple[dict[str, Any], NicQos]:
    """``mlnx_qos -i NETDEV`` -> (the HostNic fields: trust, pfc, dscp_to_priority; the NicQos facts).

    Strict: an unknown line or an output without the PFC ``enabled`` row is a ValueError. ``trust`` is None when
    the tool says trust is not supported (or prints ``none``); the DSCP map is only printed when trusting DSCP."""
    state = _Read()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if line.strip() and not _line(state, line):
            raise ValueError(f"mlnx_qos line {number}: unexpected line {line[:100]!r}")
    if state.pfc is None:
        raise ValueError("mlnx_qos: no PFC configuration ('enabled' row) in the output")
    if state.trust is not None and state.trust not in ("pcp", "dscp", "none"):
        raise ValueError(f"mlnx_qos: trust state {state.trust!r} (allowed: pcp, dscp, none)")
    fields: dict[str, Any] = {
        "trust": state.trust if state.trust in ("pcp", "dscp") else None,
        "pfc": state.pfc,
        "dscp_to_priority": dict(sorted(state.dscp.items())),
    }
    qos = NicQos(
        priority_to_tc=dict(sorted(state.prio_tc.items())) if state.prio_tc else None,
        tc_tsa=dict(sorted(state.tsa.items())) if state.tsa else None,
        tc_bandwidth=dict(sorted(state.bw.items())) if state.tsa else None,
        priority_to_buffer=dict(enumerate(state.prio_buffer)) if state.prio_buffer is not None else None,
        buffer_sizes=state.buffers,
        cable_length_m=state.cable,
    )
    return fields, qos
