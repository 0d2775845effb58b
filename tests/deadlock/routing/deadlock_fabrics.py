"""Small fabrics for the routing-model and failure-sweep tests: intents written here, and
hand-built FabricStates for shapes the cabling generators do not make (rings, full-mesh tiers)."""

from __future__ import annotations

from pathlib import Path

from xoff.desired import build_fabric_state
from xoff.desired.models import Bgp, Device, FabricState, HostNic, HostSettings, Interface, Link, NetworkPlan, Peer
from xoff.intent import load_intent

_HEAD = """
fabric: {{name: {name}}}
networks:
  management: {{prefix: 192.0.2.0/24}}
  compute:
    kind: roce
    qos_policy: p
    p2p_prefix: 198.18.0.0/20
    loopback_prefix: 198.19.255.0/24
    underlay: {{asn_plan: {{super_spine: 65000, spine: 65100, leaf: 4200000001}}}}
qos_policies:
  p:
    classes:
      roce: {{dscp: [26], priority: 3, lossless: true, ecn: {{min_threshold: 150KB, max_threshold: 1500KB}}}}
      other: {{priority: 0, scheduler: {{type: dwrr, weight: 50}}}}
    default_class: other
defaults:
  switch: {{platform: sonic, asic: spectrum4}}
roles:
  leaf: {{ports: [{{name: "Ethernet{{0..120..8}}", speed: 400G, use: downlink}}, {{name: "Ethernet{{128..248..8}}", speed: 400G, use: uplink}}]}}
  spine: {{ports: [{{name: "Ethernet{{0..120..8}}", speed: 400G, use: downlink}}, {{name: "Ethernet{{128..248..8}}", speed: 400G, use: uplink}}]}}
  super-spine: {{ports: [{{name: "Ethernet{{0..248..8}}", speed: 400G, use: downlink}}]}}
host_profiles:
  h: {{gpus: {rails}, nics: [{{netdev: "eth{{0..{last_rail}}}", rdma: "mlx5_{{0..{last_rail}}}", network: compute, rail: 0, gpu: 0, speed: 400G}}]}}
"""


def leaf_spine_intent(leaves: int, spines: int, *, name: str = "ls") -> str:
    """``leaves`` x ``spines`` leaf-spine, one host with one NIC on every leaf (RFC 7938 ASNs)."""
    return _HEAD.format(name=name, rails=leaves, last_rail=leaves - 1) + (
        "switches:\n"
        f'  - {{name: "leaf{{1..{leaves}}}", role: leaf}}\n'
        f'  - {{name: "spine{{1..{spines}}}", role: spine}}\n'
        "hosts:\n"
        '  - {name: "gpu1", profile: h}\n'
        "cabling:\n"
        f'  - {{kind: leaf_spine, leaves: "leaf{{1..{leaves}}}", spines: "spine{{1..{spines}}}"}}\n'
        f'  - {{kind: rail_optimized, hosts: "gpu1", leaves: "leaf{{1..{leaves}}}"}}\n'
    )


def clos3_intent(pods: int, leaves_per_pod: int, spines_per_pod: int, supers: int, *, name: str = "clos") -> str:
    """A clos3 (pods of leaves and spines, spine i of a pod to super-spine plane i), one host NIC per leaf."""
    leaves, spines = pods * leaves_per_pod, pods * spines_per_pod
    return _HEAD.format(name=name, rails=leaves, last_rail=leaves - 1) + (
        "switches:\n"
        f'  - {{name: "leaf{{1..{leaves}}}", role: leaf}}\n'
        f'  - {{name: "spine{{1..{spines}}}", role: spine}}\n'
        f'  - {{name: "ss{{1..{supers}}}", role: super-spine}}\n'
        "hosts:\n"
        '  - {name: "gpu1", profile: h}\n'
        "cabling:\n"
        f'  - {{kind: clos3, pods: {pods}, leaves: "leaf{{1..{leaves}}}", spines: "spine{{1..{spines}}}",'
        f' super_spines: "ss{{1..{supers}}}"}}\n'
        f'  - {{kind: rail_optimized, hosts: "gpu1", leaves: "leaf{{1..{leaves}}}"}}\n'
    )


def load_state(tmp_path: Path, text: str) -> FabricState:
    path = tmp_path / "intent.yaml"
    path.write_text(text)
    return build_fabric_state(load_intent(path))


def hand_built(
    switches: dict[str, tuple[str, int]],
    links: list[tuple[str, str]],
    hosts_on: list[str],
    *,
    lossless: tuple[int, ...] = (3,),
    lossy_links: frozenset[tuple[str, str]] = frozenset(),
) -> FabricState:
    """A FabricState of ``switches`` (name -> (role, ASN)) joined by ``links`` (port ``to_<peer>[_n]``),
    one single-NIC host ``h_<switch>`` on each switch of ``hosts_on``. Links in ``lossy_links`` get no PFC."""
    ifaces: dict[str, dict[str, Interface]] = {s: {} for s in switches}
    state_links: list[Link] = []

    def port(dev: str, peer: str) -> str:
        base = f"to_{peer}"
        n = sum(1 for p in ifaces[dev] if p == base or p.startswith(base + "_"))
        return base if n == 0 else f"{base}_{n}"

    for a, b in links:
        pa, pb = port(a, b), port(b, a)
        pfc = [] if (a, b) in lossy_links or (b, a) in lossy_links else list(lossless)
        ifaces[a][pa] = Interface(name=pa, kind="ethernet", peer=Peer(device=b, port=pb), pfc_priorities=pfc)
        ifaces[b][pb] = Interface(name=pb, kind="ethernet", peer=Peer(device=a, port=pa), pfc_priorities=pfc)
        state_links.append(
            Link(
                a=Peer(device=a, port=pa),
                b=Peer(device=b, port=pb),
                speed_mbps=400000,
                cable_m=5,
                role="x",
                network="compute",
            )
        )
    devices: dict[str, Device] = {}
    for s in hosts_on:
        host = f"h_{s}"
        ifaces[s]["to_host"] = Interface(
            name="to_host", kind="ethernet", peer=Peer(device=host, port="eth0"), pfc_priorities=list(lossless)
        )
        state_links.append(
            Link(
                a=Peer(device=s, port="to_host"),
                b=Peer(device=host, port="eth0"),
                speed_mbps=400000,
                cable_m=5,
                role="host_leaf",
                network="compute",
            )
        )
        nic = HostNic(
            netdev="eth0",
            rdma="mlx5_0",
            network="compute",
            rail=0,
            gpu=0,
            speed_mbps=400000,
            mtu=9000,
            address=None,
            gateway=None,
            trust="dscp",
            pfc=[1 if p in lossless else 0 for p in range(8)],
            dscp_to_priority={},
            roce_mode="RoCE v2",
            roce_tos=106,
            ecn_np_priorities=[],
            ecn_rp_priorities=[],
            cnp_dscp=None,
            cnp_priority=None,
            roce_active_mtu=4096,
        )
        devices[host] = Device(
            name=host,
            kind="host",
            platform="linux",
            role="gpu-host",
            mgmt_address="192.0.2.200",
            interfaces={"eth0": Interface(name="eth0", kind="ethernet", peer=Peer(device=s, port="to_host"))},
            host=HostSettings(
                profile="h",
                gpus=1,
                nic_model="cx7",
                nics={"eth0": nic},
                routes=[],
                rules=[],
                nccl_env={},
                gpudirect=None,
            ),
        )
    for name, (role, asn) in switches.items():
        devices[name] = Device(
            name=name,
            kind="switch",
            platform="sonic",
            role=role,
            network="compute",
            mgmt_address="192.0.2.10",
            interfaces=ifaces[name],
            bgp=Bgp(asn=asn, router_id="198.19.255.1", max_paths=64, neighbors=[], networks=[]),
        )
    plan = NetworkPlan(
        kind="roce",
        qos_policy="p",
        lossless_priorities=list(lossless),
        roce_dscp=26,
        roce_tos=106,
        cnp_dscp=None,
        devices=len(switches),
    )
    return FabricState(fabric="hand", networks={"compute": plan}, links=state_links, devices=devices)
