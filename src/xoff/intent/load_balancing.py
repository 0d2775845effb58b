"""The ``load_balancing:`` block of a switch (inherited defaults.switch -> roles.<role> -> switch, as a whole).

ECMP hash fields and seed, RoCE hashing on the destination queue pair, and adaptive routing. Which of
these a platform can render is its ``Platform.load_balancing`` record (``xoff.platforms.load_balancing``);
what it cannot is refused at load time with one located line. The numbers and their sources are in
``docs/designs.md`` ("Load balancing").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from xoff.intent.base import IntentModel
from xoff.intent.types import in_range, schema_range

# The packet fields an ECMP hash can take, in xoff's neutral spelling (each platform maps its own names).
HashField = Literal["src-ip", "dst-ip", "ip-protocol", "l4-src-port", "l4-dst-port", "flow-label", "ingress-port"]
DEFAULT_HASH_FIELDS: tuple[HashField, ...] = ("src-ip", "dst-ip", "ip-protocol", "l4-src-port", "l4-dst-port")
MAX_SEED = 4294967295  # a 32-bit seed (Cumulus ecmp_hash_seed: 0..4294967295)
Seed = Annotated[int, in_range(0, MAX_SEED, "hash seed"), schema_range(0, MAX_SEED)]


class LoadBalancing(IntentModel):
    """How a switch spreads flows over equal-cost paths."""

    hash_fields: list[HashField] = Field(
        default_factory=lambda: list(DEFAULT_HASH_FIELDS),
        min_length=1,
        description="packet fields the ECMP hash takes (default the 5-tuple); RoCEv2's UDP source port carries"
        " the flow's entropy, so keep l4-src-port",
        examples=[["src-ip", "dst-ip", "l4-src-port", "l4-dst-port"]],
    )
    seed: Seed | None = Field(
        default=None,
        description="ECMP hash seed; unset leaves the NOS's own (often per-switch random) seed",
        examples=[42],
    )
    seed_policy: Literal["same", "per-tier"] = Field(
        default="same",
        description="same: every switch of a role has the same seed; per-tier: also each tier (role) of a network"
        " a seed of its own, against hash polarisation (lb.seed_per_tier checks it)",
        examples=["per-tier"],
    )
    roce_qp_hash: bool = Field(
        default=False,
        description="hash RoCEv2 on the destination queue pair (BTH dest QP, a UDF hash) where the platform"
        " can, as Meta's E-ECMP does",
        examples=[True],
    )
    adaptive_routing: bool = Field(
        default=False,
        description="adaptive routing (NVIDIA Spectrum-X) on the switch and its fabric ports; the hosts' NICs"
        " must then accept out-of-order RoCE (host_profiles.<p>.roce_adaptive_routing)",
        examples=[True],
    )

    @field_validator("hash_fields")
    @classmethod
    def _unique(cls, value: list[HashField]) -> list[HashField]:
        twice = sorted({f for f in value if value.count(f) > 1})
        if twice:
            raise ValueError(f"hash field(s) {', '.join(twice)} listed twice (allowed: each field once)")
        return value
