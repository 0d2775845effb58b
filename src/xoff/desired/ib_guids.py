"""Port GUIDs of the host HCAs, read from FabricState.

FabricState carries a GUID for every InfiniBand switch (``Device.guid``) and the list of compute
node GUIDs on the subnet manager, but no per-HCA mapping. ``xoff.desired.builders.infiniband.hca_guids``
hands out those GUIDs from the resolved intent (``Facts``), which a renderer does not have, so this
module gives the same numbering from FabricState: every host in device order (= intent order), every
NIC on the compute network in NIC order, counting from ``HCA_GUID_BASE + 1``. A unit test proves the
two agree for every example inventory.
"""

from __future__ import annotations

from xoff.desired.builders.infiniband import HCA_GUID_BASE
from xoff.desired.models import FabricState

IB_NETWORK = "compute"  # the only network that can be InfiniBand (intent: networks.compute.kind)


def hca_port_guids(fabric: FabricState) -> dict[tuple[str, str], str]:
    """``(host, netdev) -> "0x%016x"`` port GUID for every host HCA on the InfiniBand network."""
    out: dict[tuple[str, str], str] = {}
    n = 0
    for device in fabric.devices.values():
        if device.kind != "host" or device.host is None:
            continue
        for nic in device.host.nics.values():
            if nic.network == IB_NETWORK:
                n += 1
                out[(device.name, nic.netdev)] = f"0x{HCA_GUID_BASE + n:016x}"
    return out
