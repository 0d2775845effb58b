"""Tenants in the desired state: a VRF per tenant on the RoCE leaves its NICs are cabled to (the
host-facing ports bound to it, its hosts' links originated by the VRF's BGP, not the underlay's), and
a partition per tenant on InfiniBand."""

from __future__ import annotations

from ipaddress import IPv4Interface, IPv4Network

from xoff.desired.facts import Facts
from xoff.desired.models import Bgp, Interface, Partition, Vrf
from xoff.intent.resolved import Switch, Tenant

COMPUTE = "compute"


def tenant_ports(facts: Facts, sw: Switch) -> dict[str, Tenant]:
    """The switch's ports cabled to a tenant's NIC on the compute network, and that tenant."""
    if not facts.intent.tenants:
        return {}  # no pass over the switch's cables (a 100k-GPU fabric has 600,000 cable ends)
    owner = facts.shared(
        "tenant of nic", lambda: {nic: t for t in facts.intent.tenants if t.vrf is not None for nic in t.nics}
    )
    out: dict[str, Tenant] = {}
    for link, port, peer, *_ in facts.links_of.get(sw.name, []):
        tenant = owner.get(peer) if link.network == COMPUTE else None
        if tenant is not None:
            out[port] = tenant
    return out


def bind_vrfs(
    ports: dict[str, Tenant], interfaces: dict[str, Interface], bgp: Bgp | None
) -> tuple[dict[str, Interface], Bgp | None, list[Vrf]]:
    """The interfaces with tenant ports bound, the underlay BGP without the tenants' links, and the VRFs."""
    if not ports:
        return interfaces, bgp, []
    out = dict(interfaces)
    vrfs: dict[str, Vrf] = {}
    moved: set[str] = set()
    for port, tenant in ports.items():
        assert tenant.vrf is not None
        iface = out[port].model_copy(update={"vrf": tenant.vrf})
        out[port] = iface
        nets = [str(IPv4Interface(a).network) for a in iface.addresses]
        moved.update(nets)
        vrf = vrfs.get(tenant.vrf) or Vrf(
            name=tenant.vrf,
            tenant=tenant.name,
            lossless_priority=tenant.lossless_priority,
            share_lossless=tenant.share_lossless,
            vni=tenant.vni,
            route_target=route_target(tenant.vni),
        )
        vrfs[tenant.vrf] = vrf.model_copy(update={"networks": [*vrf.networks, *nets]})
    if bgp is not None:
        bgp = bgp.model_copy(update={"networks": [n for n in bgp.networks if str(IPv4Network(n)) not in moved]})
    return out, bgp, sorted(vrfs.values(), key=lambda v: v.name)


def route_target(vni: int | None) -> str | None:
    """A tenant VRF's route target, the same on every leaf (eBGP leaves have an ASN each, so the ASN:VNI
    that FRR and EOS derive would differ): ``VNI:VNI``, a type-0 RT (RFC 4360 §4) whose 2-byte administrator
    is the VNI too (the intent keeps L3 VNIs within 16 bits)."""
    return None if vni is None else f"{vni}:{vni}"


def carries_evpn(facts: Facts, sw: Switch) -> bool:
    """A switch of a network with EVPN tenants carries l2vpn evpn: leaves originate type-5 routes, spines
    pass them on with the next hop (the VTEP) unchanged."""
    return sw.network == COMPUTE and any(t.vni is not None for t in facts.intent.tenants)


def tenant_partitions(facts: Facts) -> list[Partition]:
    """A partition per InfiniBand tenant: its hosts, and which of their HCAs are the tenant's."""
    out: list[Partition] = []
    for t in facts.intent.tenants:
        if t.pkey is None:
            continue
        nics: dict[str, list[str]] = {}
        for host, netdev in t.nics:
            nics.setdefault(host, []).append(netdev)
        out.append(
            Partition(
                name=t.name,
                pkey=t.pkey,
                members=list(nics),
                membership="full" if t.membership == "full" else "limited",
                ipoib=False,
                tenant=t.name,
                service_level=t.service_level,
                nics=nics,
            )
        )
    return out
