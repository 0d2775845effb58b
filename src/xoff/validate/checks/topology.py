"""The shape of the fabric as planned: cables that stay inside their plane (multi-plane fabrics)."""

from __future__ import annotations

from collections.abc import Iterable

from xoff.desired.models import FabricState
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def _planes(state: FabricState) -> dict[str, int]:
    """Switch -> its plane, for the switches that have one."""
    planes: dict[str, int] = {}
    for name, dev in state.devices.items():
        if dev.kind == "switch" and dev.placement is not None and dev.placement.plane is not None:
            planes[name] = dev.placement.plane
    return planes


@register
class PlaneCrossing(Check):
    """A switch-to-switch cable whose two ends are in different planes of a multi-plane fabric (Alibaba HPN's
    dual plane, a clos3 fabric's super-spine planes): traffic hashed into one plane leaks into the other, the
    planes stop being independent failure domains, and ECMP sees paths the design said do not exist. Judged
    on the plan's cables between switches that both have a plane (written on the switch or set by the clos3
    generator); a cable with an end outside every plane (a leaf of a clos3 pod, a core switch) is not judged.
    Host NICs are not judged: a dual-ToR host has one port in each plane by design. A plane is a fact of the
    intent no collector reads, so on a snapshot the check is skipped; cabling.lldp judges the cables seen there."""

    id = "topology.planes"
    reads = ("placement.plane",)
    title = "Every switch-to-switch cable stays inside one plane"
    hint = "recable the link to a switch of the same plane, or correct the switch's plane in the intent"

    def applies(self, subject: FabricState) -> str | None:
        if len(set(_planes(subject).values())) < 2:
            return "not a multi-plane fabric: fewer than two planes among the switches"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        state = ctx.desired  # the plan's cables and planes: an intent property, judged before any cable exists
        planes = _planes(state)
        judged = 0
        for link in state.links:
            pa, pb = planes.get(link.a.device), planes.get(link.b.device)
            if pa is None or pb is None:
                continue
            judged += 1
            if pa != pb:
                yield Finding(
                    link.a.device,
                    f"{link.a.port} -> {link.b.device}:{link.b.port}",
                    "cable crosses planes",
                    f"plane {pa}",
                    f"plane {pb}",
                    port=link.a.port,
                )
        self.note = f"{judged} cable(s) between switches of a plane judged"
