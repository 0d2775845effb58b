"""Congestion-control profiles of a QoS policy: which of PFC, ECN/CNP and the NIC's DCQCN a fabric runs.

``dcqcn`` is PFC + ECN + CNP with DCQCN on the NICs (NVIDIA's and SONiC's RoCE default); ``pfc-only`` is PFC with no
ECN marking and the NIC's DCQCN off, congestion left to the collective library (Meta, SIGCOMM 2024); ``ecn-only`` is
lossy RoCE: no PFC, ECN and CNP on, the NIC's DCQCN on; ``custom`` picks each knob (docs/designs.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Self

from pydantic import Field, model_validator

from xoff.intent.base import IntentModel

Profile = Literal["dcqcn", "pfc-only", "ecn-only", "custom"]
KNOBS = ("pfc", "ecn", "nic_dcqcn", "pfc_watchdog")


@dataclass(frozen=True)
class Knobs:
    """What a profile turns on: PFC on the lossless classes, ECN marking on the RoCE queue, the NICs' DCQCN
    (notification and reaction point) on the RoCE priority, the PFC watchdog."""

    pfc: bool
    ecn: bool
    nic_dcqcn: bool
    pfc_watchdog: bool


# NVIDIA's RoCE default (ConnectX DCQCN on, Cumulus `nv set qos roce` mode lossless, SONiC's stock qos): the yardstick
# the plan names departures from.
VENDOR_DEFAULT = Knobs(pfc=True, ecn=True, nic_dcqcn=True, pfc_watchdog=True)
PROFILES: dict[str, Knobs] = {
    "dcqcn": VENDOR_DEFAULT,
    "pfc-only": Knobs(pfc=True, ecn=False, nic_dcqcn=False, pfc_watchdog=True),
    "ecn-only": Knobs(pfc=False, ecn=True, nic_dcqcn=True, pfc_watchdog=False),
}
_WHAT = {
    "pfc": "PFC on the lossless classes",
    "ecn": "ECN marking on the RoCE queue",
    "nic_dcqcn": "DCQCN (ECN notification and reaction point) on the NICs",
    "pfc_watchdog": "the PFC watchdog",
}


class CongestionControl(IntentModel):
    """The policy's congestion-control profile; ``custom`` takes every knob, the named profiles none."""

    profile: Profile = Field(
        default="dcqcn",
        description="dcqcn (PFC + ECN + CNP, DCQCN on the NICs), pfc-only (PFC, no ECN, NIC DCQCN off), ecn-only "
        "(lossy RoCE: no PFC, ECN + CNP, NIC DCQCN on), or custom (every knob given)",
        examples=["pfc-only"],
    )
    pfc: bool | None = Field(default=None, description="custom: PFC on the lossless classes", examples=[True])
    ecn: bool | None = Field(default=None, description="custom: ECN marking on the RoCE queue", examples=[False])
    nic_dcqcn: bool | None = Field(
        default=None, description="custom: the NICs' DCQCN notification and reaction point on", examples=[False]
    )
    pfc_watchdog: bool | None = Field(default=None, description="custom: the PFC watchdog on", examples=[True])

    @model_validator(mode="after")
    def _knobs_match_profile(self) -> Self:
        given = [k for k in KNOBS if getattr(self, k) is not None]
        if self.profile != "custom" and given:
            raise ValueError(
                f"profile {self.profile} sets {', '.join(given)} itself (allowed: profile custom to pick knobs)"
            )
        missing = [k for k in KNOBS if getattr(self, k) is None]
        if self.profile == "custom" and missing:
            raise ValueError(f"profile custom needs every knob; {', '.join(missing)} missing (allowed: true or false)")
        return self

    @property
    def knobs(self) -> Knobs:
        if self.profile != "custom":
            return PROFILES[self.profile]
        return Knobs(
            pfc=bool(self.pfc), ecn=bool(self.ecn), nic_dcqcn=bool(self.nic_dcqcn), pfc_watchdog=bool(self.pfc_watchdog)
        )


def departures(knobs: Knobs) -> list[str]:
    """Where the knobs depart from the vendor default (NVIDIA's RoCE default), one sentence each."""
    out = []
    for name in KNOBS:
        mine, default = getattr(knobs, name), getattr(VENDOR_DEFAULT, name)
        if mine != default:
            out.append(f"{_WHAT[name]} {'on' if mine else 'off'} (vendor default: {'on' if default else 'off'})")
    return out
