"""A switch's load balancing (intent ``load_balancing``) as FabricState: hash fields, seed, adaptive routing."""

from __future__ import annotations

from xoff.desired.facts import Facts
from xoff.desired.models import LoadBalancing
from xoff.intent.resolved import Switch

# cables between switches: the ECMP paths adaptive routing chooses among (host ports have one path)
_FABRIC_LINKS = frozenset({"leaf_spine", "spine_super_spine"})


def build_load_balancing(facts: Facts, sw: Switch) -> LoadBalancing | None:
    lb = sw.load_balancing
    if lb is None:
        return None
    ports: list[str] = []
    if lb.adaptive_routing:
        ports = [port for link, port, *_ in facts.links_of.get(sw.name, []) if link.role in _FABRIC_LINKS]
    return LoadBalancing(
        hash_fields=list(lb.hash_fields),
        seed=lb.seed,
        seed_policy=lb.seed_policy,
        roce_qp_hash=lb.roce_qp_hash,
        adaptive_routing=lb.adaptive_routing,
        adaptive_routing_ports=sorted(ports, key=_port_key),
    )


def _port_key(name: str) -> tuple[str, int]:
    digits = "".join(c for c in name if c.isdigit())
    return name.rstrip("0123456789"), int(digits) if digits else -1
