"""The parts of a change report that compare the two sides: devices, rendered files, pre-change findings,
PFC deadlock risk, headroom and pool margins, lossless DSCPs. Each side is planned once (``Loaded``)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from xoff.change.model import (
    DeadlockDelta,
    DeadlockSide,
    DeviceChange,
    FindingKey,
    Findings,
    MarginDelta,
    Risk,
)
from xoff.change.semantic import device_changes
from xoff.desired.models import Device, FabricState
from xoff.validate.model import CheckResult, Status


def device_diffs(base: FabricState, head: FabricState) -> list[DeviceChange]:
    """Devices added, removed and changed (semantically), in HEAD's order then BASE's removed ones."""
    out: list[DeviceChange] = []
    for name, dev in head.devices.items():
        old = base.devices.get(name)
        if old is None:
            out.append(DeviceChange(name=name, kind=dev.kind, platform=dev.platform, status="added"))
        elif old != dev:
            changes = device_changes(old, dev)
            if changes:
                out.append(
                    DeviceChange(name=name, kind=dev.kind, platform=dev.platform, status="changed", changes=changes)
                )
    out.extend(
        DeviceChange(name=name, kind=dev.kind, platform=dev.platform, status="removed")
        for name, dev in base.devices.items()
        if name not in head.devices
    )
    return out


def _rendered(state: FabricState, names: list[str]) -> dict[str, dict[str, str]]:
    from xoff.render import render_fabric  # noqa: PLC0415

    present = [n for n in names if n in state.devices]
    files: dict[str, dict[str, str]] = {}
    if present:
        for f in render_fabric(state, present):
            files.setdefault(f.device, {})[f.name] = f.content
    return files


def with_config_diffs(
    base: FabricState, head: FabricState, devices: list[DeviceChange], limit: int | None = None
) -> list[DeviceChange]:
    """Each device's unified diff of xoff's rendered files, BASE -> HEAD, rendered for the touched devices only,
    and for the first ``limit`` of them (None: all; the rest keep their semantic changes and an empty diff)."""
    names = [d.name for d in devices][:limit]
    old, new = _rendered(base, names), _rendered(head, names)
    out: list[DeviceChange] = list(devices[len(names) :])
    for dev in reversed(devices[: len(names)]):
        before, after = old.get(dev.name, {}), new.get(dev.name, {})
        chunks: list[str] = []
        for fname in sorted(before.keys() | after.keys()):
            path = f"{dev.name}/{fname}"
            chunks.extend(
                difflib.unified_diff(
                    before.get(fname, "").splitlines(keepends=True),
                    after.get(fname, "").splitlines(keepends=True),
                    f"a/{path}",
                    f"b/{path}",
                )
            )
        out.insert(0, dev.model_copy(update={"config_diff": "".join(chunks)}))
    return out


def _keys(results: list[CheckResult], side: str, not_run: list[str]) -> dict[tuple[str, str, str], FindingKey]:
    keys: dict[tuple[str, str, str], FindingKey] = {}
    for r in results:
        if r.status is Status.ERROR:
            not_run.append(f"{r.id} ({side}): {r.message}")
            keys[(r.id, "-", "check could not run")] = FindingKey(
                check=r.id, device="-", subject="check could not run", message=r.message or "", blocking=True
            )
        if r.status is not Status.FAILURE:
            continue
        for f in r.findings:
            keys[(r.id, f.device, f.object)] = FindingKey(
                check=r.id, device=f.device, subject=f.object, message=str(f), blocking=r.blocking
            )
    return keys


def findings_delta(base: list[CheckResult], head: list[CheckResult]) -> Findings:
    """Findings keyed by check id + device + subject: added (HEAD only), resolved (BASE only), kept (both, HEAD's text)."""
    not_run: list[str] = []
    old, new = _keys(base, "BASE", not_run), _keys(head, "HEAD", not_run)
    return Findings(
        added=[v for k, v in new.items() if k not in old],
        resolved=[v for k, v in old.items() if k not in new],
        kept=[v for k, v in new.items() if k in old],
        not_run=not_run,
    )


def _roce_networks(state: FabricState) -> list[str]:
    from xoff.deadlock.index_state import roce_networks  # noqa: PLC0415

    with_switches = {d.network for d in state.devices.values() if d.kind == "switch"}
    return [n for n in roce_networks(state) if n in with_switches]


def _deadlock_side(state: FabricState, network: str, failures: int) -> DeadlockSide | None:
    from xoff.deadlock.failures import sweep  # noqa: PLC0415

    if network not in _roce_networks(state):
        return None
    report = sweep(state, routing="bgp", max_failures=failures, network=network)
    cycle = report.baseline.cycles[0] if report.baseline.deadlock_risk else None
    if cycle is None and report.risky:
        cycle = report.risky[0].result.cycles[0]
    witness = None
    if cycle is not None:
        steps = cycle.steps
        witness = " -> ".join([s.switch for s in steps] + [steps[0].switch])
    return DeadlockSide(
        baseline=report.baseline.deadlock_risk,
        single_failures=[", ".join(s.failed) for s in report.risky],
        witness=witness,
    )


def _deadlock_inputs(state: FabricState, network: str) -> tuple[object, ...]:
    """What the deadlock analysis of ``network`` reads (``deadlock.index_state``): the network's kind and lossless
    priorities, the links, and per device its identity, interfaces, BGP, static routes and host NICs' PFC flags and
    addresses. Equal on both sides: the same answer, computed once (a QoS-only change at 10k GPUs sweeps once)."""
    devices = tuple(
        (
            d.name,
            d.kind,
            d.role,
            d.network,
            d.interfaces,
            d.bgp,
            d.static_routes,
            {n: (nic.pfc, nic.address) for n, nic in d.host.nics.items()} if d.host is not None else None,
        )
        for d in state.devices.values()
    )
    plan = state.networks.get(network)
    return ((plan.kind, plan.lossless_priorities) if plan is not None else None, state.links, devices)


def deadlock_delta(base: FabricState, head: FabricState, failures: int) -> list[DeadlockDelta]:
    """PFC deadlock risk per lossless RoCE network, BASE and HEAD, at baseline and after single link failures
    (``failures`` 1; 0: baseline only), with the intent's routing model (eBGP) and static routes."""
    out: list[DeadlockDelta] = []
    for n in dict.fromkeys([*_roce_networks(base), *_roce_networks(head)]):
        before = _deadlock_side(base, n, failures)
        same = _deadlock_inputs(base, n) == _deadlock_inputs(head, n)
        after = before if same else _deadlock_side(head, n, failures)
        out.append(DeadlockDelta(network=n, failures_checked=failures, before=before, after=after))
    return out


def _delta(device: str, before: dict[str, int | None], after: dict[str, int | None]) -> Iterable[MarginDelta]:
    for subject in sorted(before.keys() | after.keys()):
        old, new = before.get(subject), after.get(subject)
        if old != new:
            yield MarginDelta(device=device, subject=subject, before=old, after=new)


def _headroom_figures(dev: Device | None) -> dict[str, int | None]:
    """Per port: the headroom its lossless PGs reserve; and where the ASIC reserves a PG's size as xon + xoff
    (Mellanox; not Broadcom's shared headroom), per lossless PG its margin, size - (xon + xoff): below 0 the PG
    cannot hold what arrives after it sends PAUSE."""
    from xoff.buffers.catalogue import switch_asic  # noqa: PLC0415

    buffers = dev.buffers if dev is not None else None
    if dev is None or buffers is None:
        return {}
    figures: dict[str, int | None] = dict(buffers.port_headroom_bytes)
    if dev.asic is None or not switch_asic(dev.asic, buffers.sku).size_is_xon_plus_xoff:
        return figures
    for port, pgs in buffers.port_priority_groups.items():
        for key, name in pgs.items():
            profile = buffers.profiles.get(name)
            if profile is not None:
                figures[f"{port} PG {key} margin: size - (xon + xoff)"] = profile.size - profile.xon - profile.xoff
    return figures


def headroom_delta(base: FabricState, head: FabricState, names: list[str]) -> list[MarginDelta]:
    """Per port of each touched switch: the headroom its lossless PGs reserve and each lossless PG's margin
    (bytes), where they differ."""
    out: list[MarginDelta] = []
    for name in names:
        out.extend(_delta(name, _headroom_figures(base.devices.get(name)), _headroom_figures(head.devices.get(name))))
    return out


def _pool_figures(dev: Device | None) -> dict[str, int | None]:
    from xoff.validate.checks.pools import device_fit, switch_total  # noqa: PLC0415

    if dev is None or dev.buffers is None:
        return {}
    figures: dict[str, int | None] = {f"pool {p.name}": p.size for p in dev.buffers.pools}
    total = switch_total(dev)
    fit = None if total is None else device_fit(dev, total.bytes, total.accounting)
    if fit is not None:
        figures["margin (total buffer - pools)"] = fit.margin
    return figures


def pool_delta(base: FabricState, head: FabricState, names: list[str]) -> list[MarginDelta]:
    """Per touched switch: its pools' sizes and the margin left in the SKU's total buffer, where they differ."""
    out: list[MarginDelta] = []
    for name in names:
        out.extend(_delta(name, _pool_figures(base.devices.get(name)), _pool_figures(head.devices.get(name))))
    return out


def lossless_dscps(state: FabricState) -> dict[str, dict[int, tuple[str, int]]]:
    """Network -> lossless DSCP -> (the class carrying it, its priority), from the network's switches' QoS plans."""
    out: dict[str, dict[int, tuple[str, int]]] = {}
    for dev in state.devices.values():
        if dev.kind != "switch" or dev.qos is None or dev.network is None:
            continue
        seen = out.setdefault(dev.network, {})
        for cls in dev.qos.classes:
            if cls.lossless:
                seen.update(dict.fromkeys(cls.dscp, (cls.name, cls.priority)))
    return out


def _class_of(state: FabricState, network: str, dscp: int) -> str:
    for dev in state.devices.values():
        if dev.kind == "switch" and dev.network == network and dev.qos is not None:
            for cls in dev.qos.classes:
                if dscp in cls.dscp:
                    return f"class {cls.name}, priority {cls.priority}, {'lossless' if cls.lossless else 'lossy'}"
            tc = dev.qos.dscp_to_tc.get(dscp)
            return f"the default class (traffic class {tc}), lossy"
    return "no switch of the network"


def _dscp_risk(network: str, dscp: int, was: tuple[str, int], now: str) -> Risk:
    return Risk(
        kind="lossless_dscp",
        cause=(
            f"network {network}: DSCP {dscp} moved off the lossless class {was[0]} (priority {was[1]}) (now {now}): "
            f"traffic still marked DSCP {dscp} (hosts not yet pushed during the rollout, NCCL_IB_TC or applications "
            "setting their own TOS) "
            + ("loses PFC and drops under congestion" if "lossy" in now else "is paused on the old priority")
        ),
    )


def dscp_risks(base: FabricState, head: FabricState) -> list[Risk]:
    """A DSCP that was lossless on a network and is not any more, or is on another lossless priority: senders that
    still mark it (hosts not yet pushed while the rollout runs, applications that set their own traffic class)
    lose PFC protection, or are paused on a priority the pushed devices no longer treat as theirs."""
    old, new = lossless_dscps(base), lossless_dscps(head)
    risks: list[Risk] = []
    for network, dscps in old.items():
        if network not in new:
            continue
        for dscp, was in sorted(dscps.items()):
            if new[network].get(dscp, (None, was[1]))[1] != was[1] or dscp not in new[network]:
                risks.append(_dscp_risk(network, dscp, was, _class_of(head, network, dscp)))
    return risks
