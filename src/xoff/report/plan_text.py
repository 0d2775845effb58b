"""Human views of intents and plans, as rich renderables (the core never prints)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from xoff.desired.models import Buffers, Device, FabricState
from xoff.intent.resolved import Intent
from xoff.intent.types import speed_label
from xoff.validate.model import CheckResult


def _speed(mbps: int | None) -> str:
    return "" if mbps is None else speed_label(mbps)


def intent_summary(intent: Intent, state: FabricState) -> RenderableType:
    counts = Text.assemble(
        (f"{intent.name}", "bold"),
        f": {len(intent.switches)} switches, {len(intent.ib_switches)} InfiniBand switches, "
        f"{len(intent.hosts)} hosts, {len(intent.links)} links, from {len(intent.files)} file(s)",
    )
    table = Table(title="networks", title_justify="left")
    for col in (
        "network",
        "kind",
        "QoS policy",
        "lossless priorities",
        "RoCE DSCP / TOS",
        "CNP DSCP",
        "devices",
    ):
        table.add_column(col)
    for name, plan in state.networks.items():
        dscp = "" if plan.roce_dscp is None else f"{plan.roce_dscp} / {plan.roce_tos}"
        table.add_row(
            name,
            plan.kind,
            plan.qos_policy or "",
            "all (credit-based)"
            if plan.kind == "infiniband"
            else ",".join(map(str, plan.lossless_priorities)) or "none (lossy)",
            dscp,
            "" if plan.cnp_dscp is None else str(plan.cnp_dscp),
            str(plan.devices),
        )
    return Group(counts, table)


def plan_summary(state: FabricState) -> RenderableType:
    table = Table(title=f"plan for {state.fabric}", title_justify="left")
    for col in (
        "device",
        "kind",
        "platform",
        "role",
        "network",
        "mgmt",
        "ASN",
        "cabled ports",
        "lossless ports",
    ):
        table.add_column(col)
    for d in state.devices.values():
        cabled = sum(1 for i in d.interfaces.values() if i.peer is not None)
        lossless = sum(1 for i in d.interfaces.values() if i.pfc_priorities)
        table.add_row(
            d.name,
            d.kind,
            d.platform,
            d.role,
            d.network or "",
            d.mgmt_address,
            "" if d.bgp is None else str(d.bgp.asn),
            str(cabled),
            str(lossless),
        )
    notes = congestion_notes(state)
    return Group(table, *notes) if notes else table


def congestion_notes(state: FabricState) -> list[str]:
    """One line per RoCE network whose congestion-control profile departs from the vendor default."""
    out = []
    for name, plan in state.networks.items():
        cc = plan.congestion_control
        if cc is not None and cc.departures:
            out.append(f"{name}: profile {cc.profile} departs from the vendor default: {'; '.join(cc.departures)}")
    return out


def device_detail(device: Device) -> RenderableType:
    parts: list[RenderableType] = [
        Text.assemble(
            (device.name, "bold"),
            f"  {device.kind} {device.platform} {device.role}  mgmt {device.mgmt_address}",
        )
    ]
    ifs = Table(title="interfaces", title_justify="left")
    for col in ("name", "speed", "mtu", "up", "address", "peer", "cable", "PFC", "watchdog"):
        ifs.add_column(col)
    for i in device.interfaces.values():
        ifs.add_row(
            i.name,
            _speed(i.speed_mbps),
            "" if i.mtu is None else str(i.mtu),
            "yes" if i.admin_up else "no",
            ", ".join(i.addresses),
            "" if i.peer is None else f"{i.peer.device}:{i.peer.port}",
            "" if i.cable_m is None else f"{i.cable_m} m",
            ",".join(map(str, i.pfc_priorities)),
            "yes" if i.pfc_watchdog else "",
        )
    parts.append(ifs)
    if device.qos is not None:
        q = Table(title=f"QoS (policy {device.qos.policy}, trust {device.qos.trust})", title_justify="left")
        for col in (
            "class",
            "DSCP",
            "priority",
            "TC",
            "queue",
            "PG",
            "lossless",
            "scheduler",
            "ECN min/max/prob",
        ):
            q.add_column(col)
        for c in device.qos.classes:
            sched = device.qos.schedulers.get(c.queue)
            ecn = device.qos.ecn.get(c.queue)
            q.add_row(
                c.name,
                ",".join(map(str, c.dscp)) or "(default)",
                str(c.priority),
                str(c.traffic_class),
                str(c.queue),
                str(c.priority_group),
                "yes" if c.lossless else "",
                "" if sched is None else (sched.type + (f" {sched.weight}" if sched.weight else "")),
                "" if ecn is None else f"{ecn.min_threshold}/{ecn.max_threshold}/{ecn.probability}%",
            )
        parts.append(q)
    if device.buffers is not None:
        parts.append(_headroom_table(device.buffers))
    if device.bgp is not None:
        parts.append(
            Text(
                f"BGP AS{device.bgp.asn} router-id {device.bgp.router_id}: "
                + ", ".join(f"{n.peer} AS{n.remote_asn}" for n in device.bgp.neighbors)
            )
        )
    if device.host is not None and device.host.nccl_env:
        parts.append(Text("NCCL: " + " ".join(f"{k}={v}" for k, v in device.host.nccl_env.items())))
    return Group(*parts)


def _headroom_table(buffers: Buffers) -> Table:
    """One row per lossless profile: the ports it is on, its numbers, and the table row or formula they are from."""
    what = [f"{buffers.model} buffer model"]
    if buffers.sku:
        what.append(f"SKU {buffers.sku}")
    if buffers.cable_rounding == "up":
        what.append("cable rounding up")
    b = Table(title=f"lossless headroom ({', '.join(what)})", title_justify="left")
    for col in ("profile", "ports", "xon", "xoff", "size", "dynamic_th", "source"):
        b.add_column(col, overflow="fold")
    ports: dict[str, list[str]] = {}
    for port, pgs in buffers.port_priority_groups.items():
        for name in dict.fromkeys(pgs.values()):
            ports.setdefault(name, []).append(port)
    for p in buffers.profiles.values():
        on = ports.get(p.name, [])
        b.add_row(
            p.name,
            ", ".join(on[:6]) + (f" +{len(on) - 6}" if len(on) > 6 else ""),
            str(p.xon),
            str(p.xoff),
            str(p.size),
            "" if p.dynamic_th is None else str(p.dynamic_th),
            p.source,
        )
    return b


_STATUS_STYLE = {"success": "green", "failure": "red", "error": "magenta", "skipped": "dim", "unset": "dim"}


def check_results(results: list[CheckResult]) -> RenderableType:
    table = Table(title="checks", title_justify="left")
    for col in ("check", "status", "findings"):
        table.add_column(col)
    for r in results:
        style = _STATUS_STYLE[r.status.value]
        status = r.status.value + (" (warning)" if r.findings and r.severity.value == "warning" else "")
        detail = "\n".join(str(f) for f in r.findings[:10])
        if len(r.findings) > 10:
            detail += f"\n... and {len(r.findings) - 10} more"
        table.add_row(r.id, f"[{style}]{status}[/{style}]", detail or (r.message or ""))
    return table
