"""An AVD ``eos_cli_config_gen`` structured config for an EOS switch, built from FabricState in test code.

Written independently of ``xoff.platforms.eos`` (nothing is imported from it), so rendering it with
pyavd's ``get_device_config`` gives an outside opinion of what xoff's running-config should say.
Also used by ``bench/render_eos_vs_pyavd.py`` to time pyavd on the same devices.

Where AVD and xoff place things differently (AVD 6.4's schema has tx-queue scheduling and the per-port
PFC watchdog only under ``qos_profiles``), this builder uses AVD's own way: one ``qos profile`` per QoS
policy, applied with ``service-profile`` on every cabled port. ``inline_service_profiles`` then turns
AVD's text into the per-interface form EOS applies (a qos profile is a set of interface commands).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from xoff.desired.models import Device, FabricState

PROFILE_LINE = re.compile(r"^   service-profile (\S+)$")


def _seconds(ms: int) -> str:
    return format((Decimal(ms) / 1000).normalize(), "f")


def _speed(name: str, mbps: int | None) -> str | None:
    """The EOS ports of the examples are ``EthernetN/1``, each alone in an 8-lane OSFP cage of a
    7060X6 (Tomahawk 5), so a 400G port runs on all eight lanes: AVD's valid value ``400g-8``."""
    if mbps is None:
        return None
    assert re.fullmatch(r"Ethernet\d+/1", name), f"{name}: this helper knows only EthernetN/1 ports"
    return f"{mbps // 1000}g-8"


def _dscp_map(device: Device) -> list[str]:
    assert device.qos is not None
    by_tc: dict[int, list[str]] = {}
    for dscp in range(64):
        by_tc.setdefault(device.qos.dscp_to_tc[dscp], []).append(str(dscp))
    return [f"{' '.join(dscps)} to traffic-class {tc}" for tc, dscps in by_tc.items()]


def qos_profile(device: Device) -> dict[str, Any]:
    """Trust, PFC and the watchdog, and per queue: scheduling and ECN; named after the QoS policy."""
    qos = device.qos
    assert qos is not None
    queues: list[dict[str, Any]] = []
    for q in sorted(set(qos.schedulers) | set(qos.ecn)):
        entry: dict[str, Any] = {"id": q}
        sched = qos.schedulers.get(q)
        if sched is not None:
            entry["priority"] = "priority strict" if sched.type == "strict" else "no priority"
            if sched.type == "dwrr":
                entry["bandwidth_percent"] = sched.weight
        if q in qos.ecn:
            e = qos.ecn[q]
            entry["random_detect"] = {
                "ecn": {
                    "threshold": {
                        "units": "bytes",
                        "min": e.min_threshold,
                        "max": e.max_threshold,
                        "max_probability": e.probability,
                    }
                }
            }
        queues.append(entry)
    weights = [s.weight for s in qos.schedulers.values() if s.type == "dwrr"]
    assert sum(w or 0 for w in weights) == 100, "the examples' DWRR weights are already percentages"
    return {
        "name": qos.policy,
        "trust": qos.trust.replace("pcp", "cos"),
        "priority_flow_control": {
            "enabled": True,
            "priorities": [{"priority": p, "no_drop": True} for p in qos.lossless_priorities],
            "watchdog": {"enabled": device.pfc_watchdog is not None},
        },
        "tx_queues": queues,
    }


def ethernet_interface(device: Device, name: str, *, profile: bool) -> dict[str, Any]:
    """One port. ``profile=True``: QoS through ``service-profile``; ``False``: the QoS keys AVD has on
    ``ethernet_interfaces`` itself (trust, PFC on/priorities, tx-queue ECN)."""
    i = device.interfaces[name]
    out: dict[str, Any] = {"name": name, "shutdown": not i.admin_up, "switchport": {"enabled": False}}
    if i.peer is not None:
        out["description"] = f"{i.peer.device}:{i.peer.port}"
    if i.mtu is not None:
        out["mtu"] = i.mtu
    speed = _speed(name, i.speed_mbps)
    if speed is not None:
        out["speed"] = speed
    if i.addresses:
        out["ip_address"] = i.addresses[0]
    if i.peer is None or device.qos is None:
        return out
    if profile:
        out["service_profile"] = device.qos.policy
        return out
    out["qos"] = {"trust": device.qos.trust.replace("pcp", "cos")}
    if i.pfc_priorities:
        out["priority_flow_control"] = {
            "enabled": True,
            "priorities": [{"priority": p, "no_drop": True} for p in i.pfc_priorities],
        }
    out["tx_queues"] = [
        {
            "id": q,
            "random_detect": {
                "ecn": {
                    "threshold": {
                        "units": "bytes",
                        "min": e.min_threshold,
                        "max": e.max_threshold,
                        "max_probability": e.probability,
                    }
                }
            },
        }
        for q, e in device.qos.ecn.items()
    ]
    return out


def avd_structured_config(device: Device, fabric: FabricState, *, profile: bool = True) -> dict[str, Any]:
    """The whole switch as AVD structured config (``fabric`` is unused: a switch's state is self-contained)."""
    del fabric
    by_kind = {kind: [i for i in device.interfaces.values() if i.kind == kind] for kind in ("loopback", "mgmt")}
    sc: dict[str, Any] = {
        "hostname": device.name,
        "ip_routing": True,
        "config_end": True,
        "ethernet_interfaces": [
            ethernet_interface(device, i.name, profile=profile)
            for i in device.interfaces.values()
            if i.kind == "ethernet"
        ],
        "loopback_interfaces": [{"name": i.name, "ip_address": i.addresses[0]} for i in by_kind["loopback"]],
        "management_interfaces": [{"name": i.name, "ip_address": i.addresses[0]} for i in by_kind["mgmt"]],
    }
    if device.qos is not None:
        sc["qos"] = {"map": {"dscp": _dscp_map(device)}}
        if profile:
            sc["qos_profiles"] = [qos_profile(device)]
    wd = device.pfc_watchdog
    if wd is not None:
        sc["priority_flow_control"] = {
            "watchdog": {
                "timeout": _seconds(wd.detection_ms),
                "recovery_time": _seconds(wd.restoration_ms),
                "polling_interval": _seconds(wd.poll_interval_ms),
                "action": wd.action,
            }
        }
    bgp = device.bgp
    if bgp is not None:
        peers = {n.address: device.interfaces[n.interface].peer for n in bgp.neighbors}
        sc["router_bgp"] = {
            "as": str(bgp.asn),
            "router_id": bgp.router_id,
            "maximum_paths": {"paths": bgp.max_paths, "ecmp": bgp.max_paths},
            "neighbors": [
                {
                    "ip_address": n.address,
                    "remote_as": str(n.remote_asn),
                    "description": f"{peers[n.address].device}:{peers[n.address].port}",  # type: ignore[union-attr]
                }
                for n in bgp.neighbors
            ],
            "address_family_ipv4": {"networks": [{"prefix": p} for p in bgp.networks]},
        }
    return sc


def blocks(text: str) -> dict[str, list[str]]:
    """Top-level stanzas of an EOS config: header line -> its indented lines (``!`` separators dropped
    at the top level; nested ``!`` kept, they separate tx-queue blocks)."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line == "!" or not line:
            current = None
            continue
        if line.startswith(" "):
            assert current is not None, f"indented line outside a stanza: {line!r}"
            current.append(line)
        else:
            current = out.setdefault(line, [])
    return out


def inline_service_profiles(text: str) -> str:
    """Replace each ``service-profile NAME`` line with the body of ``qos profile NAME`` and drop the
    profile stanzas: what EOS applies to the interface, written the way xoff writes it."""
    stanzas = blocks(text)
    bodies = {h.removeprefix("qos profile "): body for h, body in stanzas.items() if h.startswith("qos profile ")}
    out: list[str] = []
    skipping = False
    for line in text.splitlines():
        if line.startswith("qos profile "):
            skipping = True
            continue
        if skipping:
            if line.startswith(" "):
                continue
            skipping = False
            if line == "!" and out and out[-1] == "!":
                continue  # the profile stanza's own separator
        m = PROFILE_LINE.match(line)
        out.extend(bodies[m[1]] if m else [line])
    return "\n".join(out) + "\n"
