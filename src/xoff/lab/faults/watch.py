"""Watch fault classes: trouble that only shows as counters MOVING, which ``xoff watch`` catches (its signals,
``watch.*``) and a one-instant ``validate`` cannot judge. Each is seeded in the emulator's counter state
(``state/counters.json``, in its NOS's terms) as counters that rise from the moment of the seed (the shared
contract's ``{"total": N, "per_second": R, "since": T}``) and gauges (``{"value": V}``), the way the ASIC would
raise them; undone by putting the file back as it was (``counters._counter_fault``).

- ``pause-storm``: PFC pause frames received at a storm's rate on the target's port and priority, and the PFC
  watchdog's storm count rising (it detects, restores, detects again);
- ``slow-drain``: pause received without end at a modest rate, the lossless PG's shared-buffer watermark growing,
  the watchdog quiet (the paused time never reaches its detection time); on EOS the priority's egress queue growing
  in LANZ's reports (``show queue-monitor length``, ``slow-drain-eos``), on Cumulus the PG's peak buffer use growing
  (``nv show interface <swp> qos buffer ingress-priority-group``, ``slow-drain-cumulus``);
- ``bad-optic``: FEC corrected and uncorrectable codewords rising and the pre-FEC BER up (the SONiC emulator's
  ``show interfaces counters fec-stats``), the module's receive power low and its temperature up (``show
  interfaces transceiver eeprom --dom``); on EOS ``show interfaces phy detail`` and ``show interfaces transceiver
  dom thresholds`` (``bad-optic-eos``); on Cumulus ``nv show interface <swp> link phy-detail`` and ``nv show
  platform transceiver detail`` (``bad-optic-cumulus``);
- ``lossless-drop-rising``: packets dropped on a lossless queue while it transmits (``show queue counters``);
- ``headroom-filling``: a lossless PG's headroom watermark climbing past nine tenths of the headroom the intent
  planned for it (``show priority-group watermark headroom``): the next burst, or a longer cable, overflows it;
- ``ecn-over-marking``: a Cumulus queue ECN-marking most of what it sends (``nv show interface <swp> counters qos``),
  a marking threshold set far too low.

The lab test that proves them: tests/lab/test_watch_faults.py (``SshCounterSource`` reads each fault's series
moving between two rounds when seeded, and flat when not).
"""

from __future__ import annotations

import time
from typing import Any

from xoff.lab.faults.counters import _counter_fault, _pg, _planned_headroom, _queue
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import Concern, Fault, Steps, Target, port_of, priority_of

STORM_PPS = 120_000.0  # pause frames/s: a port paused most of the time at 400G (a frame pauses ~3.4 us x quanta)
DRAIN_PPS = 800.0  # a slow receiver: pause all the time, far under a storm's rate
DRAIN_GROWTH = 8_192.0  # shared-buffer bytes/s the paused PG keeps gaining
STORMS_PER_S = 0.5  # the watchdog detects (and restores) a storm every two seconds
FEC_CORRECTED_PS = 250_000.0
FEC_UNCORRECTABLE_PS = 4.0
LOW_RX_DBM = -13.9  # under a DR4 module's RxPowerLowAlarm (around -10 dBm): a dirty connector, a bent fibre
LOSSLESS_TX_PPS = 1_000_000.0  # a busy lossless queue
LOSSLESS_DROP_PPS = 40.0  # a lossless queue must drop nothing; a few a second is a headroom or PFC hole
HEADROOM_START = 0.92  # of the planned headroom: past watch's 90 % warning from the first round
HEADROOM_GROWTH = 64.0  # bytes/s: still climbing
ECN_MARKED_SHARE = 0.6  # of transmitted frames: a Kmin set far under the queue's working depth
BAD_PRE_FEC_BER = 2.4e-4  # above what RS(544,514) can correct for long (IEEE 802.3 assumes ~2.4e-4 at its limit)


def rising(per_second: float, total: int = 0) -> dict[str, float]:
    """A counter rising ``per_second`` from ``total`` as of now (the shared contract's form)."""
    return {"total": total, "per_second": per_second, "since": time.time()}


def _eight(data: dict[str, Any], *keys: str) -> list[Any]:
    """The 8-entry per-priority list at ``data[key]...`` (made, or padded, as needed)."""
    node = data
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    values: list[Any] = node.setdefault(keys[-1], [0] * 8)
    values.extend([0] * (8 - len(values)))
    return values


def sonic_watch(kind: str) -> Steps:
    """The SONiC emulator's COUNTERS_DB (``show pfc counters``, ``show pfcwd stats``, ``show priority-group
    watermark shared``, ``show interfaces counters fec-stats``) on the target's port and priority."""

    def change(_lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port, priority = port_of(t), priority_of(t)
        if kind == "pause-storm":
            _eight(data, "pfc", port, "rx")[priority] = rising(STORM_PPS)
            data.setdefault("pfcwd", {})[f"{port}:{priority}"] = {
                "status": "stormed",
                "storm_detected": rising(STORMS_PER_S, 1),
                "storm_restored": rising(STORMS_PER_S),
            }
        elif kind == "lossless-drop":
            data.setdefault("queue", {}).setdefault(port, {})[f"UC{priority}"] = {
                "packets": rising(LOSSLESS_TX_PPS),
                "bytes": rising(LOSSLESS_TX_PPS * 4096),
                "drop_packets": rising(LOSSLESS_DROP_PPS),
                "drop_bytes": rising(LOSSLESS_DROP_PPS * 4096),
            }
        elif kind == "headroom":
            planned = _planned_headroom(_lab, t)
            _eight(data, "pg_headroom_watermark", port)[priority] = rising(
                HEADROOM_GROWTH, int(planned * HEADROOM_START)
            )
        elif kind == "slow-drain":
            _eight(data, "pfc", port, "rx")[priority] = rising(DRAIN_PPS)
            _eight(data, "pg_shared_watermark", port)[priority] = rising(DRAIN_GROWTH, 65_536)
        else:
            data.setdefault("fec", {})[port] = {
                "corr": rising(FEC_CORRECTED_PS),
                "uncorr": rising(FEC_UNCORRECTABLE_PS),
                "symbol_err": rising(FEC_CORRECTED_PS * 2),
                "pre_ber": {"value": BAD_PRE_FEC_BER},
                "post_ber": {"value": 1.1e-9},
            }
            data.setdefault("optics", {})[port] = {
                "rx_power": [{"value": LOW_RX_DBM}] * 8,
                "temperature": {"value": 71.5},
            }

    return _counter_fault(change)


def eos_watch() -> Steps:
    """A pause storm in the EOS emulator's terms: ``rxFrames`` rising on the priority, the watchdog's
    ``stuckCount`` and ``recoveryCount`` rising on the priority's transmit queue."""

    def change(lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port, priority = port_of(t), priority_of(t)
        data.setdefault("pfc", {}).setdefault(port, {})[str(priority)] = {"rxFrames": rising(STORM_PPS)}
        data.setdefault("watchdog", {}).setdefault(port, {})[_queue(lab, t, priority)] = {
            "stuckCount": rising(STORMS_PER_S, 1),
            "recoveryCount": rising(STORMS_PER_S),
        }

    return _counter_fault(change)


def eos_slow_drain() -> Steps:
    """A slow drain in the EOS emulator's terms: ``rxFrames`` rising on the priority without end, and LANZ reporting
    the priority's transmit queue ever longer (``queueLength``, bytes); the watchdog quiet."""

    def change(lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port, priority = port_of(t), priority_of(t)
        data.setdefault("pfc", {}).setdefault(port, {})[str(priority)] = {"rxFrames": rising(DRAIN_PPS)}
        data.setdefault("lanz", {}).setdefault(port, {})[_queue(lab, t, priority)] = {
            "queueLength": rising(DRAIN_GROWTH, 65_536)
        }

    return _counter_fault(change)


def cumulus_slow_drain() -> Steps:
    """A slow drain in NVUE's terms: ``rx-pause-frames`` rising on the switch priority without end, and its priority
    group's ``Max Usage`` (``qos buffer ingress-priority-group``) growing; the watchdog quiet."""

    def change(lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port, priority = port_of(t), priority_of(t, 4)
        data.setdefault("pfc", {}).setdefault(port, {})[str(priority)] = {"rx-pause-frames": rising(DRAIN_PPS)}
        data.setdefault("buffer", {}).setdefault(port, {})[_pg(lab, t, priority)] = {
            "current-usage": rising(DRAIN_GROWTH, 65_536),
            "max-usage": rising(DRAIN_GROWTH, 65_536),
        }

    return _counter_fault(change)


def eos_optic() -> Steps:
    """A bad optic in the EOS emulator's terms: the port's PHY counting corrected and uncorrected codewords at a
    rising rate with its pre-FEC BER up (``show interfaces phy detail``), the module's receive power low on every
    lane and its temperature up (``show interfaces transceiver dom thresholds``)."""

    def change(_lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port = port_of(t)
        data.setdefault("fec", {})[port] = {
            "correctedCodewords": rising(FEC_CORRECTED_PS),
            "uncorrectedCodewords": rising(FEC_UNCORRECTABLE_PS),
            "preFecBer": {"value": BAD_PRE_FEC_BER},
        }
        data.setdefault("optics", {})[port] = {"rxPower": [{"value": LOW_RX_DBM}] * 8, "temperature": {"value": 71.5}}

    return _counter_fault(change)


def cumulus_optic() -> Steps:
    """A bad optic in NVUE's terms: the port's RS-FEC histogram filling (codewords corrected) and its effective
    (uncorrected) errors rising with the raw BER up (``nv show interface <swp> link phy-detail``), the module's
    receive power low on every lane and its temperature up (``nv show platform transceiver detail``)."""

    def change(_lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port = port_of(t)
        data.setdefault("fec", {})[port] = {
            "rs-num-corr-err-bin1": rising(FEC_CORRECTED_PS),
            "effective-errors": rising(FEC_UNCORRECTABLE_PS),
            "raw-ber": {"value": BAD_PRE_FEC_BER},
        }
        data.setdefault("optics", {})[port] = {"rx-power": [{"value": LOW_RX_DBM}] * 8, "temperature": {"value": 71.5}}

    return _counter_fault(change)


def cumulus_watch() -> Steps:
    """A pause storm in NVUE's terms: ``rx-pause-frames`` and ``rx-pause-duration`` rising on the switch
    priority, the PFC watchdog's ``deadlock-count`` rising on its traffic class."""

    def change(lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port, priority = port_of(t), priority_of(t, 4)
        data.setdefault("pfc", {}).setdefault(port, {})[str(priority)] = {
            "rx-pause-frames": rising(STORM_PPS),
            "rx-pause-duration": rising(900_000.0),  # microseconds paused a second: most of it
        }
        data.setdefault("watchdog", {}).setdefault(port, {})[_queue(lab, t, priority)] = {
            "deadlock-count": rising(STORMS_PER_S, 1),
            "status": "DEADLOCK",
        }

    return _counter_fault(change)


def cumulus_ecn() -> Steps:
    """Over-marking in NVUE's terms: ``tx-frames`` and ``ecn-marked-frames`` rising on the lossless priority's queue,
    most of what it sends marked."""

    def change(lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port, priority = port_of(t), priority_of(t, 4)
        data.setdefault("queues", {}).setdefault(port, {})[_queue(lab, t, priority)] = {
            "tx-frames": rising(LOSSLESS_TX_PPS),
            "tx-bytes": rising(LOSSLESS_TX_PPS * 4096),
            "ecn-marked-frames": rising(LOSSLESS_TX_PPS * ECN_MARKED_SHARE),
        }

    return _counter_fault(change)


def _fault(name: str, title: str, how: str, check: str, target: Target, platform: str, steps: Steps) -> Fault:
    return Fault(
        name=name,
        title=title,
        how=how,
        check=check,
        concern=Concern.COUNTERS,
        target=target,
        platform=platform,
        steps=steps,
        names=("device", "port", "priority") if target.priority is not None else ("device", "port"),
    )


FAULTS: tuple[Fault, ...] = (
    _fault(
        "pause-storm",
        "PFC pause storm, counters moving",
        "pause frames received at a storm's rate and the watchdog's storm count rising in the SONiC emulator "
        "(`show pfc counters`, `show pfcwd stats`)",
        "watch.pause_storm",
        Target("leaf1", "Ethernet8", 3),
        "sonic",
        sonic_watch("pause-storm"),
    ),
    _fault(
        "slow-drain",
        "Slow drain: pause that never stops, the watchdog quiet",
        "pause frames received without end and the PG's shared watermark growing in the SONiC emulator "
        "(`show pfc counters`, `show priority-group watermark shared`)",
        "watch.slow_drain",
        Target("leaf2", "Ethernet8", 3),
        "sonic",
        sonic_watch("slow-drain"),
    ),
    _fault(
        "bad-optic",
        "A bad optic: FEC errors rising, pre-FEC BER up",
        "FEC corrected and uncorrectable codewords rising, the pre-FEC BER at 2.4e-4 and the receive power at "
        "-13.9 dBm in the SONiC emulator (`show interfaces counters fec-stats`, `show interfaces transceiver eeprom --dom`)",
        "watch.fec_ber",
        Target("spine1", "Ethernet0"),
        "sonic",
        sonic_watch("bad-optic"),
    ),
    _fault(
        "lossless-drop-rising",
        "Drops on a lossless queue, counters moving",
        "packets dropped on the lossless queue while it transmits, in the SONiC emulator (`show queue counters`)",
        "watch.lossless_drop",
        Target("leaf1", "Ethernet0", 3),
        "sonic",
        sonic_watch("lossless-drop"),
    ),
    _fault(
        "headroom-filling",
        "A lossless PG's headroom watermark climbing past nine tenths of the planned headroom",
        "the PG's headroom watermark from 92 % of the planned headroom upwards, in the SONiC emulator "
        "(`show priority-group watermark headroom`)",
        "watch.headroom_watermark",
        Target("spine1", "Ethernet8", 3),
        "sonic",
        sonic_watch("headroom"),
    ),
    _fault(
        "ecn-over-marking",
        "A queue ECN-marking most of what it sends (Cumulus)",
        "transmitted and ECN-marked frames rising on the lossless queue, 60 % of them marked, in the Cumulus emulator "
        "(`nv show interface <swp> counters qos`)",
        "watch.ecn_ratio",
        Target("sleaf1", "swp3", 4),
        "cumulus",
        cumulus_ecn(),
    ),
    _fault(
        "pause-storm-eos",
        "PFC pause storm, counters moving (EOS)",
        "rx pause frames and the watchdog's stuck count rising in the EOS emulator "
        "(`show interfaces priority-flow-control counters detail`, `show priority-flow-control counters watchdog`)",
        "watch.pause_storm",
        Target("spine2", "Ethernet1/1", 3),
        "eos",
        eos_watch(),
    ),
    _fault(
        "slow-drain-eos",
        "Slow drain: pause that never stops, the watchdog quiet (EOS)",
        "pause frames received without end and LANZ reporting the priority's egress queue ever longer in the EOS "
        "emulator (`show interfaces priority-flow-control counters detail`, `show queue-monitor length`)",
        "watch.slow_drain",
        Target("spine2", "Ethernet2/1", 3),
        "eos",
        eos_slow_drain(),
    ),
    _fault(
        "bad-optic-eos",
        "A bad optic: FEC errors rising, pre-FEC BER up (EOS)",
        "FEC corrected and uncorrected codewords rising, the pre-FEC BER at 2.4e-4 and the receive power at -13.9 dBm "
        "in the EOS emulator (`show interfaces phy detail`, `show interfaces transceiver dom thresholds`)",
        "watch.fec_ber",
        Target("spine2", "Ethernet1/1"),
        "eos",
        eos_optic(),
    ),
    _fault(
        "pause-storm-cumulus",
        "PFC pause storm, counters moving (Cumulus)",
        "rx pause frames and the PFC watchdog's deadlock count rising in the Cumulus emulator "
        "(`nv show interface <swp> counters qos`, `nv show interface <swp> qos pfc-watchdog`)",
        "watch.pause_storm",
        Target("sleaf1", "swp1", 4),
        "cumulus",
        cumulus_watch(),
    ),
    _fault(
        "slow-drain-cumulus",
        "Slow drain: pause that never stops, the watchdog quiet (Cumulus)",
        "pause frames received without end and the priority group's peak buffer use growing in the Cumulus emulator "
        "(`nv show interface <swp> counters qos`, `nv show interface <swp> qos buffer ingress-priority-group`)",
        "watch.slow_drain",
        Target("sleaf1", "swp4", 4),
        "cumulus",
        cumulus_slow_drain(),
    ),
    _fault(
        "bad-optic-cumulus",
        "A bad optic: FEC errors rising, pre-FEC BER up (Cumulus)",
        "corrected codewords (RS-FEC histogram) and effective errors rising, the raw BER at 2.4e-4 and the receive "
        "power at -13.9 dBm in the Cumulus emulator (`nv show interface <swp> link phy-detail`, `nv show platform "
        "transceiver detail`)",
        "watch.fec_ber",
        Target("sleaf1", "swp2"),
        "cumulus",
        cumulus_optic(),
    ),
)
