"""The Prometheus endpoint of ``xoff watch --listen HOST:PORT``: the latest reading of every device, as scraped.

``Exporter`` is a prometheus-client collector. The watch loop hands it each round's samples (``on_round``); a scrape
serves, per device, the readings of its latest sample as the metrics of ``xoff.watch.metrics.METRICS`` (counters as
counters with the device's own totals, so Prometheus' ``rate()`` sees resets itself; gauges as gauges), labelled
``device``, ``network`` and ``role`` from the intent plus the metric's own labels. A value not observed (None) is
no series at all, never 0; a device whose last read failed has no readings, ``xoff_up`` 0 and its error counted.

Beside the readings it serves what the alert rules compare against, from the intent (the headroom
planned per port and PG, the lossless queues, the planned ECN marking ceiling per queue, the lossless priorities
and their PG and queue: ``planned_readings``), and meta-metrics
(``META``). ``serve`` starts the HTTP endpoint in a daemon thread and returns a handle to close it.

How the loop plugs it in::

    exporter = Exporter.for_state(loaded.state)
    endpoint = serve("127.0.0.1:9108", exporter)
    ... every round: exporter.on_round(samples)
    endpoint.close()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from xoff.errors import usage_error
from xoff.watch.metrics import METRICS
from xoff.watch.sample import Reading, Sample

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

    from xoff.desired.models import FabricState

BASE_LABELS = ("device", "network", "role")
# the exporter's own metrics: name -> (kind, labels, help)
META: dict[str, tuple[str, tuple[str, ...], str]] = {
    "xoff_up": ("gauge", BASE_LABELS, "1: the device's last read succeeded; 0: it failed"),
    "xoff_scrape_timestamp_seconds": ("gauge", BASE_LABELS, "when the device's last read completed (Unix seconds)"),
    "xoff_scrape_readings": ("gauge", BASE_LABELS, "values observed in the device's last read"),
    "xoff_scrape_not_observed": ("gauge", BASE_LABELS, "values the device's last read did not give (N/A, absent)"),
    "xoff_scrape_unmodelled_fields": ("gauge", BASE_LABELS, "fields the device printed that xoff does not model"),
    "xoff_scrape_errors_total": ("counter", BASE_LABELS, "reads of the device that failed since xoff watch started"),
    "xoff_scrape_rounds_total": ("counter", (), "rounds of reads since xoff watch started"),
    "xoff_scrape_round_timestamp_seconds": ("gauge", (), "when the last round was handed to the exporter"),
    "xoff_exporter_rejected_readings": (
        "gauge",
        (),
        "readings of the last round with a metric or labels not in the catalogue",
    ),
}


@dataclass(frozen=True, slots=True)
class Identity:
    network: str  # the device's network; "" for a host, whose NICs each have theirs
    role: str
    port_networks: Mapping[str, str] = field(default_factory=dict)  # a host's netdev -> its NIC's network

    def network_of(self, port: str | None) -> str:
        return self.network or (self.port_networks.get(port, "") if port is not None else "")


def identities(state: FabricState) -> dict[str, Identity]:
    return {
        name: Identity(d.network or "", d.role, {n: nic.network for n, nic in (d.host.nics if d.host else {}).items()})
        for name, d in state.devices.items()
    }


def planned_readings(state: FabricState) -> dict[str, tuple[Reading, ...]]:
    """Per device, the intent's numbers the alert rules need (planned headroom per port and PG, lossless queues,
    the ECN ceiling per queue, the lossless priorities with their PG and queue), from the watch's own plan reader."""
    from xoff.watch.thresholds import device_plan  # noqa: PLC0415 - the plan reader loads the desired models

    out: dict[str, tuple[Reading, ...]] = {}
    for name, device in state.devices.items():
        plan = device_plan(device)
        readings = [
            Reading.of("xoff_pg_headroom_planned_bytes", float(b), port=p, pg=g)
            for (p, g), b in sorted((plan.headroom or {}).items())
        ]
        readings += [Reading.of("xoff_queue_lossless", 1.0, queue=q) for q in sorted(plan.lossless_queues)]
        readings += [
            Reading.of("xoff_queue_ecn_ratio_max", r, queue=q) for q, r in sorted((plan.ecn_high or {}).items())
        ]
        readings += [Reading.of("xoff_priority_lossless", 1.0, priority=p) for p in sorted(plan.lossless_priorities)]
        readings += [
            Reading.of("xoff_priority_pg", 1.0, priority=p, pg=g) for p, g in sorted((plan.pg_of or {}).items())
        ]
        readings += [
            Reading.of("xoff_priority_queue", 1.0, priority=p, queue=q)
            for p, q in sorted((plan.queue_of or {}).items())
        ]
        if readings:
            out[name] = tuple(readings)
    return out


@dataclass
class _Seen:
    """What the exporter holds between rounds (guarded by ``Exporter._lock``)."""

    latest: dict[str, Sample] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    rounds: int = 0
    round_at: float | None = None


class Exporter:
    """A prometheus-client collector over the latest sample of each device. Thread-safe: the loop calls
    ``on_round`` from its thread while the HTTP server's thread calls ``collect``."""

    def __init__(
        self,
        who: Mapping[str, Identity],
        planned: Mapping[str, tuple[Reading, ...]] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._who = dict(who)
        self._planned = dict(planned or {})
        self._clock = clock
        self._lock = threading.Lock()
        self._seen = _Seen()

    @classmethod
    def for_state(cls, state: FabricState) -> Exporter:
        return cls(identities(state), planned_readings(state))

    def on_round(self, samples: Sequence[Sample], _window: object = None) -> None:
        """The watch loop's hook, after every round: each device's sample replaces its previous one."""
        with self._lock:
            for sample in samples:
                self._seen.latest[sample.device] = sample
                if sample.error is not None:
                    self._seen.errors[sample.device] = self._seen.errors.get(sample.device, 0) + 1
            self._seen.rounds += 1
            self._seen.round_at = self._clock()

    def describe(self) -> list[Metric]:
        return []  # names vary with what devices report: nothing to check at registration

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            latest = dict(self._seen.latest)
            errors = dict(self._seen.errors)
            rounds, round_at = self._seen.rounds, self._seen.round_at
        families = _Families()
        for device in sorted(set(latest) | set(self._planned)):
            base = self._base(device, None)
            sample = latest.get(device)
            readings = self._planned.get(device, ())
            if sample is not None:
                _meta_of(families, base, sample, errors.get(device, 0))
                readings += sample.readings if sample.error is None else ()
            for reading in _deduplicated(readings):
                families.add_reading(self._base(device, reading.label("port")), reading)
        families.add_meta("xoff_scrape_rounds_total", (), float(rounds))
        if round_at is not None:
            families.add_meta("xoff_scrape_round_timestamp_seconds", (), round_at)
        families.add_meta("xoff_exporter_rejected_readings", (), float(families.rejected))
        yield from families.all()

    def _base(self, device: str, port: str | None) -> tuple[str, str, str]:
        who = self._who.get(device, Identity("", ""))
        return (device, who.network_of(port), who.role)


def _meta_of(families: _Families, base: tuple[str, ...], sample: Sample, errors: int) -> None:
    ok = sample.error is None
    families.add_meta("xoff_up", base, 1.0 if ok else 0.0)
    families.add_meta("xoff_scrape_timestamp_seconds", base, sample.at)
    families.add_meta("xoff_scrape_errors_total", base, float(errors))
    if ok:
        observed = sum(1 for r in sample.readings if r.value is not None)
        families.add_meta("xoff_scrape_readings", base, float(observed))
        families.add_meta("xoff_scrape_not_observed", base, float(len(sample.readings) - observed))
        families.add_meta("xoff_scrape_unmodelled_fields", base, float(sum(sample.unmodelled.values())))


def _deduplicated(readings: Iterable[Reading]) -> list[Reading]:
    """One value per series (metric + labels): a later reading of the same series wins."""
    by_key: dict[tuple[str, tuple[tuple[str, str], ...]], Reading] = {}
    for reading in readings:
        by_key[(reading.metric, reading.labels)] = reading
    return list(by_key.values())


class _Families:
    """The metric families of one scrape, made on first use, in catalogue order."""

    def __init__(self) -> None:
        self._families: dict[str, GaugeMetricFamily | CounterMetricFamily] = {}
        self.rejected = 0

    def add_reading(self, base: tuple[str, ...], reading: Reading) -> None:
        metric = METRICS.get(reading.metric)
        names = tuple(name for name, _ in reading.labels)
        if metric is None or sorted(names) != sorted(metric.labels):
            self.rejected += 1
            return
        if reading.value is None:
            return  # not observed: no series, never 0
        values = dict(reading.labels)
        family = self._family(metric.name, metric.kind, BASE_LABELS + metric.labels, metric.help)
        family.add_metric([*base, *(values[name] for name in metric.labels)], reading.value)

    def add_meta(self, name: str, labels: tuple[str, ...], value: float) -> None:
        kind, names, help_ = META[name]
        self._family(name, kind, names, help_).add_metric(list(labels), value)

    def _family(
        self, name: str, kind: str, labels: tuple[str, ...], help_: str
    ) -> GaugeMetricFamily | CounterMetricFamily:
        family = self._families.get(name)
        if family is None:
            maker = CounterMetricFamily if kind == "counter" else GaugeMetricFamily
            family = self._families[name] = maker(name, help_, labels=list(labels))
        return family

    def all(self) -> list[Metric]:
        order = {name: i for i, name in enumerate([*METRICS, *META])}
        return [self._families[n] for n in sorted(self._families, key=order.__getitem__)]


@dataclass
class Endpoint:
    """A running endpoint: where it listens (the port the OS gave when asked for 0), and how to stop it."""

    host: str
    port: int
    _server: WSGIServer
    _thread: threading.Thread

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[V6]:PORT`` or ``:PORT`` (every address, as Prometheus' own ``--web.listen-address``)."""
    host, sep, port = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise usage_error(f"--listen {text}: expected HOST:PORT, e.g. 127.0.0.1:9108")
    return (host or "0.0.0.0", int(port))  # ":PORT": every address


def serve(listen: str, exporter: Exporter) -> Endpoint:
    """Serve ``exporter`` at ``listen`` (``/metrics``, and any path) from a daemon thread."""
    host, port = parse_listen(listen)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(exporter)
    try:
        server, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        raise usage_error(f"--listen {listen}: {exc.strerror or exc}") from None
    return Endpoint(host, int(server.server_address[1]), server, thread)
