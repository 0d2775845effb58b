"""containerlab: Cumulus Linux runs as ``nvidia_cumulusvx``.

containerlab's ``cvx``/``cumulus_cvx`` container kind is no longer in its schema and is unmaintained
(docs/manual/kinds/nvidia_cumulusvx.md). VX maps ``swpN`` 1:1 and has no breakout ports, so a switch
whose ports are not all ``swpN`` gets swp1, swp2, ... in port order. The vrnetlab image applies
``/config/startup.yaml`` (NVUE) at boot.
"""

from __future__ import annotations

import re

from xoff.contracts.clab import ClabKind


def _interfaces(ports: list[str], _device: str) -> dict[str, str]:
    plain = all(re.fullmatch(r"swp\d+", p) for p in ports)
    return {p: p if plain else f"swp{n}" for n, p in enumerate(ports, start=1)}


KIND = ClabKind(
    kind="nvidia_cumulusvx",
    image="vrnetlab/nvidia_cumulus-vx:5.16.1",
    interfaces=_interfaces,
    startup=lambda cfg: {"binds": [f"{cfg}/startup.yaml:/config/startup.yaml"]},
    header="cumulus -> nvidia_cumulusvx, swpN",
)
