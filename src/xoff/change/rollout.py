"""The devices a change touches, the rollout ``push`` would use for them, and what stands behind each switch.

Rollout: one canary (the touched switch with the fewest GPUs behind it, else the first touched device), then
one batch per failure domain (``xoff.desired.domains``: the first kind of pod, scalable unit, rack, plane that
splits the touched devices), else one batch for the rest. Removed devices are not pushed (nothing renders for
them); they are listed as removed.
"""

from __future__ import annotations

from collections import defaultdict

from xoff.change.model import BlastRadius, DeviceChange, RolloutStage
from xoff.desired.models import FabricState

_RANK = {"leaf": 1, "spine": 2, "super_spine": 3, "superspine": 3, "core": 3}
_KINDS = ("pod", "su", "rack", "plane")


def _neighbours(state: FabricState) -> dict[str, set[str]]:
    adj: dict[str, set[str]] = defaultdict(set)
    for link in state.links:
        adj[link.a.device].add(link.b.device)
        adj[link.b.device].add(link.a.device)
    return adj


def _hosts_behind(state: FabricState, switch: str, adj: dict[str, set[str]]) -> set[str]:
    """Hosts cabled to the switch, or (no host of its own) to the lower-tier switches below it, recursively."""
    devices = state.devices
    seen, todo, hosts = {switch}, [switch], set()
    while todo:
        here = todo.pop()
        here_rank = _RANK.get(devices[here].role, 1)
        for peer in adj.get(here, ()):
            dev = devices.get(peer)
            if dev is None or peer in seen:
                continue
            seen.add(peer)
            if dev.kind == "host":
                hosts.add(peer)
            elif _RANK.get(dev.role, 1) < here_rank:
                todo.append(peer)
    return hosts


def blast_radius(
    state: FabricState, base: FabricState, touched: list[DeviceChange]
) -> tuple[list[BlastRadius], int, int]:
    """Per touched switch (HEAD's cabling; BASE's for a removed one): the hosts and GPUs behind it; and the
    distinct hosts and GPUs behind any of them (a host behind two touched switches counts once)."""
    out: list[BlastRadius] = []
    every: dict[str, int] = {}
    adjs = {id(state): _neighbours(state), id(base): _neighbours(base)}
    for dev in touched:
        side = base if dev.status == "removed" else state
        if dev.kind == "host" or dev.name not in side.devices:
            continue
        hosts = _hosts_behind(side, dev.name, adjs[id(side)])
        gpus = {n: h.gpus if (h := side.devices[n].host) is not None else 0 for n in hosts}
        every.update(gpus)
        out.append(BlastRadius(switch=dev.name, hosts=len(hosts), gpus=sum(gpus.values())))
    return out, len(every), sum(every.values())


def _domain_kind(state: FabricState, names: list[str]) -> tuple[str | None, dict[str, str]]:
    try:
        from xoff.desired.domains import domains  # noqa: PLC0415 - failure domains, when the planner has them
    except ImportError:  # pragma: no cover - a planner without failure domains
        return None, {}
    for kind in _KINDS:
        labels = domains(state, kind)  # type: ignore[arg-type]
        used = {labels.get(n, "-") for n in names}
        if used - {"-"}:
            return kind, labels
    return None, {}


def rollout(
    state: FabricState, devices: list[DeviceChange], radius: list[BlastRadius]
) -> tuple[list[RolloutStage], str | None]:
    """The canary and the batches for the devices HEAD changes or adds."""
    names = [d.name for d in devices if d.status != "removed"]
    if not names:
        return [], None
    gpus = {b.switch: b.gpus for b in radius}
    switches = [n for n in names if n in gpus]
    canary = min(switches, key=lambda n: (gpus[n], names.index(n))) if switches else names[0]
    rest = [n for n in names if n != canary]
    kind, labels = _domain_kind(state, names)
    stages = [RolloutStage(stage="canary", domain=labels.get(canary) if kind else None, devices=[canary])]
    if not rest:
        return stages, kind
    if kind is None:
        return [*stages, RolloutStage(stage="batch 1", devices=rest)], None
    from xoff.desired.domains import members  # noqa: PLC0415

    for i, (label, group) in enumerate(members({n: labels.get(n, "-") for n in rest}).items(), start=1):
        stages.append(RolloutStage(stage=f"batch {i}", domain=label, devices=group))
    return stages, kind
