"""The devices a change touches, the rollout ``push`` would use for them, and what stands behind each switch.

Rollout: the stages ``push`` runs for the touched devices (``push.rollout.batches``): by failure domain
(``--canary-by``, the first kind of pod, scalable unit, rack, plane the touched devices have: one whole domain as
the canary, then a batch per domain), else ``--canary 1`` (the touched switch with the fewest GPUs behind it) and
one batch for the rest. Removed devices are not pushed (nothing renders for them); they are listed as removed.
"""

from __future__ import annotations

from collections import defaultdict

from xoff.change.model import BlastRadius, DeviceChange, RolloutStage
from xoff.connect.targets import build_targets
from xoff.desired.domains import NO_DOMAIN, DomainKind, domains
from xoff.desired.models import FabricState
from xoff.push.rollout import batches

_RANK = {"leaf": 1, "spine": 2, "super_spine": 3, "superspine": 3, "core": 3}
_KINDS: tuple[DomainKind, ...] = ("pod", "su", "rack", "plane")


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


def _domain_kind(state: FabricState, names: list[str]) -> tuple[DomainKind | None, dict[str, str]]:
    """The first kind of failure domain some touched device belongs to (pod, su, rack, plane), and its labels."""
    for kind in _KINDS:
        labels = domains(state, kind)
        if {labels.get(n, NO_DOMAIN) for n in names} - {NO_DOMAIN}:
            return kind, labels
    return None, {}


def rollout(
    state: FabricState, devices: list[DeviceChange], radius: list[BlastRadius]
) -> tuple[list[RolloutStage], str | None]:
    """The stages ``xoff push --limit <touched> --canary-by KIND`` runs (``push.rollout.batches``): the first
    failure domain whole as the canary, then one batch per domain. Without domains: ``--canary 1`` with the
    touched switch that has the fewest GPUs behind it first. Devices push does not reach (IB switches) and
    removed devices are not in it."""
    touched = {d.name for d in devices if d.status != "removed"}
    targets = [t for t in build_targets(state) if t.name in touched]
    if not targets:
        return [], None
    kind, labels = _domain_kind(state, [t.name for t in targets])
    if kind is not None:
        plan = batches(targets, 0, 0, {t.name: labels.get(t.name, NO_DOMAIN) for t in targets})
        return [
            RolloutStage(
                stage="canary" if i == 0 else f"batch {i}",
                domain=labels.get(batch[0].name),
                devices=[t.name for t in batch],
            )
            for i, batch in enumerate(plan)
        ], kind
    gpus = {b.switch: b.gpus for b in radius}
    first = min(targets, key=lambda t: (t.name not in gpus, gpus.get(t.name, 0)))
    plan = batches([first, *(t for t in targets if t is not first)], 1, 0)
    return [
        RolloutStage(stage="canary" if i == 0 else f"batch {i}", devices=[t.name for t in batch])
        for i, batch in enumerate(plan)
    ], None
