"""``watch``: read the fabric's counters over time and judge the signals of a lossless fabric in trouble.

The counters come from exactly one of: a recording (``replay``: JSON Lines of samples, nothing contacted), a lab
(``lab``: its devices through the SSH source), or the real devices at the intent's management addresses (``live``);
with none of them, or more than one, ``InputError`` and nothing is contacted. ``once`` reads for one window (at
least two rounds) and returns; otherwise rounds go on until Ctrl-C (``KeyboardInterrupt`` is caught: the report of
the window so far comes back with ``interrupted``) or the replay runs out.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.api.intent import IntentSource, load
from xoff.errors import InputError, UsageProblem, usage_error

if TYPE_CHECKING:
    from xoff.desired.models import FabricState
    from xoff.watch.live import Change
    from xoff.watch.report import WatchReport
    from xoff.watch.run import RoundHook
    from xoff.watch.sample import CounterSource

MODES = "--replay FILE, --lab NAME, --live"
WATCHED_KINDS = ("switch", "host")  # InfiniBand switches have no watch signals yet


@dataclass(frozen=True)
class WatchOptions:
    interval_s: float = 10.0
    window_s: float = 60.0
    once: bool = False  # one window (at least two rounds), then report
    replay: Path | None = None  # samples recorded by --record (JSON Lines): nothing contacted
    lab: str | None = None  # read the running lab of this name
    live: bool = False  # read the real devices at the intent's management addresses
    source: str = "ssh"  # lab and live: ssh (gnmi where 18-gnmi wires it)
    record: Path | None = None  # also write every sample read (JSON Lines)
    limit: tuple[str, ...] = ()  # devices read and judged: push's --limit syntax
    thresholds: tuple[str, ...] = ()  # NAME=VALUE overrides of watch.thresholds.Thresholds
    secrets: Path | None = None
    known_hosts: Path | None = None
    workers: int = 16
    timeout_s: float = 20.0
    listen: str | None = None  # HOST:PORT: serve the latest readings to Prometheus (xoff.watch.exporter)


def _check(options: WatchOptions) -> None:
    given = sum((options.replay is not None, options.lab is not None, options.live))
    problems: list[str] = []
    if given != 1:
        problems.append(f"xoff watch: say where the counters come from: one of {MODES} (real devices only with --live)")
    if not (math.isfinite(options.interval_s) and options.interval_s > 0):
        problems.append(f"xoff watch: --interval must be a positive number of seconds, not {options.interval_s}")
    if not (math.isfinite(options.window_s) and options.window_s >= options.interval_s > 0):
        problems.append(f"xoff watch: --window ({options.window_s} s) must be at least one --interval")
    if options.source not in ("ssh", "gnmi"):
        problems.append(f"xoff watch: --source {options.source}: known sources are ssh, gnmi")
    if problems:
        raise InputError([UsageProblem(None, "", p) for p in problems])


def _device_source(desired: FabricState, options: WatchOptions) -> tuple[FabricState, CounterSource]:
    """The SSH source, or gNMI for the switches that serve it and SSH for the rest (``--source gnmi``)."""
    import importlib  # noqa: PLC0415

    from xoff.connect.credentials import load_credentials  # noqa: PLC0415

    try:
        module = importlib.import_module(f"xoff.watch.{options.source}_source")
    except ModuleNotFoundError:
        raise usage_error(f"xoff watch: --source {options.source} is not in this build of xoff") from None
    if options.source not in ("ssh", "gnmi"):
        raise usage_error(f"xoff watch: --source {options.source} cannot be started from here yet")
    secrets, known_hosts = options.secrets, options.known_hosts
    if options.lab is not None:
        from xoff.connect.sources import open_source  # noqa: PLC0415

        lab = open_source("lab", options.lab)
        desired = lab.fabric
        secrets, known_hosts = secrets or lab.secrets_file, known_hosts or lab.known_hosts
    creds = load_credentials(secrets)
    from xoff.watch.ssh_source import SshCounterSource  # noqa: PLC0415

    ssh = SshCounterSource(
        desired, creds, known_hosts=known_hosts, timeout_s=options.timeout_s, workers=options.workers
    )
    if options.source == "ssh":
        return desired, ssh
    from xoff.watch.split_source import SplitSource  # noqa: PLC0415

    targets = module.targets_for(desired, creds)
    gnmi = module.GnmiCounterSource(targets, timeout=options.timeout_s, workers=options.workers)
    return desired, SplitSource(gnmi, set(targets), ssh)


def _exporter(stack: ExitStack, desired: FabricState, listen: str) -> RoundHook:
    """``--listen``: the Prometheus endpoint, open for as long as the loop runs; its hook takes every round."""
    from xoff.watch.exporter import Exporter, serve  # noqa: PLC0415

    exporter = Exporter.for_state(desired)
    stack.callback(serve(listen, exporter).close)
    return exporter.on_round


def _devices(desired: FabricState, limit: tuple[str, ...]) -> tuple[str, ...]:
    from xoff.validate.select import select_devices  # noqa: PLC0415

    chosen = select_devices(desired, limit)
    return tuple(
        sorted(n for n, d in desired.devices.items() if d.kind in WATCHED_KINDS and (chosen is None or n in chosen))
    )


def watch(
    source: IntentSource,
    options: WatchOptions,
    hooks: tuple[RoundHook, ...] = (),
    counters: CounterSource | None = None,
    pace: tuple[Callable[[float], None], Callable[[], float]] = (time.sleep, time.monotonic),
    changes: Callable[[Change], None] | None = None,
) -> WatchReport:
    """Read, keep the window, judge. ``hooks`` are called after every round (the exporter, a live display);
    ``counters``: a source given by the caller instead of the one the options name (tests, other tools); ``pace``:
    the sleep and the monotonic clock the rounds are scheduled on; ``changes``: continuous mode, the signals judge
    the window after every round and each finding that starts or clears is handed to it (``xoff.watch.live``)."""
    from xoff.report.meta import intent_hash  # noqa: PLC0415
    from xoff.watch.file_source import FileSource, Recorder  # noqa: PLC0415
    from xoff.watch.judge import Context  # noqa: PLC0415
    from xoff.watch.live import LiveJudge  # noqa: PLC0415
    from xoff.watch.report import WatchReport  # noqa: PLC0415
    from xoff.watch.run import Loop, rounds_for  # noqa: PLC0415
    from xoff.watch.signals import evaluate  # noqa: PLC0415
    from xoff.watch.thresholds import Thresholds, plans  # noqa: PLC0415
    from xoff.watch.window import Window  # noqa: PLC0415

    if counters is None:
        _check(options)
    thresholds = Thresholds().with_overrides(options.thresholds)
    loaded = load(source)
    desired = loaded.state
    devices = _devices(desired, options.limit)
    if counters is None and options.replay is not None:
        counters = FileSource.open(options.replay)
    elif counters is None:
        desired, counters = _device_source(desired, options)
    window = Window(options.window_s)
    interrupted = False
    kinds = {n: desired.devices[n].kind for n in devices}
    live = LiveJudge(thresholds, plans(desired), kinds, changes) if changes is not None else None
    with ExitStack() as stack:
        all_hooks = list(hooks)
        if options.record is not None:
            options.record.parent.mkdir(parents=True, exist_ok=True)
            all_hooks.insert(0, Recorder(stack.enter_context(options.record.open("w", encoding="utf-8"))))
        if options.listen is not None:
            all_hooks.append(_exporter(stack, desired, options.listen))
        if live is not None:
            all_hooks.append(live)
        close = getattr(counters, "close", None)
        if callable(close):
            stack.callback(close)
        rounds = rounds_for(options.window_s, options.interval_s) if options.once else None
        loop = Loop(counters, devices, options.interval_s, window, all_hooks, rounds, *pace)
        try:
            loop.run()
        except KeyboardInterrupt:
            interrupted = True
    judgements = evaluate(Context(window, thresholds, plans(desired), kinds))
    return WatchReport(
        desired,
        judgements,
        window,
        thresholds,
        getattr(counters, "name", "?"),
        options.interval_s,
        devices,
        intent_hash=intent_hash(loaded.intent),
        origin=str(options.replay) if options.replay else None,
        lab=options.lab,
        interrupted=interrupted,
        fired=live.fired if live is not None else 0,
    )
