"""Helpers the built-in checks share: which networks are lossless RoCE, link ends, lossless queues."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.desired.models import CongestionPlan, Device, FabricState, Interface, Qos

ROCE_MIN_NETDEV_MTU = 4192  # RoCE MTU 4096 + 96 bytes of headers (reference/lossless.md §4.3)


def roce_networks(state: FabricState) -> set[str]:
    return {n for n, p in state.networks.items() if p.kind == "roce" and p.lossless_priorities}


def needs_roce(state: FabricState) -> str | None:
    return None if roce_networks(state) else "no lossless RoCE network in this fabric"


def any_roce_networks(state: FabricState) -> set[str]:
    """Every RoCE network, lossless or not (an ecn-only network has no lossless priority)."""
    return {n for n, p in state.networks.items() if p.kind == "roce"}


def needs_any_roce(state: FabricState) -> str | None:
    """None where the fabric has a RoCE network, lossless or lossy (ecn-only), else the skip reason."""
    return None if any_roce_networks(state) else "no RoCE network in this fabric"


def profile_of(desired: FabricState, network: str | None) -> CongestionPlan | None:
    """The congestion-control profile the intent gives a network (None: not RoCE, or a plan without one)."""
    plan = desired.networks.get(network or "")
    return None if plan is None else plan.congestion_control


def device_profile(desired: FabricState, device: str) -> CongestionPlan | None:
    """The profile of the network the intent puts a device in (observed devices may not say)."""
    dev = desired.devices.get(device)
    return None if dev is None else profile_of(desired, dev.network)


def ecn_on_lossless(desired: FabricState, network: str | None) -> bool:
    """Whether the network's profile wants ECN marking on its lossless queues (dcqcn: yes; pfc-only: no)."""
    cc = profile_of(desired, network)
    return cc is None or cc.ecn


def link_ends(state: FabricState) -> Iterator[tuple[Device, Interface, Device, Interface]]:
    """Both ends of every intended link that both devices declare."""
    for link in state.links:
        a, b = state.devices.get(link.a.device), state.devices.get(link.b.device)
        if a is None or b is None:
            continue
        ia, ib = a.interfaces.get(link.a.port), b.interfaces.get(link.b.port)
        if ia is not None and ib is not None:
            yield a, ia, b, ib


def link_end_list(state: FabricState) -> list[tuple[Device, Interface, Device, Interface]]:
    """``link_ends`` as a list: what checks read through ``ctx.derive(link_end_list)``, once per run."""
    return list(link_ends(state))


def lossless_queues(qos: Qos) -> dict[int, int]:
    """Egress queue -> the lossless priority it carries."""
    return {qos.pfc_priority_to_queue.get(p, p): p for p in qos.lossless_priorities}


def first_of(values: set[int]) -> int | None:
    return min(values) if values else None


def not_judged(devices: Iterable[str], why: str) -> str | None:
    """``not judged on a, b: <why>`` for the devices a check could not judge (None when there are none)."""
    names = sorted(devices)
    return f"not judged on {', '.join(names)}: {why}" if names else None
