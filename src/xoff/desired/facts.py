"""Fabric-wide facts, computed once before any device is built (pyavd's two-phase pattern)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from xoff.desired.models import Link as StateLink
from xoff.desired.models import Peer, Planned
from xoff.errors import InputError, Problem
from xoff.intent.networks import RoceNetwork
from xoff.intent.qos import QosPolicy
from xoff.intent.resolved import Intent, Link, dotted_quad

# Per-network fallback ASN plans (RFC 7938 style, private ranges), used where the intent gives none.
DEFAULT_ASN_PLANS = {
    "compute": {"super_spine": 65000, "spine": 65100, "leaf": 4200000001},
    "storage": {"super_spine": 65500, "spine": 65600, "leaf": 4201000001},
}
_PEER = Planned(Peer, "device", "port")
_CABLE = Planned(StateLink, "a", "b", "speed_mbps", "cable_m", "role", "network")

T = TypeVar("T")
_OCTETS = tuple(str(n) for n in range(256))


class _Quads:
    """The dotted quads of /31s (even, even + 1), each /24's first three octets formatted once: a 100k-GPU plan's
    600,000 addresses lie in ~2,400 of them, and a string join costs half of ``dotted_quad``."""

    def __init__(self) -> None:
        self._24: dict[int, str] = {}

    def pair(self, even: int) -> tuple[str, str]:
        head = self._24.get(even >> 8)
        if head is None:
            head = self._24[even >> 8] = dotted_quad(even & ~0xFF)[:-1]  # "a.b.c."
        low = even & 0xFF
        return head + _OCTETS[low], head + _OCTETS[low + 1]


# One cable end of a device: the link, this end's port, the other end, that end as the Peer the plan holds (one object
# for the link and the interface across from it), and the end's addresses as the plan writes them (its a.b.c.d/31, the
# other end's a.b.c.d, the link's /31: Link.address_texts, once) or None when the link is not addressed.
CableEnd = tuple[Link, str, tuple[str, str], Peer, tuple[str, str, str] | None]


@dataclass
class Facts:
    intent: Intent
    links_of: dict[str, list[CableEnd]] = field(default_factory=dict)  # each device's cable ends, in link order
    asn: dict[str, int] = field(default_factory=dict)
    policies: dict[str, QosPolicy] = field(default_factory=dict)  # network name -> its policy
    cables: list[StateLink] = field(default_factory=list)  # FabricState.links, built in the same pass as the ends
    # values devices that are alike share (a 100k fabric's hosts have one NCCL env, one DSCP map): see ``shared``
    _shared: dict[Hashable, Any] = field(default_factory=dict)

    def policy_for(self, network: str | None) -> QosPolicy | None:
        return self.policies.get(network or "")

    def shared(self, key: Hashable, make: Callable[[], T]) -> T:
        """One object per ``key`` for the whole plan: the state models are frozen, so devices whose part is
        equal hold the same object (memory at 100k GPUs; the JSON and equality are the same)."""
        try:
            return self._shared[key]  # type: ignore[no-any-return]
        except KeyError:
            value = self._shared[key] = make()
            return value


def build_facts(intent: Intent) -> Facts:
    facts = Facts(intent)
    links_of: dict[str, list[CableEnd]] = defaultdict(list)
    peer, cables, cable = _PEER.of, facts.cables, _CABLE.of
    texts = _Quads()
    for link in intent.links:  # one pass over 304,800 links at 100,000 GPUs
        a, b = link.a, link.b
        at_a = at_b = None
        if link.p2p is not None:  # the a end has the even address
            even, odd = texts.pair(link.p2p)
            network = even + "/31"
            at_a, at_b = (network, odd, network), (odd + "/31", even, network)
        peer_a, peer_b = peer({"device": a[0], "port": a[1]}), peer({"device": b[0], "port": b[1]})
        links_of[a[0]].append((link, a[1], b, peer_b, at_a))
        links_of[b[0]].append((link, b[1], a, peer_a, at_b))
        cables.append(
            cable(
                {
                    "a": peer_a,
                    "b": peer_b,
                    "speed_mbps": link.speed,
                    "cable_m": link.length,
                    "role": link.role,
                    "network": link.network,
                }
            )
        )
    facts.links_of = dict(links_of)
    doc = intent.document
    for name in ("compute", "storage"):
        net = getattr(doc.networks, name)
        if isinstance(net, RoceNetwork):
            facts.policies[name] = doc.qos_policies[net.qos_policy]
    facts.asn = _plan_asns(intent)
    return facts


def _plan_asns(intent: Intent) -> dict[str, int]:
    """RFC 7938: super-spines share one ASN, the spines of a pod share one, every leaf has its own."""
    doc = intent.document
    out: dict[str, int] = {}
    leaf_index: dict[str, int] = defaultdict(int)
    for sw in intent.switches.values():
        if sw.asn is not None:
            out[sw.name] = sw.asn
            continue
        net = getattr(doc.networks, sw.network)
        plan = dict(DEFAULT_ASN_PLANS[sw.network])
        if isinstance(net, RoceNetwork):
            given = net.underlay.asn_plan.model_dump(exclude_none=True)
            plan.update(given)
        if sw.role == "super-spine":
            out[sw.name] = plan["super_spine"]
        elif sw.role == "spine":
            out[sw.name] = plan["spine"] + (sw.pod or 1) - 1
        else:
            out[sw.name] = plan["leaf"] + leaf_index[sw.network]
            leaf_index[sw.network] += 1
    _check_asn_plan(intent, out)
    return out


def _check_asn_plan(intent: Intent, asns: dict[str, int]) -> None:
    """A planned leaf ASN must not collide with another device's (e.g. a leaf range running into spines)."""
    owners: dict[int, list[str]] = defaultdict(list)
    for name, asn in asns.items():
        owners[asn].append(name)
    problems = []
    for asn, names in owners.items():
        roles = {intent.switches[n].role for n in names}
        pods = {intent.switches[n].pod for n in names}
        networks = {intent.switches[n].network for n in names}
        if len(names) > 1 and ("leaf" in roles or len(roles) > 1 or len(pods) > 1 or len(networks) > 1):
            net = intent.switches[names[0]].network
            problems.append(
                Problem(
                    None,
                    f"networks.{net}.underlay.asn_plan",
                    f"the plan gives ASN {asn} to {', '.join(names[:4])}"
                    " (allowed: ASN ranges that do not overlap: unique per leaf, per pod's spines, per super-spine tier)",
                )
            )
    if problems:
        raise InputError(problems)
