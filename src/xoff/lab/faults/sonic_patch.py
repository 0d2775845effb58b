"""SONiC faults made as an operator's ``config apply-patch`` makes them: a checkpoint, then a JSON patch
of CONFIG_DB (YANG-validated as a whole by the switch); undone by rolling back to the checkpoint.

Most are a table of edits (``Edit``: find the rows in the switch's running CONFIG_DB, change them); the
fault classes that use them are in ``switch``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xoff.buffers.asics import get_asic
from xoff.lab.faults.errors import SeedError
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import Steps, Target, port_of, priority_of


def _sonic_patch(lab: Lab, t: Target, ops: list[dict[str, Any]], tag: str) -> None:
    """``config checkpoint`` then ``config apply-patch`` (YANG-validated as a whole by the switch)."""
    patch = json.dumps(ops, indent=1)
    lab.run(
        t.device,
        f"sudo config checkpoint xoff-fault-{tag}\ncat > /tmp/xoff-fault-{tag}.json <<'EOF'\n{patch}\nEOF\n"
        f"sudo config apply-patch /tmp/xoff-fault-{tag}.json",
    )


def _sonic_rollback(lab: Lab, t: Target, tag: str) -> None:
    lab.run(t.device, f"sudo config rollback xoff-fault-{tag} && sudo config delete-checkpoint xoff-fault-{tag}")


def _sonic_db(lab: Lab, device: str) -> dict[str, Any]:
    out = lab.run(device, "show runningconfiguration all")
    data: dict[str, Any] = json.loads(out)
    return data


SonicOps = Callable[[Lab, Target, dict[str, Any]], list[dict[str, Any]]]
Where = Callable[[Target, dict[str, Any]], list[str]]  # JSON-patch paths, from the target and CONFIG_DB
Value = Callable[[Target, dict[str, Any]], Any]


def patch_fault(tag: str, ops: SonicOps) -> Steps:
    def seed(lab: Lab, t: Target) -> None:
        _sonic_patch(lab, t, ops(lab, t, _sonic_db(lab, t.device)), tag)

    def undo(lab: Lab, t: Target) -> None:
        _sonic_rollback(lab, t, tag)

    return Steps(seed=seed, undo=undo)


@dataclass(frozen=True)
class Edit:
    """One row of a SONiC patch fault: a JSON-patch ``op`` on every path ``where`` finds in the switch's
    CONFIG_DB, with ``value`` (None: the op takes none, ``remove``)."""

    op: str
    where: Where
    value: Value | None = None


def patch(*edits: Edit) -> SonicOps:
    """The ops of a fault that is a table of edits (most SONiC faults: find the rows, change them)."""

    def ops(_lab: Lab, t: Target, db: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"op": e.op, "path": path} if e.value is None else {"op": e.op, "path": path, "value": e.value(t, db)}
            for e in edits
            for path in e.where(t, db)
        ]

    return ops


def _const(value: Any) -> Value:
    return lambda _t, _db: value


def _ports_with(db: dict[str, Any], table: str, suffix: str) -> list[str]:
    return sorted(k for k in db.get(table, {}) if k.endswith(suffix))


def _dscp_path(t: Target, db: dict[str, Any]) -> list[str]:
    name = db["PORT_QOS_MAP"][next(p for p in db["PORT_QOS_MAP"] if p.startswith("Ethernet"))]["dscp_to_tc_map"]
    dscp = next(d for d, tc in db["DSCP_TO_TC_MAP"][name].items() if int(tc) == priority_of(t))
    return [f"/DSCP_TO_TC_MAP/{name}/{dscp}"]


def _wred_queues(t: Target, db: dict[str, Any]) -> list[str]:
    """The lossless priority's QUEUE rows that carry a WRED profile."""
    return [k for k in _ports_with(db, "QUEUE", f"|{priority_of(t)}") if "wred_profile" in db["QUEUE"][k]]


def _lossless_wred(t: Target, db: dict[str, Any]) -> str:
    return str(db["QUEUE"][next(iter(_wred_queues(t, db)))]["wred_profile"])


def _wred(threshold: str, value: Value) -> Edit:
    """The lossless queue's WRED ``threshold`` (min or max) set to ``value``, for every colour."""

    def where(t: Target, db: dict[str, Any]) -> list[str]:
        name = _lossless_wred(t, db)
        return [f"/WRED_PROFILE/{name}/{colour}_{threshold}_threshold" for colour in ("green", "yellow", "red")]

    return Edit("replace", where, value)


def _green_max(t: Target, db: dict[str, Any]) -> Any:
    return db["WRED_PROFILE"][_lossless_wred(t, db)]["green_max_threshold"]


def _largest_pool(_t: Target, db: dict[str, Any]) -> str:
    return str(max(int(p.get("size", 0)) for p in db["BUFFER_POOL"].values()))


def _pg(t: Target) -> str:
    return f"{port_of(t)}|{priority_of(t)}"


def _pg_on_profile(name: str, xoff: Callable[[dict[str, Any], dict[str, Any]], int]) -> tuple[Edit, Edit]:
    """The port's lossless PG moved onto a new profile ``name``: its current one with ``xoff(current, db)``."""

    def profile(t: Target, db: dict[str, Any]) -> dict[str, Any]:
        current = db["BUFFER_PROFILE"][db["BUFFER_PG"][_pg(t)]["profile"]]
        changed = {**current, "xoff": str(xoff(current, db))}
        changed["size"] = str(int(changed["xon"]) + int(changed["xoff"]))
        return changed

    return (
        Edit("add", _const([f"/BUFFER_PROFILE/{name}"]), profile),
        Edit("replace", lambda t, _db: [f"/BUFFER_PG/{_pg(t)}/profile"], _const(name)),
    )


def _quarter_xoff(current: dict[str, Any], _db: dict[str, Any]) -> int:
    return int(current["xoff"]) // 4


def _whole_pool_xoff(_current: dict[str, Any], db: dict[str, Any]) -> int:
    """Sized for a long-haul cable: the xoff alone is the whole ingress lossless pool (the PG's own rule
    is met; the port's total is not)."""
    return int(db["BUFFER_POOL"]["ingress_lossless_pool"]["size"])


def _cnp_scheduler(t: Target, db: dict[str, Any]) -> list[str]:
    key = next(k for k in _ports_with(db, "QUEUE", f"|{t.priority if t.priority is not None else 6}"))
    return [f"/SCHEDULER/{db['QUEUE'][key]['scheduler']}"]


def _watchdog_port(t: Target, _db: dict[str, Any]) -> list[str]:
    return [f"/PFC_WD/{port_of(t)}"]


def _watchdog_actions(_t: Target, db: dict[str, Any]) -> list[str]:
    return [f"/PFC_WD/{p}/action" for p in db.get("PFC_WD", {}) if p != "GLOBAL"]


# the SONiC patch faults, one row each: what they change in CONFIG_DB (``switch`` names them per fault)
dscp_map = patch(Edit("replace", _dscp_path, _const("0")))
ecn_min_eq_max = patch(_wred("min", _green_max))
ecn_max_high = patch(_wred("max", _largest_pool))
headroom_short = patch(*_pg_on_profile("pg_lossless_short_profile", _quarter_xoff))
headroom_over_pool = patch(*_pg_on_profile("pg_lossless_400000_2km_profile", _whole_pool_xoff))
cnp_dwrr = patch(Edit("replace", _cnp_scheduler, _const({"type": "DWRR", "weight": "10"})))
watchdog_stop = patch(Edit("remove", _watchdog_port))
watchdog_forward = patch(Edit("replace", _watchdog_actions, _const("forward")))


def _port_number(name: str) -> tuple[int, str]:
    digits = "".join(c for c in name if c.isdigit())
    return (int(digits) if digits else -1, name)


def lossless_classes(lab: Lab, t: Target, db: dict[str, Any]) -> list[dict[str, Any]]:
    """PFC on more priorities than the ASIC can carve headroom for, on the switch's spare port (no cable, so
    no link to be asymmetric on), with the watchdog switched on for the new priorities on every port."""
    asic = lab.connection.fabric.devices[t.device].asic
    limit = get_asic(asic).max_lossless_priorities if asic else 2
    qos = db["PORT_QOS_MAP"]
    spare = next((p for p in sorted(db["PORT"], key=_port_number) if p not in qos), None)
    if spare is None:
        raise SeedError(f"{t.device}: no spare port (every port has a PORT_QOS_MAP entry)")
    template = next(p for p in sorted(qos, key=_port_number) if p.startswith("Ethernet"))
    want = {int(x) for row in qos.values() for x in row.get("pfc_enable", "").split(",") if x}
    want.add(4 if t.priority is None else t.priority)
    for extra in (2, 4, 5, 1):
        if len(want) > limit:
            break
        want.add(extra)
    vector = ",".join(str(p) for p in sorted(want))
    ops: list[dict[str, Any]] = [
        {"op": "add", "path": f"/PORT_QOS_MAP/{spare}", "value": {**qos[template], "pfc_enable": vector}}
    ]
    if "pfcwd_sw_enable" in qos[template]:
        ops[0]["value"]["pfcwd_sw_enable"] = vector
        ops += [
            {"op": "replace", "path": f"/PORT_QOS_MAP/{p}/pfcwd_sw_enable", "value": vector}
            for p in qos
            if "pfcwd_sw_enable" in qos[p]
        ]
    if template in db.get("PFC_WD", {}):
        ops.append({"op": "add", "path": f"/PFC_WD/{spare}", "value": db["PFC_WD"][template]})
    return ops


def _watchdog_action_of_port(t: Target, _db: dict[str, Any]) -> list[str]:
    return [f"/PFC_WD/{port_of(t)}/action"]


# one port's watchdog action differs from the switch's other ports (per-port variety: drift names the port)
watchdog_forward_one_port = patch(Edit("replace", _watchdog_action_of_port, _const("forward")))
