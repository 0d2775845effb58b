"""Checks that need the whole intent: references, uniqueness, lossless-plan sanity, addressing.

These run at load time on the resolved intent; a failure here is bad input (exit 2), unlike the
validators in ``xoff.validate``, which judge a well-formed fabric.
"""

from __future__ import annotations

from collections.abc import Container
from ipaddress import IPv4Address, IPv4Network

from xoff.buffers import get_asic
from xoff.buffers.catalogue import get_sku
from xoff.intent.context import Context
from xoff.intent.networks import IbQos, InfinibandNetwork, RoceNetwork
from xoff.intent.patterns import PatternError, expand
from xoff.intent.qos import QosPolicy
from xoff.intent.resolved import Host, IbSwitch, Link, Switch
from xoff.intent.static_routes import cabled_ports, next_hops
from xoff.intent.yamlsource import Path_

_VL15 = 15  # the management VL; an SL mapped to it is dropped (IBA, as smpquery sl2vl shows it)


def check_policies(ctx: Context) -> None:
    """The policies networks name exist (a policy the schema refused is not named again), and each
    policy is sound."""
    doc = ctx.doc
    known = ", ".join(sorted(doc.qos_policies)) or "none defined in qos_policies"
    refs: list[tuple[Path_, str | None]] = [
        (("networks", "management", "qos_policy"), doc.networks.management.qos_policy)
    ]
    for name in ("compute", "storage"):
        net = getattr(doc.networks, name)
        if isinstance(net, RoceNetwork):
            refs.append((("networks", name, "qos_policy"), net.qos_policy))
    for path, ref in refs:
        if path[1] in ctx.damage.networks or ref in ctx.damage.policies:
            continue
        if ref is not None and ref not in doc.qos_policies:
            ctx.report(path, f"unknown QoS policy {ref!r} (allowed: {known})")
    mgmt = doc.networks.management.qos_policy
    if mgmt in doc.qos_policies and doc.qos_policies[mgmt].lossless_classes:
        ctx.report(
            ("networks", "management", "qos_policy"),
            f"policy {mgmt!r} has lossless class(es) {', '.join(doc.qos_policies[mgmt].lossless_classes)},"
            " but the management network is always lossy (allowed: a policy with no lossless class)",
        )
    for name, policy in doc.qos_policies.items():
        check_policy(ctx, name, policy)


def check_policy(ctx: Context, name: str, policy: QosPolicy) -> None:
    base: Path_ = ("qos_policies", name)
    classes = ", ".join(policy.classes)
    for field in ("default_class", "cnp_class", "roce_class"):
        ref = getattr(policy, field)
        if ref is not None and ref not in policy.classes:
            ctx.report((*base, field), f"unknown class {ref!r} (allowed: {classes})")
    owner: dict[int, str] = {}
    by_priority: dict[int, tuple[str, int, bool]] = {}
    for cname, cls in policy.classes.items():
        cpath = (*base, "classes", cname)
        for k, dscp in enumerate(cls.dscp):
            if dscp in owner:
                where = "twice in this class" if owner[dscp] == cname else f"also in class {owner[dscp]!r}"
                ctx.report((*cpath, "dscp", k), f"DSCP {dscp} is {where} (allowed: each DSCP in one class)")
            else:
                owner[dscp] = cname
        prev = by_priority.get(cls.priority)
        if prev is None:
            by_priority[cls.priority] = (cname, cls.tc, cls.lossless)
        elif prev[2] != cls.lossless:
            ctx.report(
                (*cpath, "priority"),
                f"priority {cls.priority} is lossless in one class and lossy in the other ({prev[0]!r}, {cname!r})"
                " (allowed: PFC is per priority, so classes sharing a priority agree on lossless)",
            )
        elif prev[1] != cls.tc:
            ctx.report(
                (*cpath, "priority"),
                f"priority {cls.priority} maps to traffic class {prev[1]} in {prev[0]!r} and {cls.tc} here"
                " (allowed: one traffic class per priority)",
            )
        if cls.lossless and policy.cnp_class == cname:
            ctx.report((*cpath, "lossless"), "the CNP class must not be lossless (allowed: lossless false)")
    _check_lossless_plan(ctx, base, policy)
    _check_shared_queues(ctx, base, policy)
    _check_congestion_profile(ctx, base, policy)
    _check_headroom_rows(ctx, base, policy)
    lossless = policy.lossless_priorities
    if len(lossless) > policy.max_lossless_classes:
        ctx.report(
            (*base, "classes"),
            f"{len(lossless)} lossless priorities {lossless} exceed the limit of {policy.max_lossless_classes}"
            " (allowed: raise max_lossless_classes if the ASICs support more)",
        )


def _check_lossless_plan(ctx: Context, base: Path_, policy: QosPolicy) -> None:
    """Intents that make the lossless plan a lie: RoCE on a lossy class while PFC guards a priority it does
    not use; a lossless class nothing is classified into; every unclassified packet made lossless."""
    lossless = policy.lossless_classes
    names = ", ".join(lossless)
    roce = policy.roce_class
    if roce in policy.classes and lossless and roce not in lossless:
        ctx.report(
            (*base, "roce_class"),
            f"class {roce!r} is lossy, so RoCE traffic would be dropped under congestion while PFC guards"
            f" priorities {policy.lossless_priorities} it does not use (allowed: a lossless class: {names})",
        )
    if policy.default_class in lossless:
        ctx.report(
            (*base, "default_class"),
            f"class {policy.default_class!r} is lossless, so every packet no class lists would be paused"
            " instead of dropped (allowed: a lossy class as the default)",
        )
    elif policy.trust == "dscp":
        for cname, cls in lossless.items():
            if not cls.dscp:
                ctx.report(
                    (*base, "classes", cname, "lossless"),
                    f"lossless class {cname!r} lists no DSCP, so PFC would guard priority {cls.priority}"
                    " that no traffic is classified into (allowed: give it dscp values, or lossless false)",
                )


def _check_congestion_profile(ctx: Context, base: Path_, policy: QosPolicy) -> None:
    """A profile with no PFC (ecn-only, or custom pfc false) and a lossless class; a profile with ECN but no PFC
    whose RoCE class is not named or marks no ECN (lossy RoCE lives on ECN alone). ECN left on a lossless queue
    under pfc-only is the ``lossless.pfc_only_no_ecn`` check's to report (``xoff check``)."""
    cc = policy.congestion_control
    knobs = cc.knobs
    if knobs.pfc:
        return
    for cname in policy.lossless_classes:
        ctx.report(
            (*base, "classes", cname, "lossless"),
            f"profile {cc.profile} runs no PFC, but class {cname!r} is lossless"
            " (allowed: lossless false, or a profile with PFC: dcqcn, pfc-only)",
        )
    if policy.roce_class is None:
        ctx.report(
            (*base, "congestion_control", "profile"),
            f"profile {cc.profile} has no lossless class to carry RoCE, so it needs roce_class"
            f" (allowed: roce_class: one of {', '.join(policy.classes)})",
        )
        return
    roce = policy.classes.get(policy.roce_class)
    if knobs.ecn and roce is not None and roce.ecn is None:
        ctx.report(
            (*base, "classes", policy.roce_class, "ecn"),
            f"profile {cc.profile} is lossy RoCE: ECN marking on class {policy.roce_class!r} is its only brake"
            " (allowed: ecn: {min_threshold, max_threshold})",
        )


def _check_shared_queues(ctx: Context, base: Path_, policy: QosPolicy) -> None:
    """A lossy class on a lossless class's egress queue (other priority): the queue is paused with the
    lossless traffic and the lossy packets (CNPs too) wait behind it, or drop in the lossless queue."""
    owners = {c.egress_queue: n for n, c in policy.lossless_classes.items()}
    lossless = set(policy.lossless_priorities)
    for cname, cls in policy.classes.items():
        other = owners.get(cls.egress_queue)
        if cls.lossless or other is None or cls.priority in lossless:
            continue  # a shared priority is reported by the priority rule
        field = "queue" if cls.queue is not None else "traffic_class" if cls.traffic_class is not None else "priority"
        ctx.report(
            (*base, "classes", cname, field),
            f"lossy class {cname!r} shares egress queue {cls.egress_queue} with lossless class {other!r}"
            " (allowed: a queue no lossless class uses)",
        )


def _check_headroom_rows(ctx: Context, base: Path_, policy: QosPolicy) -> None:
    """Each ASIC or SKU a headroom row names is one xoff knows (a typo would make the row apply nowhere)."""
    for k, row in enumerate(policy.buffers.headroom_rows):
        for field, names, known in (("asics", row.asics, get_asic), ("skus", row.skus, get_sku)):
            for j, name in enumerate(names or []):
                try:
                    known(name)
                except KeyError as exc:
                    ctx.report((*base, "buffers", "headroom_rows", k, field, j), str(exc.args[0]))


def check_networks(
    ctx: Context, switches: dict[str, Switch], ib_switches: dict[str, IbSwitch], hosts: dict[str, Host]
) -> None:
    doc = ctx.doc
    _check_prefixes(ctx)
    compute = doc.networks.compute
    if "compute" in ctx.damage.networks:
        pass  # refused by the schema: what would be judged here was not read
    elif isinstance(compute, InfinibandNetwork):
        _check_infiniband(ctx, compute, switches, hosts)
    elif ib_switches:
        ctx.report(
            ("ib_switches",),
            "InfiniBand switches need networks.compute.kind infiniband (allowed: remove them, or make compute InfiniBand)",
        )
    for sw in switches.values():
        if sw.network == "storage" and doc.networks.storage is None:
            ctx.report(
                ("switches",),
                f"{sw.name} is on the storage network, which is not defined (allowed: define networks.storage)",
            )
    for host in hosts.values():
        for nic in host.nics.values():
            if nic.network == "storage" and doc.networks.storage is None:
                ctx.report(
                    ("host_profiles", host.profile_name),
                    f"NIC {nic.netdev} is on the storage network, which is not defined",
                )
                break


def _check_prefixes(ctx: Context) -> None:
    """The management gateway inside its prefix; management, p2p and loopback prefixes disjoint (among the
    networks the schema accepted)."""
    doc = ctx.doc
    mgmt = doc.networks.management
    if mgmt.gateway is not None and mgmt.gateway not in mgmt.prefix:
        ctx.report(
            ("networks", "management", "gateway"),
            f"{mgmt.gateway} is outside {mgmt.prefix} (allowed: an address in it)",
        )
    roce = [
        (n, getattr(doc.networks, n))
        for n in ("compute", "storage")
        if isinstance(getattr(doc.networks, n), RoceNetwork) and n not in ctx.damage.networks
    ]
    prefixes: list[tuple[Path_, IPv4Network]] = []
    if "management" not in ctx.damage.networks:
        prefixes.append((("networks", "management", "prefix"), mgmt.prefix))
    for name, net in roce:
        prefixes += [
            (("networks", name, "p2p_prefix"), net.p2p_prefix),
            (("networks", name, "loopback_prefix"), net.loopback_prefix),
        ]
    for i, (path, prefix) in enumerate(prefixes):
        for path2, prefix2 in prefixes[:i]:
            if prefix.overlaps(prefix2):
                ctx.report(
                    path,
                    f"{prefix} overlaps {'.'.join(map(str, path2))} {prefix2} (allowed: disjoint prefixes)",
                )


def _check_infiniband(
    ctx: Context, compute: InfinibandNetwork, switches: dict[str, Switch], hosts: dict[str, Host]
) -> None:
    """An InfiniBand compute network: its SM host exists, no Ethernet switch on it, partitions sound."""
    sm = compute.subnet_manager.host
    if sm not in hosts and sm not in ctx.damage.devices:
        ctx.report(
            ("networks", "compute", "subnet_manager", "host"),
            f"no host named {sm!r} (allowed: a host of this intent)",
        )
    _check_ib_qos(ctx, compute.qos)
    for sw in switches.values():
        if sw.network == "compute":
            ctx.report(
                ("switches",),
                f"{sw.name} is an Ethernet switch on the compute network, which is InfiniBand (allowed: network storage)",
            )
    for k, part in enumerate(compute.partitions):
        if isinstance(part.members, list):
            for m, item in enumerate(part.members):
                _check_partition_member(ctx, ("networks", "compute", "partitions", k, "members", m), item, hosts)
    seen: dict[int, int] = {}
    for k, part in enumerate(compute.partitions):
        if part.pkey in seen or part.pkey == 0x7FFF:
            ctx.report(
                ("networks", "compute", "partitions", k, "pkey"),
                f"PKey {part.pkey:#06x} is already used (allowed: unique PKeys, not 0x7fff)",
            )
        seen[part.pkey] = k


def _check_ib_qos(ctx: Context, qos: IbQos) -> None:
    """Every SL maps to a VL the fabric runs (VL 0..max_vls-1); VL arbitration names only such VLs."""
    base: Path_ = ("networks", "compute", "qos")
    allowed = f"allowed: VL 0..{qos.max_vls - 1}, or raise max_vls"
    default = "" if "sl2vl" in qos.model_fields_set else " (the default sl2vl)"
    for sl, vl in enumerate(qos.sl2vl):
        if qos.max_vls <= vl < _VL15:  # VL15 in an SL2VL table drops the SL: deliberate, not a data VL
            ctx.report(
                (*base, "sl2vl", sl),
                f"SL {sl} maps to VL {vl}{default}, at or beyond max_vls {qos.max_vls} ({allowed}; 15 drops the SL)",
            )
    for table in ("vlarb_high", "vlarb_low"):
        if table not in qos.model_fields_set:
            continue
        for k, entry in enumerate(getattr(qos, table)):
            if entry.vl >= qos.max_vls:
                ctx.report(
                    (*base, table, k, "vl"),
                    f"VL {entry.vl} is at or beyond max_vls {qos.max_vls} ({allowed})",
                )


def _check_partition_member(ctx: Context, mpath: Path_, item: str, hosts: dict[str, Host]) -> None:
    try:
        names = expand(item)
    except PatternError as exc:
        ctx.report(mpath, str(exc))
        return
    for member in names:
        host = hosts.get(member)
        if host is None and member in ctx.damage.devices:
            continue  # its definition was refused: that problem is reported
        if host is None:
            ctx.report(mpath, f"no host named {member!r} (allowed: a host of this intent)")
        elif not any(n.network == "compute" for n in host.nics.values()):
            ctx.report(
                mpath,
                f"{member} has no InfiniBand HCA on the compute network (allowed: hosts with a compute NIC)",
            )


def check_addresses(ctx: Context, entries: list[tuple[str, str, IPv4Address, Path_, IPv4Network | None]]) -> None:
    """Unique addresses, each inside its network's prefix. Entries: (device, what, address, path, prefix)."""
    seen: dict[IPv4Address, tuple[str, str]] = {}
    for device, what, addr, path, prefix in entries:
        if prefix is not None and addr not in prefix:
            ctx.report(path, f"{device} {what} {addr} is outside {prefix} (allowed: an address in it)")
        if addr in seen:
            other = seen[addr]
            ctx.report(path, f"{device} {what} {addr} is already {other[0]}'s {other[1]} (allowed: unique addresses)")
        else:
            seen[addr] = (device, what)


def check_asns(ctx: Context, switches: dict[str, Switch], paths: dict[str, Path_]) -> None:
    """Explicit ASNs: a leaf's ASN is its own; a spine tier or super-spine tier may share one (RFC 7938)."""
    owners: dict[int, list[Switch]] = {}
    for sw in switches.values():
        if sw.asn is not None:
            owners.setdefault(sw.asn, []).append(sw)
    for asn, group in owners.items():
        if len(group) < 2:
            continue
        roles = {s.role for s in group}
        pods = {s.pod for s in group}
        if "leaf" in roles or len(roles) > 1 or (roles == {"spine"} and len(pods) > 1):
            for sw in group[1:]:
                ctx.report(
                    (*paths[sw.name], "asn"),
                    f"ASN {asn} of {sw.name} is also {group[0].name}'s"
                    " (allowed: unique per leaf; shared only by the spines of one pod or by the super-spines)",
                )


def check_rails(
    ctx: Context, hosts: dict[str, Host], cabled: Container[tuple[str, str]], paths: dict[str, Path_]
) -> None:
    """Every compute or storage NIC is cabled (to its own network; the link check enforced that): ``cabled`` holds
    the (device, port) ends of the cables."""
    for host in hosts.values():
        for nic in host.nics.values():
            if (host.name, nic.netdev) not in cabled:
                rail = f" (rail {nic.rail})" if nic.rail is not None else ""
                ctx.report(
                    paths[host.name],
                    f"{host.name}:{nic.netdev}{rail} on the {nic.network} network is not cabled"
                    " (allowed: add a link or a cabling generator for it)",
                )


def check_static_routes(ctx: Context, switches: dict[str, Switch], links: list[Link]) -> None:
    """Every static route's ``via`` names a cabled, addressed link of its switch."""
    with_routes = {name for name, sw in switches.items() if sw.static_routes}
    if not with_routes:
        return
    mine: dict[str, list[Link]] = {}
    for link in links:
        for end in (link.a[0], link.b[0]):
            if end in with_routes:
                mine.setdefault(end, []).append(link)
    for name in sorted(with_routes):
        sw = switches[name]
        ports = cabled_ports(name, mine.get(name, []))
        for k, route in enumerate(sw.static_routes):
            found = next_hops(name, route.via, ports)
            if isinstance(found, str):
                ctx.report((*sw.static_routes_at, k, "via"), f"{name}: {found}")
