"""The snapshot a fabric would give if it ran exactly its intent: the baseline for tests, benchmarks and
fault seeding (change one value, and exactly one check must fail). Not a stand-in for collecting."""

from __future__ import annotations

from xoff.contracts.fib import as_routes
from xoff.contracts.observed import (
    BgpSession,
    BufferWatermarks,
    GpuNicPath,
    HostObserved,
    LldpNeighbor,
    NicQos,
    PfcCounters,
    PortCounters,
    QueueCounters,
    RoceGid,
    Snapshot,
    WatchdogCounters,
)
from xoff.deadlock.from_fib import fibs_from_model
from xoff.desired.models import Device, FabricState
from xoff.validate.checks.common import lossless_queues

# every Device field a collector can read (the ones this FabricState version has)
_DEVICE_FIELDS = tuple(
    f
    for f in ("interfaces", "qos", "buffers", "pfc_watchdog", "bgp", "static_routes", "host")
    if f in Device.model_fields
)


def mirror_snapshot(desired: FabricState, collected_at: str = "1970-01-01T00:00:00Z", *, fib: bool = True) -> Snapshot:
    """``fib=False`` leaves the switches' FIBs out: at 10,000 GPUs they are one host route per NIC on every
    switch (~16 million routes, a 3.9 GB snapshot; bench/results/validate_scale.md)."""
    observed = desired.model_copy(update={"source": "observed"})
    fields = {
        name: [f for f in _DEVICE_FIELDS if getattr(dev, f) is not None]
        for name, dev in desired.devices.items()
        if dev.kind != "ib_switch"
    }
    lldp: dict[str, list[LldpNeighbor]] = {}
    for link in desired.links:
        if "infiniband" in {desired.devices[p.device].interfaces[p.port].kind for p in (link.a, link.b)}:
            continue  # no LLDP on InfiniBand
        for me, peer in ((link.a, link.b), (link.b, link.a)):
            if desired.devices[me.device].kind != "ib_switch":
                lldp.setdefault(me.device, []).append(
                    LldpNeighbor(port=me.port, neighbor=peer.device, neighbor_port=peer.port)
                )
    bgp = {
        name: [BgpSession(address=n.address, remote_asn=n.remote_asn, state="Established") for n in dev.bgp.neighbors]
        for name, dev in desired.devices.items()
        if dev.bgp is not None
    }
    counters: dict[str, dict[str, PortCounters]] = {}
    for name, dev in desired.devices.items():
        if dev.qos is None:
            continue
        queues = lossless_queues(dev.qos)
        counters[name] = {
            i.name: PortCounters(
                # an idle fabric: nothing paused, nothing dropped, nothing ECN-marked (on the queues the intent marks)
                pfc=PfcCounters(
                    rx_pause=dict.fromkeys(i.pfc_priorities, 0), tx_pause=dict.fromkeys(i.pfc_priorities, 0)
                ),
                queues={
                    q: QueueCounters(
                        packets=1000,
                        bytes=4_096_000,
                        dropped_packets=0,
                        ecn_marked_packets=0 if q in dev.qos.ecn else None,
                    )
                    for q in queues
                },
                watchdog={q: WatchdogCounters(storms_detected=0, storms_restored=0) for q in queues},
            )
            for i in dev.interfaces.values()
            if i.pfc_priorities
        }
        _add_watermarks(dev, counters[name])
    hosts = {
        name: HostObserved(
            modules=["nvidia_peermem"] if dev.host.gpudirect.nvidia_peermem else [],
            gpu_nic_paths=[GpuNicPath(gpu=g, nic=n, relation="PIX") for g, n in dev.host.gpudirect.gpu_nic.items()],
            **_roce_host(desired, dev),
        )
        for name, dev in desired.devices.items()
        if dev.host is not None and dev.host.gpudirect is not None
    }
    return Snapshot(
        fabric=desired.fabric,
        collected_at=collected_at,
        observed=observed,
        observed_fields=fields,
        lldp=lldp,
        bgp_sessions=bgp,
        counters=counters,
        hosts=hosts,
        fib={switch: as_routes(entries) for switch, entries in fibs_from_model(desired).items()} if fib else {},
        buffer_pool_watermarks={
            name: {p.name: p.size // 2 for p in dev.buffers.pools if p.size}
            for name, dev in desired.devices.items()
            if dev.buffers is not None
        },
    )


def _add_watermarks(dev: Device, counters: dict[str, PortCounters]) -> None:
    """Half the planned headroom used on every planned lossless PG (a fabric that paused, within its plan)."""
    if dev.buffers is None:
        return
    for port, groups in dev.buffers.port_priority_groups.items():
        if port not in counters:
            continue
        used: dict[int, int] = {}
        for key, profile in groups.items():
            first, _, last = key.partition("-")
            xoff = dev.buffers.profiles[profile].xoff if profile in dev.buffers.profiles else 0
            used.update(dict.fromkeys(range(int(first), int(last or first) + 1), xoff // 2))
        counters[port] = counters[port].model_copy(update={"watermarks": BufferWatermarks(pg_headroom=used)})


def _roce_host(desired: FabricState, dev: Device) -> dict[str, object]:
    """A RoCE host running its intent: each lossless NIC's RoCE v2 IPv4 GID at index 3 (NCCL picks it), its
    lossless priorities on a receive buffer of their own, every TC in the firmware's vendor mode, and the NIC's
    cable length set to the link's."""
    assert dev.host is not None
    gids: list[RoceGid] = []
    qos: dict[str, NicQos] = {}
    for nic in dev.host.nics.values():
        plan = desired.networks.get(nic.network)
        if plan is None or plan.kind != "roce" or nic.rdma is None or nic.address is None:
            continue
        ip = nic.address.split("/")[0]
        mapped = "0000:0000:0000:0000:0000:ffff:" + "{:02x}{:02x}:{:02x}{:02x}".format(*map(int, ip.split(".")))
        gids.append(RoceGid(rdma=nic.rdma, port=1, index=3, gid=mapped, ipv4=ip, version="v2", netdev=nic.netdev))
        link = dev.interfaces.get(nic.netdev)
        qos[nic.netdev] = NicQos(
            priority_to_tc={p: p for p in range(8)},
            tc_tsa=dict.fromkeys(range(8), "vendor"),
            tc_bandwidth={},
            priority_to_buffer={p: 1 if p in plan.lossless_priorities else 0 for p in range(8)},
            buffer_sizes=[130944, 130944, 0, 0, 0, 0, 0, 0],
            cable_length_m=link.cable_m if link is not None else None,
        )
    return {"gids": gids, "nic_qos": qos} if gids else {}
