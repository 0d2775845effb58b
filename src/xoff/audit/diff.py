"""``diff_snapshots``: what changed in the running state between snapshot A and snapshot B.

Faithful to what was observed: a device's values are compared only on the field paths read on both sides
(``Snapshot.observed_fields``); a path read on one side only is reported as such, never compared with a copy of
desired. LLDP, BGP, FIB, host facts and InfiniBand are compared where both snapshots hold them for the device; held on
one side only is said (``one side``). Counters are rates (``audit.rates``). Lists are matched by their natural key
(a port, a peer address, a prefix), so a reordered list is no change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from xoff.audit.model import Change, Section, Side, SnapshotDiff
from xoff.audit.rates import interval_s, rates
from xoff.contracts.observed import BgpSession, FibRoute, LldpNeighbor, Snapshot
from xoff.validate.drift import absent, device_drift, show

T = TypeVar("T")


def side(snap: Snapshot, path: str) -> Side:
    return Side(
        path=path,
        collected_at=snap.collected_at,
        intent_sha256=snap.intent_sha256,
        xoff_version=snap.xoff_version,
        devices=len(snap.observed.devices),
        errors=[f"{e.device}: {e.kind}: {e.command or '-'}: {e.message}" for e in snap.errors],
    )


def diff_snapshots(
    a: Snapshot, b: Snapshot, a_path: str = "A", b_path: str = "B", devices: frozenset[str] | None = None
) -> SnapshotDiff:
    """Every change from ``a`` to ``b`` on ``devices`` (None: all), section by section."""
    chosen = devices if devices is not None else frozenset(a.observed.devices) | frozenset(b.observed.devices)
    both = sorted(chosen & set(a.observed.devices) & set(b.observed.devices))
    result = SnapshotDiff(a.fabric, side(a, a_path), side(b, b_path), interval_s(a.collected_at, b.collected_at))
    result.limited_to = sorted(chosen) if devices is not None else None
    errored = {e.device for e in (*a.errors, *b.errors)}
    candidates = chosen if devices is not None else frozenset(errored)  # --limit: the chosen ones; else every errored
    result.unread = sorted(candidates - set(a.observed.devices) - set(b.observed.devices))
    result.changes += _devices(a, b, chosen)
    for name in both:
        result.changes += _values(a, b, name)
        result.changes += _generic(
            "ports", name, _dump(a.port_settings.get(name, {})), _dump(b.port_settings.get(name, {}))
        )
        result.changes += _keyed("cabling", name, a.lldp, b.lldp, _lldp)
        result.changes += _keyed("bgp", name, a.bgp_sessions, b.bgp_sessions, _bgp)
        result.changes += _keyed("fib", name, a.fib, b.fib, _fib)
        result.changes += _hosts(a, b, name)
        result.changes += _counters(a, b, name, result)
    result.changes += _infiniband(a, b)
    return result


def _devices(a: Snapshot, b: Snapshot, chosen: frozenset[str]) -> Iterator[Change]:
    """A device read in one snapshot and not the other (with B's collect error when it has one)."""
    reasons = {e.device: f"not read: {e.kind}: {e.message}" for e in (*a.errors, *b.errors)}
    for name in sorted(chosen):
        in_a, in_b = name in a.observed.devices, name in b.observed.devices
        if in_a and not in_b:
            yield Change("devices", name, "device", "removed", before="observed", after=reasons.get(name))
        elif in_b and not in_a:
            yield Change("devices", name, "device", "added", before=reasons.get(name), after="observed")


def _dump(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else _dump_map(value)


def _dump_map(value: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v.model_dump(mode="json") if hasattr(v, "model_dump") else v) for k, v in value.items()}


def _generic(section: Section, device: str, before: Any, after: Any, paths: Iterable[str] = ("*",)) -> list[Change]:
    out = []
    for d in device_drift(before, after, list(paths)):
        if absent(d.desired):
            out.append(Change(section, device, d.path, "added", None, show(d.observed)))
        elif absent(d.observed):
            out.append(Change(section, device, d.path, "removed", show(d.desired), None))
        else:
            out.append(Change(section, device, d.path, "changed", show(d.desired), show(d.observed)))
    return out


def _values(a: Snapshot, b: Snapshot, name: str) -> list[Change]:
    """The device's observed values, on the paths both collects read."""
    read_a, read_b = set(a.observed_fields.get(name, [])), set(b.observed_fields.get(name, []))
    dev_a, dev_b = a.observed.devices[name].model_dump(mode="json"), b.observed.devices[name].model_dump(mode="json")
    out = _generic("values", name, dev_a, dev_b, sorted(read_a & read_b))
    for path in sorted(read_a - read_b):
        out.append(Change("values", name, path, "one side", before="read", after=None))
    for path in sorted(read_b - read_a):
        out.append(Change("values", name, path, "one side", before=None, after="read"))
    return out


def _keyed(
    section: Section,
    name: str,
    a: Mapping[str, list[T]],
    b: Mapping[str, list[T]],
    key: Callable[[T], tuple[str, str]],
) -> list[Change]:
    """One device's list (LLDP neighbours, BGP sessions, routes), matched by ``key`` (subject, value shown)."""
    if name not in a and name not in b:
        return []
    if (name in a) != (name in b):
        held = "read" if name in a else None
        return [Change(section, name, section, "one side", before=held, after=None if held else "read")]
    before, after = dict(map(key, a[name])), dict(map(key, b[name]))
    out = []
    for subject in sorted(set(before) | set(after)):
        was, now = before.get(subject), after.get(subject)
        if was == now:
            continue
        if was is None:
            out.append(Change(section, name, subject, "added", None, now))
        elif now is None:
            out.append(Change(section, name, subject, "removed", was, None))
        else:
            out.append(Change(section, name, subject, "moved" if section == "cabling" else "changed", was, now))
    return out


def _lldp(n: LldpNeighbor) -> tuple[str, str]:
    return n.port, f"{n.neighbor} {n.neighbor_port}"


def _bgp(s: BgpSession) -> tuple[str, str]:
    received = "" if s.prefixes_received is None else f", {s.prefixes_received} prefixes"
    return f"neighbor {s.address}", f"AS{s.remote_asn} {s.state}{received}"


def _fib(r: FibRoute) -> tuple[str, str]:
    return r.prefix, f"{r.protocol} via {','.join(r.ports) or '(local)'}"


def _hosts(a: Snapshot, b: Snapshot, name: str) -> list[Change]:
    if name not in a.hosts and name not in b.hosts:
        return []
    if (name in a.hosts) != (name in b.hosts):
        held = "read" if name in a.hosts else None
        return [Change("hosts", name, "host facts", "one side", before=held, after=None if held else "read")]
    return _generic(
        "hosts", name, _host(a.hosts[name].model_dump(mode="json")), _host(b.hosts[name].model_dump(mode="json"))
    )


def _by(items: list[dict[str, Any]] | None, key: Callable[[dict[str, Any]], str]) -> dict[str, Any] | None:
    """A list of records as a map by their natural key, so one changed entry is named (None stays None: not read)."""
    return None if items is None else {key(i): i for i in items}


def _host(dump: dict[str, Any]) -> dict[str, Any]:
    """Host facts with their lists keyed: a GID by device/port/index, a GPU's NIC path by GPU, an HCA port by CA/port."""
    return {
        **dump,
        "gids": _by(dump.get("gids"), lambda g: f"{g['rdma']}/{g['port']}/{g['index']}"),
        "gpu_nic_paths": _by(dump.get("gpu_nic_paths"), lambda p: f"GPU{p['gpu']}"),
        "ib_ports": _by(dump.get("ib_ports"), lambda p: f"{p['ca']}/{p['port']}"),
    }


def _counters(a: Snapshot, b: Snapshot, name: str, result: SnapshotDiff) -> list[Change]:
    """The device's counter rates go to ``result.rates``; resets and ports read on one side are changes."""
    moved, resets = rates(name, a.counters.get(name, {}), b.counters.get(name, {}), result.interval_s)
    result.rates += moved
    return resets


_IB_CONTEXT = {"source", "notes"}  # where and how it was read: not state


def _infiniband(a: Snapshot, b: Snapshot) -> list[Change]:
    if a.infiniband is None and b.infiniband is None:
        return []
    if a.infiniband is None or b.infiniband is None:
        held = "read" if a.infiniband is not None else None
        return [Change("infiniband", "", "infiniband", "one side", before=held, after=None if held else "read")]
    before = {k: v for k, v in a.infiniband.model_dump(mode="json").items() if k not in _IB_CONTEXT}
    after = {k: v for k, v in b.infiniband.model_dump(mode="json").items() if k not in _IB_CONTEXT}
    for dump in (before, after):  # an SL2VL table by its input and output port
        dump["sl2vl"] = {
            node: _by(tables, lambda t: f"{t['in_port']}>{t['out_port']}") for node, tables in dump["sl2vl"].items()
        }
    return _generic("infiniband", "", before, after)
