"""containerlab: EOS runs as ``arista_ceos``.

``ethN`` is EthernetN and the underscore form ``eth1_1`` is Ethernet1/1 (containerlab's cEOS page,
"Additional interface naming considerations"); cEOS maps eth0 to Management0. The rendered
running-config is the node's startup-config.
"""

from __future__ import annotations

import re

from xoff.contracts.clab import ClabKind, ExportError


def _interfaces(ports: list[str], device: str) -> dict[str, str]:
    out = {}
    for p in ports:
        m = re.fullmatch(r"Ethernet(\d+(?:/\d+)*)", p)
        if m is None:
            raise ExportError(f"{device}: {p}: cEOS front-panel ports are Ethernet<n>[/<m>...]")
        out[p] = "eth" + m.group(1).replace("/", "_")
    return out


KIND = ClabKind(
    kind="arista_ceos",
    image="ceos:4.32.0F",
    interfaces=_interfaces,
    startup=lambda cfg: {"startup-config": f"{cfg}/running-config"},
    header="eos -> arista_ceos, EthernetA/B = ethA_B (cEOS maps eth0 to Management0; the intent says Management1)",
)
