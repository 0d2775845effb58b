"""What ``xoff diff`` reports: changes of running state between two snapshots, counter rates, and what it could not
compare (collect errors, metadata)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

# the sections, in the order the reports list them
Section = Literal["devices", "values", "ports", "cabling", "bgp", "fib", "counters", "hosts", "infiniband"]
SECTIONS: tuple[Section, ...] = (
    "devices",
    "values",
    "ports",
    "cabling",
    "bgp",
    "fib",
    "counters",
    "hosts",
    "infiniband",
)
# what happened to one subject: changed value, added / removed (present on one side), moved (an LLDP neighbour),
# one side (observed in only one snapshot: not comparable), reset (a counter that went down)
What = Literal["changed", "added", "removed", "moved", "one side", "reset"]


@dataclass(frozen=True)
class Change:
    """One difference: ``device`` (empty for the fabric as a whole), the ``subject`` within it (a field path, a port,
    a peer address, a prefix), and the values as shown (None: absent on that side)."""

    section: Section
    device: str
    subject: str
    what: What
    before: str | None = None
    after: str | None = None

    def line(self) -> str:
        where = f"{self.device}: " if self.device else ""
        if self.what in {"changed", "moved"}:
            return f"{where}{self.subject}: {self.what} {self.before} -> {self.after}"
        if self.what == "added":
            return f"{where}{self.subject}: added {self.after}"
        if self.what == "removed":
            return f"{where}{self.subject}: removed (was {self.before})"
        if self.what == "reset":
            return f"{where}{self.subject}: counter reset ({self.before} -> {self.after}: cleared or rebooted, no rate)"
        side = "A" if self.before is not None else "B"
        return f"{where}{self.subject}: observed only in snapshot {side} ({self.before or self.after}), not compared"


@dataclass(frozen=True)
class Rate:
    """A counter that moved between the two snapshots: its increase and its rate per second over the interval."""

    device: str
    port: str
    counter: str  # pfc.rx_pause.3, queues.3.dropped_packets, watchdog.3.storms_detected
    delta: int
    per_second: float | None  # None: the interval is not known (a collected_at that does not parse, or not later)

    def line(self) -> str:
        rate = f"{self.per_second:.3g}/s" if self.per_second is not None else "interval not known"
        return f"{self.device} {self.port} {self.counter}: +{self.delta} ({rate})"


@dataclass(frozen=True)
class Side:
    """One snapshot as the report names it."""

    path: str
    collected_at: str
    intent_sha256: str | None  # None: not recorded
    xoff_version: str | None
    devices: int
    errors: list[str]  # its collect errors, one line each


@dataclass
class SnapshotDiff:
    fabric: str
    a: Side
    b: Side
    interval_s: float | None  # b.collected_at - a.collected_at; None: not known
    changes: list[Change] = field(default_factory=list)
    rates: list[Rate] = field(default_factory=list)
    limited_to: list[str] | None = None  # --limit: the devices compared (None: all)
    unread: list[str] = field(default_factory=list)  # chosen devices read in neither snapshot: nothing compared

    @property
    def headline(self) -> list[str]:
        """Said first: a different intent or xoff between the two collects."""
        out = []
        if self.a.intent_sha256 != self.b.intent_sha256:
            out.append(
                f"intent differs: {self.a.intent_sha256 or 'not recorded'} -> {self.b.intent_sha256 or 'not recorded'}"
            )
        if self.a.xoff_version != self.b.xoff_version:
            out.append(
                f"xoff differs: {self.a.xoff_version or 'not recorded'} -> {self.b.xoff_version or 'not recorded'}"
            )
        return out

    @property
    def changed(self) -> bool:
        """Something in the running state changed (counter rates alone are traffic, not a change)."""
        return bool(self.changes)

    def by_section(self) -> dict[str, list[Change]]:
        grouped: dict[str, list[Change]] = {s: [] for s in SECTIONS}
        for c in self.changes:
            grouped[c.section].append(c)
        return {s: cs for s, cs in grouped.items() if cs}

    def as_dict(self) -> dict[str, Any]:
        return {
            "fabric": self.fabric,
            "changed": self.changed,
            "headline": self.headline,
            "a": asdict(self.a),
            "b": asdict(self.b),
            "interval_s": self.interval_s,
            "limited_to": self.limited_to,
            "unread": self.unread,
            "counts": {s: len(cs) for s, cs in self.by_section().items()},
            "changes": [asdict(c) for c in self.changes],
            "rates": [asdict(r) for r in self.rates],
        }
