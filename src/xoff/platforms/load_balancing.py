"""What load balancing a platform can render (``Platform.load_balancing``), and the refusal of the rest.

The intent's ``load_balancing:`` block is neutral; each switch platform says here which hash fields it
can name, whether it can set a seed, hash on the RoCE destination queue pair, and run adaptive routing.
``refusals`` turns what a platform cannot do into one line per field, so the loader refuses it with
the place it is written (never a silent drop). Sources per platform are in its package docstring and
in ``docs/designs.md`` ("Load balancing").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the platform records are read while the intent models are built: no import at run time
    from xoff.intent.load_balancing import LoadBalancing


@dataclass(frozen=True)
class LoadBalancingSupport:
    hash_fields: frozenset[str]  # the neutral field names (xoff.intent.load_balancing.HashField) it renders
    seed: bool = False
    roce_qp_hash: bool = False
    adaptive_routing: bool = False
    why_not: str = ""  # one phrase: where the platform's knobs come from, shown in a refusal


def refusals(lb: LoadBalancing, support: LoadBalancingSupport | None, platform: str) -> list[tuple[str, str]]:
    """(field, message) for each part of ``lb`` the platform cannot render; [] when it renders all."""
    if support is None:
        return [("", f"platform {platform} renders no load balancing (allowed: remove load_balancing)")]
    out: list[tuple[str, str]] = []
    missing = [f for f in lb.hash_fields if f not in support.hash_fields]
    if missing:
        allowed = ", ".join(sorted(support.hash_fields))
        out.append(("hash_fields", f"{platform} cannot hash on {', '.join(missing)} (allowed: {allowed})"))
    for name in ("seed", "roce_qp_hash", "adaptive_routing"):
        value = getattr(lb, name)
        if value not in (None, False) and not getattr(support, name):
            out.append((name, f"{platform} cannot render {name} ({support.why_not}) (allowed: remove {name})"))
    return out
