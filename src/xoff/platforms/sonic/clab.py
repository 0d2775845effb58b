"""containerlab: SONiC runs as ``sonic-vs``.

docker-sonic-vs maps ``ethN`` to a front-panel port by its HwSKU's lanemap: the default
Force10-S6000 one puts eth1 on Ethernet0, eth2 on Ethernet4, ... so ``EthernetK`` is ``eth(K/4+1)``
and keeps its name inside the container; K must be a multiple of 4 (32 ports). The image loads
``/etc/sonic/config_db.json`` at boot, and FRR reads ``/etc/frr/frr.conf``.
"""

from __future__ import annotations

import re

from xoff.contracts.clab import ClabKind, ExportError
from xoff.desired.models import Device

VS_PORTS = 32


def _interfaces(ports: list[str], device: str) -> dict[str, str]:
    out = {}
    for p in ports:
        m = re.fullmatch(r"Ethernet(\d+)", p)
        if m is None or int(m.group(1)) % 4:
            raise ExportError(
                f"{device}: {p}: sonic-vs names ports Ethernet<4k> (eth<k+1>), so {p} has no eth interface"
            )
        out[p] = f"eth{int(m.group(1)) // 4 + 1}"
    return out


def _notes(device: Device, renamed: dict[str, str]) -> list[str]:
    if any(int(c[3:]) > VS_PORTS for c in renamed.values()):
        return [
            f"{device.name}: docker-sonic-vs's default HwSKU (Force10-S6000) has eth1-eth{VS_PORTS} only; an image"
            f" built for {device.hwsku} maps eth interfaces by its own lanemap"
        ]
    return []


KIND = ClabKind(
    kind="sonic-vs",
    image="docker-sonic-vs:latest",
    interfaces=_interfaces,
    startup=lambda cfg: {
        "binds": [f"{cfg}/config_db.json:/etc/sonic/config_db.json", f"{cfg}/frr.conf:/etc/frr/frr.conf"]
    },
    header="sonic -> sonic-vs, EthernetK = eth(K/4+1) (docker-sonic-vs lanemap)",
    notes=_notes,
)
