"""``show priority-flow-control`` and ``show qos maps``, text and ``| json``.

No captured EOS output of these two commands was found in public sources (ntc-templates has no
template for them, ANTA reads only ``show priority-flow-control counters``). The layouts here follow
EOS's conventions for them as far as they are known and are marked UNCONFIRMED in
tests/fixtures/eos-cli/README.md: a parser written against them must be re-checked on a real switch.
EOS's factory maps are likewise UNCONFIRMED beyond "CS3 (DSCP 24) goes to traffic class 3"
(reference/lossless.md §3.1): this module uses cos c -> tc (1, 0, 2, 3, 4, 5, 6, 7)[c] and
dscp d -> the class of cos d // 8.
"""

from __future__ import annotations

from typing import Any

from xoff.lab.emulators.eos import ifnames
from xoff.lab.emulators.eos.model import RunningConfig
from xoff.lab.emulators.eos.show_net import Link, status

Json = dict[str, Any]
Shown = tuple[str, Json]
DEFAULT_COS_TO_TC = dict(enumerate((1, 0, 2, 3, 4, 5, 6, 7)))
TC_TO_COS = {tc: cos for cos, tc in DEFAULT_COS_TO_TC.items()}
CLASSES = 8


def cos_to_tc(cfg: RunningConfig) -> dict[int, int]:
    return DEFAULT_COS_TO_TC | cfg.cos_to_tc


def dscp_to_tc(cfg: RunningConfig) -> dict[int, int]:
    return {d: DEFAULT_COS_TO_TC[d // 8] for d in range(64)} | cfg.dscp_to_tc


def _seconds(value: str | None) -> str:
    return "not configured" if value is None else f"{value} second(s)"


def priority_flow_control(cfg: RunningConfig, state: dict[str, Link] | None) -> Shown:
    wd = cfg.watchdog
    text = [
        "The hardware supports PFC on priorities 0 1 2 3 4 5 6 7\n",
        f"The PFC watchdog timeout is {_seconds(wd.timeout)}\n",
        f"The PFC watchdog recovery-time is {_seconds(wd.recovery_time)}\n",
        f"The PFC watchdog polling-interval is {_seconds(wd.polling_interval)}\n",
        f"The PFC watchdog action is {wd.action or 'drop'}\n",
        "The PFC watchdog override action drop is false\n",
        "Global PFC : Enabled\n",
        "\n",
        "E: PFC Enabled, D: PFC Disabled, A: PFC Active, W: PFC Watchdog Enabled\n",
        "Port        Status Priorities Action      Timeout  Recovery Polling  Note\n",
        "----------- ------ ---------- ----------- -------- -------- -------- -------------\n",
    ]
    ports: Json = {}
    for name in ifnames.sort_names([n for n, i in cfg.interfaces.items() if i.kind == "Ethernet"]):
        iface = cfg.interfaces[name]
        active = iface.pfc_on and status(iface, state)[0] == "connected"
        watchdog = iface.pfc_on and iface.pfc_watchdog
        flags = " ".join(f for f, on in (("E" if iface.pfc_on else "D", True), ("A", active), ("W", watchdog)) if on)
        prios = " ".join(map(str, sorted(iface.pfc_no_drop))) or "-"
        text.append(
            f"{ifnames.short(name):<11} {flags:<6} {prios:<10} {'-':<11} {'-':<8} {'-':<8} {'-':<8} DCBX disabled\n"
        )
        ports[name] = {
            "enabled": iface.pfc_on,
            "active": active,
            "priorities": sorted(iface.pfc_no_drop),
            "watchdogEnabled": watchdog,
            "watchdogPortConfig": None,
            "dcbxStatus": "dcbxDisabled",
        }
    data: Json = {
        "hardwareSupportedPriorities": list(range(CLASSES)),
        "watchdog": {
            "timeout": _float(wd.timeout),
            "recoveryTime": _float(wd.recovery_time),
            "pollingInterval": _float(wd.polling_interval),
            "action": wd.action or "drop",
            "overrideActionDrop": False,
        },
        "globalEnabled": True,
        "interfaceStatuses": ports,
    }
    return "".join(text), data


def _float(value: str | None) -> float | None:
    return None if value is None else float(value)


def _row(label: str, values: list[int], width: int) -> str:
    return f"  {label:<{width}} " + " ".join(str(v) for v in values) + "\n"


def qos_maps(cfg: RunningConfig) -> Shown:
    cos, dscp = cos_to_tc(cfg), dscp_to_tc(cfg)
    tcs = list(range(CLASSES))
    text = [
        f"Number of Traffic Classes supported: {CLASSES}\n",
        f"Number of Transmit Queues supported: {CLASSES}\n",
        "\n",
        "Cos Rewrite: Disabled\n",
        "Dscp Rewrite: Disabled\n",
        "\n",
        "Cos-tc map:\n",
        _row("cos:", list(range(8)), 4),
        "  " + "-" * 28 + "\n",
        _row("tc:", [cos[c] for c in range(8)], 4),
        "\n",
        "Dscp-tc map:\n",
        "     d1 :  d2 " + " ".join(f"{d:>2}" for d in range(10)) + "\n",
        "  " + "-" * 42 + "\n",
    ]
    for tens in range(7):
        cells = " ".join(f"{dscp[tens * 10 + d]:>2}" for d in range(10) if tens * 10 + d < 64)
        text.append(f"     {tens:>2} :     {cells}\n")
    text += [
        "\n",
        "Tc-cos map:\n",
        _row("tc:", tcs, 4),
        "  " + "-" * 28 + "\n",
        _row("cos:", [TC_TO_COS[t] for t in tcs], 4),
        "\n",
        "Tc-tx-queue map:\n",
        _row("tc:", tcs, 9),
        "  " + "-" * 33 + "\n",
        _row("tx-queue:", tcs, 9),
    ]
    data: Json = {
        "numTcSupported": CLASSES,
        "numTxQueueSupported": CLASSES,
        "cosRewriteEnabled": False,
        "dscpRewriteEnabled": False,
        "cosToTcMap": {str(c): cos[c] for c in range(8)},
        "dscpToTcMap": {str(d): dscp[d] for d in range(64)},
        "tcToCosMap": {str(t): TC_TO_COS[t] for t in tcs},
        "tcToTxQueueMap": {str(t): t for t in tcs},
    }
    return "".join(text), data
