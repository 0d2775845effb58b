"""Every number the watch signals judge by: its default, where it comes from, and what the plan overrides.

Defaults (``Thresholds``; ``xoff watch --threshold NAME=VALUE`` sets one, and ``docs/watch.md`` lists them with the
same sources):

- ``pause_storm_pps`` = 1000 PFC pause frames per second on one lossless priority. IEEE 802.1Qbb: a pause frame
  carries up to 65535 quanta of 512 bit times; at 100 Gb/s that is 335 us, so about 2,980 frames/s hold a port
  paused without end; 1,000/s is a port paused a third of the time or more, the start of a storm.
- ``pause_storm_share`` = 0.5: the share of time a port was paused (the pause-duration counter where the platform
  keeps it, seconds per second); paused half the time is a storm whatever the frame count.
- ``slow_drain_min_pps`` = 1: rx pause frames per second in EVERY interval of the window ("never stops").
- ``slow_drain_growth_bytes`` = 1: how much the PG watermark (on EOS: the egress queue length LANZ reports) must have grown from the window's first to its last
  point (and never fallen between) for a slow drain; the watchdog must not have detected a storm meanwhile (a
  slow drain is what the watchdog misses: SONiC's PFC watchdog design, doc/pfc_watchdog).
- ``lossless_drop_pps`` = 0: drops per second on a lossless queue above which it is a finding; a lossless queue
  drops nothing by definition (802.1Qbb), so any increase is one.
- ``ecn_ratio_low`` = 0 (off) and ``ecn_ratio_high`` = 0.1: marked / transmitted packets on an ECN queue. The plan
  lowers the high bound to the queue's own WRED max marking probability (``qos.ecn[q].probability`` / 100) when
  that is smaller: a marked share above it means the queue sits past Kmax, where every packet is marked (DCQCN,
  Zhu et al., SIGCOMM 2015, sec. 4). Judged
  only when the queue sent at least ``ecn_min_tx_pps`` = 100 packets/s.
- ``headroom_near_share`` = 0.9: a PG headroom watermark at or above 90 % of the headroom the plan reserved for it
  (the PG's buffer profile ``xoff``: the bytes that arrive after XOFF is sent; SONiC buffer design,
  doc/qos/dynamically-headroom-calculation.md) means the next burst or a longer cable loses packets.
- ``pre_fec_ber_max`` = 2.4e-5: one decade under 2.4e-4, the pre-FEC BER the RS(544,514) "KP4" FEC of 200G/400G
  PAM4 Ethernet corrects to a frame loss ratio near 1e-13 (IEEE 802.3bs/802.3cd); ``fec_uncorrectable_pps`` = 0:
  an uncorrectable codeword is a lost frame.
- ``optic_rx_min_dbm`` = -5.9, ``optic_rx_max_dbm`` = 4.0: 400GBASE-DR4 average receive power per lane (IEEE
  802.3bs clause 124, receive characteristics); ``optic_temperature_max_c`` = 70: the commercial case temperature
  range of QSFP modules (SFF-8636 / CMIS, 0 to 70 C).
- ``nic_discards_pps`` = 0: ``rx_discards_phy`` and out-of-buffer per second; NVIDIA's mlx5 counter reference:
  "if this counter is increasing, it implies the adapter is congested" (a lossless host drops nothing).
- ``straggler_share`` = 0.85 and ``full_clock_share`` = 0.95: a host whose GPUs' median SM clock is under 85 % of
  the fabric's median with a clock event active (NVML ``nvmlDeviceGetCurrentClocksEventReasons``: thermal, power
  brake, HW slowdown, ...) while the other hosts' median is at least 95 % of their maximum SM clock.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from xoff.errors import InputError, Problem

if TYPE_CHECKING:
    from xoff.desired.models import Device, FabricState


@dataclass(frozen=True, slots=True)
class Thresholds:
    pause_storm_pps: float = 1000.0
    pause_storm_share: float = 0.5
    slow_drain_min_pps: float = 1.0
    slow_drain_growth_bytes: float = 1.0
    lossless_drop_pps: float = 0.0
    ecn_ratio_low: float = 0.0
    ecn_ratio_high: float = 0.1
    ecn_min_tx_pps: float = 100.0
    headroom_near_share: float = 0.9
    pre_fec_ber_max: float = 2.4e-5
    fec_uncorrectable_pps: float = 0.0
    optic_rx_min_dbm: float = -5.9
    optic_rx_max_dbm: float = 4.0
    optic_temperature_max_c: float = 70.0
    nic_discards_pps: float = 0.0
    straggler_share: float = 0.85
    full_clock_share: float = 0.95

    def with_overrides(self, pairs: tuple[str, ...]) -> Thresholds:
        """``NAME=VALUE`` pairs (``--threshold``); an unknown name or a value that is not a number is bad input."""
        names = {f.name for f in fields(self)}
        changes: dict[str, float] = {}
        problems: list[Problem] = []
        for pair in pairs:
            name, _, value = pair.partition("=")
            try:
                if name.strip() not in names:
                    raise ValueError(f"no threshold {name.strip()!r} (known: {', '.join(sorted(names))})")
                changes[name.strip()] = float(value)
            except ValueError as exc:
                problems.append(Problem(None, "--threshold", f"--threshold {pair}: {exc}"))
        if problems:
            raise InputError(problems)
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class DevicePlan:
    """What the intent's QoS policy and the buffer plan say about one switch (empty for a host)."""

    lossless_priorities: frozenset[int] = frozenset()
    queue_of: dict[int, int] | None = None  # lossless priority -> its egress queue (pfc_priority_to_queue)
    pg_of: dict[int, int] | None = None  # lossless priority -> its ingress priority group
    ecn_high: dict[int, float] | None = None  # queue -> max marking share (the WRED probability)
    headroom: dict[tuple[str, int], int] | None = None  # (port, pg) -> planned headroom bytes (profile xoff)

    @property
    def lossless_queues(self) -> frozenset[int]:
        return frozenset((self.queue_of or {}).values())

    def priority_of(self, queue: int | None) -> int | None:
        """The lossless priority whose pause stops ``queue`` (None when no lossless priority maps to it)."""
        return next((p for p, q in sorted((self.queue_of or {}).items()) if q == queue), None)


def _pgs(key: str) -> range:
    low, _, high = key.partition("-")
    return range(int(low), int(high or low) + 1)


def _headroom(device: Device) -> dict[tuple[str, int], int]:
    out: dict[tuple[str, int], int] = {}
    buffers = device.buffers
    if buffers is None:
        return out
    for port, groups in buffers.port_priority_groups.items():
        for key, profile_name in groups.items():
            profile = buffers.profiles.get(profile_name)
            if profile is None or profile.xoff <= 0 or not key.replace("-", "").isdigit():
                continue
            for pg in _pgs(key):
                out[(port, pg)] = profile.xoff
    return out


def device_plan(device: Device) -> DevicePlan:
    qos = device.qos
    if device.host is not None:  # a host: the priorities its NICs run PFC on (mlnx_qos --pfc flags)
        flags = {p for nic in device.host.nics.values() for p, on in enumerate(nic.pfc) if on}
        return DevicePlan(frozenset(flags))
    if qos is None:
        return DevicePlan(headroom=_headroom(device))
    lossless = frozenset(qos.lossless_priorities)
    queues = {p: q for p, q in qos.pfc_priority_to_queue.items() if p in lossless}
    pgs = {p: g for p, g in qos.pfc_priority_to_priority_group.items() if p in lossless}
    ecn = {q: e.probability / 100 for q, e in qos.ecn.items() if e.probability > 0}
    return DevicePlan(lossless, queues, pgs, ecn, _headroom(device))


def plans(state: FabricState) -> dict[str, DevicePlan]:
    return {name: device_plan(d) for name, d in state.devices.items()}


SOURCES: dict[str, str] = {
    "pause_storm_pps": "IEEE 802.1Qbb: 65535 quanta x 512 bit times = 335 us at 100 Gb/s, ~2,980 frames/s hold a "
    "port paused; 1,000/s is a third of the time or more",
    "pause_storm_share": "the pause-duration counter (s/s) where the platform keeps it: paused half the time",
    "slow_drain_min_pps": "rx pause in every interval of the window: the pause never stops",
    "slow_drain_growth_bytes": "the PG watermark (EOS: the egress queue length) never falls and grows; the watchdog misses a slow drain (SONiC "
    "PFC watchdog design, doc/pfc_watchdog)",
    "lossless_drop_pps": "a lossless queue drops nothing (IEEE 802.1Qbb)",
    "ecn_ratio_low": "off by default: set it where a queue must mark (ECN known to work)",
    "ecn_ratio_high": "10 %; lowered to the queue's WRED max probability (intent qos ecn) when smaller: past it the "
    "queue sits above Kmax (DCQCN, Zhu et al., SIGCOMM 2015)",
    "ecn_min_tx_pps": "a queue that sent under 100 packets/s is not judged (a ratio of nothing)",
    "headroom_near_share": "90 % of the PG's planned headroom (its profile's xoff from the plan; SONiC "
    "doc/qos/dynamically-headroom-calculation.md)",
    "pre_fec_ber_max": "a decade under 2.4e-4, the pre-FEC BER RS(544,514) KP4 FEC corrects (IEEE 802.3bs/802.3cd)",
    "fec_uncorrectable_pps": "an uncorrectable codeword is a lost frame",
    "optic_rx_min_dbm": "400GBASE-DR4 average receive power per lane, minimum (IEEE 802.3bs clause 124)",
    "optic_rx_max_dbm": "400GBASE-DR4 average receive power per lane, maximum (IEEE 802.3bs clause 124)",
    "optic_temperature_max_c": "QSFP commercial case temperature 0-70 C (SFF-8636 / CMIS)",
    "nic_discards_pps": "NVIDIA mlx5 counters: rx_discards_phy increasing means the adapter is congested",
    "straggler_share": "a host under 85 % of the fabric's median SM clock with an NVML clock event active "
    "(nvmlDeviceGetCurrentClocksEventReasons)",
    "full_clock_share": "its peers at 95 % or more of their maximum SM clock",
}
"""Each threshold's source in one line (docs/watch.md's table; the module docstring says it at length)."""
