"""What an NVUE configuration holds that xoff does not model, by path: ``service``, ``system.aaa``,
``interface.*.bridge``, ... -> how many times it occurs (identifiers folded into ``*``).

``MODELLED`` is the part of NVUE's object model the Cumulus collector reads (``parse.py``,
``config_read.py``); everything beside it in a real switch's configuration is kept as a name and a
count (``DeviceObservation.unmodelled``), never a reason to refuse the switch. ``True`` marks a leaf or a
whole subtree read; ``"*"`` stands for any identifier (a port, a profile, a priority).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

_PROFILE_REF: dict[str, Any] = {"profile": True}
_INTERFACE: dict[str, Any] = {
    "type": True,
    "link": {"state": True, "speed": True, "mtu": True, "breakout": True},
    "ip": {"address": True, "vrf": True},
    "qos": {
        "pfc": _PROFILE_REF,
        "pfc-watchdog": {"state": True},
        "mapping": _PROFILE_REF,
        "egress-scheduler": _PROFILE_REF,
        "congestion-control": _PROFILE_REF,
    },
}
MODELLED: dict[str, Any] = {
    "system": {"hostname": True},
    # the management port is not read (provisioned out of band): its VRF (mgmt) stays unmodelled
    "interface": {"*": _INTERFACE, "eth0": {**_INTERFACE, "ip": {"address": True}}},
    "qos": {
        "pfc": {"*": {"switch-priority": True, "cable-length": True}},
        "pfc-watchdog": {"polling-interval": True, "robustness": True},
        "mapping": {"*": {"trust": True, "dscp": True}},
        "egress-queue-mapping": {"default-global": {"switch-priority": True}},
        "congestion-control": {"*": {"traffic-class": True}},
        "egress-scheduler": {"*": {"traffic-class": True}},
        "roce": True,  # read only to say the lossless plan is NVUE's RoCE mode (config_read.py)
    },
    "router": {"bgp": {"autonomous-system": True, "router-id": True}},
    "vrf": {
        "*": {"evpn": {"vni": True}},  # a tenant VRF's L3 VNI (config_read.py); its other settings are not read
        "default": {
            "router": {
                "bgp": {
                    "neighbor": True,
                    "address-family": {"ipv4-unicast": {"network": True, "multipaths": {"ebgp": True}}},
                },
                "static": True,
            }
        },
    },
}


def unmodelled(tree: Any, spec: Any = None, path: str = "", into: Counter[str] | None = None) -> dict[str, int]:
    """Every path of ``tree`` outside ``spec`` (``MODELLED``), with how often it occurs."""
    spec = MODELLED if spec is None else spec
    found: Counter[str] = Counter() if into is None else into
    if spec is True or not isinstance(tree, dict):
        return dict(found)
    for key, value in tree.items():
        inner = spec.get(key, spec.get("*"))
        name = f"{path}.{'*' if key not in spec and '*' in spec else key}".lstrip(".")
        if inner is None:
            found[name] += 1
        else:
            unmodelled(value, inner, name, found)
    return dict(sorted(found.items()))
