"""Buffer tables of CONFIG_DB from Device.buffers (and the QoS plan that says which PGs and queues
are lossless).

reference/lossless.md §1.1 (BUFFER_POOL/PROFILE/PG/QUEUE, CABLE_LENGTH syntax; the dynamic-model
tables), §1.3 (lossless profile per port from the lookup row or formula, ``BUFFER_PG|<port>|0`` ->
ingress_lossy_profile, ``BUFFER_QUEUE`` lossless queues -> egress_lossless_profile and the rest ->
the lossy queue profile; ``LOSSLESS_TRAFFIC_PATTERN`` and ``DEFAULT_LOSSLESS_BUFFER_PARAMETER`` in the
dynamic model), §6 rule 8 (lossless BUFFER_PG profile ``"NULL"`` in the dynamic model; a cable length
for every port with a lossless PG). A profile on a static pool gets ``static_th`` = the pool size,
one on a dynamic pool ``dynamic_th`` (§1.1: exactly one of the two; §1.3 Example C).
"""

from __future__ import annotations

from xoff.desired.models import BufferPool, Buffers, Device
from xoff.platforms.sonic.names import (
    CABLE_LENGTH_NAME,
    DYNAMIC_BUFFER_KEY,
    DYNAMIC_PG_PROFILE,
    LOSSY_BUFFERS,
    LossyBuffers,
    ranges,
)
from xoff.platforms.sonic.tables import Fields, Tables, cabled_ports, ethernet_ports

# Queues 0-6: Example A binds q_lossy_profile to |0-2 and |5-6 around lossless 3-4 and leaves queue 7 to
# the SAI default (§1.3).
QUEUES = range(7)


def lossy_buffers(vendor: str | None) -> LossyBuffers:
    try:
        return LOSSY_BUFFERS[vendor or ""]
    except KeyError:
        raise ValueError(
            f"no SONiC lossy buffer profiles for ASIC vendor {vendor!r} (allowed: {', '.join(LOSSY_BUFFERS)})"
        ) from None


def build(device: Device, vendor: str | None) -> Tables:
    buffers = device.buffers
    out: Tables = {}
    cables = {i.name: f"{i.cable_m}m" for i in ethernet_ports(device) if i.cable_m is not None}
    if buffers is None:
        return {"CABLE_LENGTH": {CABLE_LENGTH_NAME: cables}} if cables else {}
    lossy = lossy_buffers(vendor)
    pools = {p.name: p for p in buffers.pools}
    out["BUFFER_POOL"] = {p.name: _pool(p) for p in buffers.pools}
    profiles: dict[str, Fields] = {}
    if buffers.model == "static":  # the dynamic model computes lossless profiles itself
        for profile in buffers.profiles.values():
            fields: Fields = {"pool": profile.pool, "size": str(profile.size), "xon": str(profile.xon)}
            if profile.xon_offset is not None:
                fields["xon_offset"] = str(profile.xon_offset)
            fields["xoff"] = str(profile.xoff)
            fields.update(_threshold(device, pools, profile.pool, profile.dynamic_th, profile.name))
            profiles[profile.name] = fields
    for lp in lossy.profiles():
        profiles[lp.name] = {
            "pool": lp.pool,
            "size": str(lp.size),
            **_threshold(device, pools, lp.pool, lp.dynamic_th, lp.name),
        }
    out["BUFFER_PROFILE"] = profiles
    out["BUFFER_PG"] = _priority_groups(device, buffers, lossy)
    out["BUFFER_QUEUE"] = _queues(device, lossy)
    if cables:
        out["CABLE_LENGTH"] = {CABLE_LENGTH_NAME: cables}
    if buffers.model == "dynamic":
        out["LOSSLESS_TRAFFIC_PATTERN"] = {
            DYNAMIC_BUFFER_KEY: {
                "mtu": str(buffers.lossless_mtu),
                "small_packet_percentage": str(buffers.small_packet_percent),
            }
        }
        thresholds = sorted({p.dynamic_th for p in buffers.profiles.values() if p.dynamic_th is not None})
        if len(thresholds) > 1:
            raise ValueError(f"{device.name}: one default_dynamic_th for the dynamic model, not {thresholds}")
        params = {"default_dynamic_th": str(thresholds[0] if thresholds else 0)}
        if buffers.over_subscribe_ratio is not None:
            params["over_subscribe_ratio"] = str(buffers.over_subscribe_ratio)
        out["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] = {DYNAMIC_BUFFER_KEY: params}
    return out


def _pool(pool: BufferPool) -> Fields:
    fields: Fields = {"type": pool.type, "mode": pool.mode}
    if pool.size is not None:
        fields["size"] = str(pool.size)
    if pool.xoff is not None:
        fields["xoff"] = str(pool.xoff)
    return fields


def _threshold(device: Device, pools: dict[str, BufferPool], pool: str, dynamic_th: int | None, name: str) -> Fields:
    if pool not in pools:
        raise ValueError(f"{device.name}: buffer profile {name} uses pool {pool}, which is not in Buffers.pools")
    if pools[pool].mode == "dynamic" and dynamic_th is not None:
        return {"dynamic_th": str(dynamic_th)}
    size = pools[pool].size
    if pools[pool].mode == "static" and size is not None:
        return {"static_th": str(size)}
    raise ValueError(f"{device.name}: buffer profile {name} has no threshold for {pools[pool].mode} pool {pool}")


def _priority_groups(device: Device, buffers: Buffers, lossy: LossyBuffers) -> dict[str, Fields]:
    qos = device.qos
    lossless_pgs = set(qos.pfc_priority_to_priority_group.values()) if qos is not None else set()
    all_pgs = set(qos.tc_to_priority_group.values()) if qos is not None else {0}
    lossy_keys = ranges(all_pgs - lossless_pgs)
    out: dict[str, Fields] = {}
    for iface in cabled_ports(device):
        for key in lossy_keys:
            out[f"{iface.name}|{key}"] = {"profile": lossy.ingress_pg.name}
        for key, profile in buffers.port_priority_groups.get(iface.name, {}).items():
            out[f"{iface.name}|{key}"] = {"profile": DYNAMIC_PG_PROFILE if buffers.model == "dynamic" else profile}
    return out


def _queues(device: Device, lossy: LossyBuffers) -> dict[str, Fields]:
    qos = device.qos
    plans: dict[tuple[int, ...], list[tuple[str, str]]] = {}  # lossless queues -> (key, profile)
    out: dict[str, Fields] = {}
    for iface in cabled_ports(device):
        lossless = tuple(sorted({qos.pfc_priority_to_queue[p] for p in iface.pfc_priorities})) if qos else ()
        plan = plans.get(lossless)
        if plan is None:
            keyed = [(k, lossy.egress_lossless_queue.name) for k in ranges(lossless)]
            keyed += [(k, lossy.egress_lossy_queue.name) for k in ranges(q for q in QUEUES if q not in lossless)]
            plan = plans[lossless] = sorted(keyed, key=lambda kp: int(kp[0].split("-")[0]))
        for key, profile in plan:
            out[f"{iface.name}|{key}"] = {"profile": profile}
    return out
