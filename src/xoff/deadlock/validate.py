"""Structural checks of a snapshot: the rules of forwarding-snapshot.md that a schema cannot state.

``check_snapshot`` returns every problem as (data path, message, points at a mapping key). The
paths follow the file format (``links[3].b_port``, ``forwarding.H1.S2[0]``), so the file loader
can pin each one to file:line:column; producers that build snapshots in code get the same
messages. Forwarding next-hop tuples that are the same object are checked once, which keeps this
cheap on fabric-scale snapshots that share them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xoff.deadlock.model import PRIORITIES, Snapshot

DataPath = tuple[str | int, ...]
_MAX_LISTED = 10


@dataclass(frozen=True, slots=True)
class SnapshotProblem:
    """One structural problem: where (a path in the file format) and what is wrong."""

    path: DataPath
    message: str
    at_key: bool = False  # the path names a mapping key (an unknown name), not a value


def _listing(names: Iterable[str]) -> str:
    ordered = sorted(names)
    if not ordered:
        return "none"
    shown = ", ".join(ordered[:_MAX_LISTED])
    return shown + (", ..." if len(ordered) > _MAX_LISTED else "")


class _Checker:
    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.problems: list[SnapshotProblem] = []
        self.switches = set(snap.switches)
        self.hosts = set(snap.hosts)
        self.ports: dict[str, dict[str, int]] = {}  # device -> port -> link index (first link using it)
        self.up_ports: dict[str, set[str]] = {}

    def add(self, path: DataPath, message: str, *, at_key: bool = False) -> None:
        self.problems.append(SnapshotProblem(path, message, at_key))

    def devices(self) -> None:
        seen: dict[str, str] = {}
        for kind in ("switches", "hosts"):
            names = self.snap.switches if kind == "switches" else self.snap.hosts
            for i, name in enumerate(names):
                if name in seen:
                    self.add(
                        ("devices", kind, i),
                        f"{name!r} is already listed in devices.{seen[name]} (allowed: each device name once)",
                    )
                else:
                    seen[name] = kind

    def links(self) -> None:
        ids: set[str] = set()
        up_count = dict.fromkeys(self.snap.hosts, 0)
        for i, link in enumerate(self.snap.links):
            if link.id in ids:
                self.add(("links", i, "id"), f"{link.id!r} is already used (allowed: each link id once)")
            ids.add(link.id)
            ends = ((link.a, link.a_port, "a"), (link.b, link.b_port, "b"))
            known = True
            for device, port, side in ends:
                known = self._link_end(i, link.up, device, port, side) and known
            if known and link.a == link.b:
                self.add(("links", i, "b"), f"link joins {link.a!r} to itself (allowed: two different devices)")
            if link.up:
                for device, _, _ in ends:
                    if device in up_count:
                        up_count[device] += 1
        for i, host in enumerate(self.snap.hosts):
            n = up_count.get(host, 0)
            if n != 1 and host not in self.switches:
                self.add(("devices", "hosts", i), f"host {host!r} has {n} up links (allowed: exactly one)")

    def _link_end(self, i: int, up: bool, device: str, port: str, side: str) -> bool:
        """Record one end of link ``i``; False when its device is unknown."""
        if device not in self.switches and device not in self.hosts:
            self.add(("links", i, side), f"{device!r} is not a device (allowed: a name from devices)")
            return False
        used = self.ports.setdefault(device, {})
        if port in used:
            other = self.snap.links[used[port]].id
            self.add(
                ("links", i, f"{side}_port"),
                f"port {port!r} of {device!r} is already on link {other!r} (allowed: each port in at most one link)",
            )
        else:
            used[port] = i
            if up:
                self.up_ports.setdefault(device, set()).add(port)
        return True

    def _priorities(self, path: DataPath, prios: Iterable[int]) -> None:
        for p in sorted(prios):
            if p not in PRIORITIES:
                self.add(path, f"{p} is out of range (allowed: 0..7)")

    def lossless(self) -> None:
        self._priorities(("lossless_default",), self.snap.lossless_default)
        for device, per_port in self.snap.lossless.items():
            if device not in self.switches and device not in self.hosts:
                self.add(
                    ("lossless", device), f"{device!r} is not a device (allowed: a name from devices)", at_key=True
                )
                continue
            ports = self.ports.get(device, {})
            for port, prios in per_port.items():
                if port not in ports:
                    self.add(
                        ("lossless", device, port),
                        f"{device!r} has no port {port!r} on any link (allowed: {_listing(ports)})",
                        at_key=True,
                    )
                self._priorities(("lossless", device, port), prios)

    def rewrites(self) -> None:
        for i, rule in enumerate(self.snap.rewrites):
            if rule.switch not in self.switches:
                self.add(
                    ("priority_rewrite", i, "switch"),
                    f"{rule.switch!r} is not a switch (allowed: a name from devices.switches)",
                )
                continue
            ports = self.ports.get(rule.switch, {})
            for key, chosen in (("in_port", rule.in_ports), ("out_port", rule.out_ports)):
                for port in sorted(chosen or ()):
                    if port not in ports:
                        self.add(
                            ("priority_rewrite", i, key),
                            f"{rule.switch!r} has no port {port!r} on any link (allowed: {_listing(ports)} or '*')",
                        )
            self._priorities(("priority_rewrite", i, "from"), (rule.from_prio,))
            self._priorities(("priority_rewrite", i, "to"), (rule.to_prio,))

    def forwarding(self) -> None:
        checked: dict[tuple[str, int], bool] = {}
        for dest, per_switch in self.snap.forwarding.items():
            if dest not in self.hosts:
                what = "a switch" if dest in self.switches else "not a device"
                self.add(("forwarding", dest), f"{dest!r} is {what} (allowed: a name from devices.hosts)", at_key=True)
            for switch, hops in per_switch.items():
                if switch not in self.switches:
                    what = "a host, which never forwards" if switch in self.hosts else "not a switch"
                    self.add(
                        ("forwarding", dest, switch),
                        f"{switch!r} is {what} (allowed: a name from devices.switches)",
                        at_key=True,
                    )
                    continue
                key = (switch, id(hops))
                if checked.get(key):
                    continue  # this very tuple was already found sound at this switch
                checked[key] = self._hops(("forwarding", dest, switch), switch, hops)

    def _hops(self, path: DataPath, switch: str, hops: tuple[str, ...]) -> bool:
        up = self.up_ports.get(switch, set())
        ok = True
        seen: set[str] = set()
        for k, port in enumerate(hops):
            if port in seen:
                self.add((*path, k), f"port {port!r} is listed twice (allowed: each next-hop port once)")
                ok = False
            seen.add(port)
            if port not in up:
                ports = self.ports.get(switch, {})
                state = "is on a link that is down" if port in ports else "is not a port of any link"
                self.add((*path, k), f"{port!r} {state} (allowed: up ports of {switch!r}: {_listing(up)})")
                ok = False
        return ok  # a faulty tuple is re-checked at every use, so each use is reported


def check_snapshot(snap: Snapshot) -> list[SnapshotProblem]:
    """Every structural problem of ``snap`` (empty when it is sound)."""
    checker = _Checker(snap)
    checker.devices()
    checker.links()
    checker.lossless()
    checker.rewrites()
    checker.forwarding()
    return checker.problems
