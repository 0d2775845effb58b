"""Run the platform collectors over the targets in parallel and assemble a Snapshot.

One Nornir task per device (``connect.runner``: ``workers`` in flight, the same runner push uses);
each opens one session (``Connector``: by default ``connect.session.open_session``, the same netmiko
options push gets), runs its collector's commands, saves every raw capture (secrets masked) and parses. A device that cannot be
reached, refuses the login or the host key, times out or refuses a command becomes a CollectError
entry; it never appears as an empty, so "clean", device. The InfiniBand fabric, when the intent has
one, is read through ``platforms.infiniband`` from the subnet manager host.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nornir.core.task import Task

from xoff.connect.credentials import CredentialSet, mask
from xoff.connect.runner import build_nornir, run_task
from xoff.connect.session import CommandSession, Connector, ConnectSpec, classify, open_session
from xoff.connect.targets import Target
from xoff.contracts.collect import Collector, Command, DeviceObservation, refused
from xoff.contracts.infiniband import IbObservation
from xoff.contracts.observed import CollectError, PortSettings, Snapshot
from xoff.desired.models import FabricState
from xoff.platforms.registry import collector_for, get_platform
from xoff.progress import ProgressHook, Stage, no_progress, stage

InfinibandReader = Callable[[], IbObservation]  # raises on failure


@dataclass
class CollectOptions:
    workers: int = 20
    timeout_s: float = 20.0
    raw_dir: Path | None = None  # <snapshot>.raw: raw captures per device and command
    progress: ProgressHook = no_progress  # the stage "collect", a step per device read (xoff.progress)


@dataclass
class DeviceRun:
    target: Target
    observation: DeviceObservation | None = None
    errors: list[CollectError] = field(default_factory=list)
    elapsed_s: float = 0.0


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def _save_raw(raw_dir: Path | None, device: str, slug: str, text: str) -> None:
    if raw_dir is None:
        return
    folder = raw_dir / device
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{slug}.txt").write_text(text, encoding="utf-8")


def _run(
    session: CommandSession, commands: list[Command], timeout_s: float
) -> Iterator[tuple[Command, str | Exception]]:
    """Each command with its output or the exception it raised, in order: all in one exec channel
    when the session can (``connect.channel.ExecSession.run_batch``), else one after the other (stopping is the
    caller's choice: the generator runs a command only when asked for its result)."""
    run_batch = getattr(session, "run_batch", None)
    if run_batch is not None and len(commands) > 1:
        try:
            results: list[str | Exception] = run_batch([c.text for c in commands], timeout_s)
        except Exception as exc:  # the channel itself failed: said once, against the first command
            yield commands[0], exc
            return
        yield from zip(commands, results, strict=True)
        return
    for command in commands:
        try:
            yield command, str(session.send_command(command.text, read_timeout=timeout_s))
        except Exception as exc:
            yield command, exc


def collect_device(
    target: Target,
    desired: FabricState,
    creds: CredentialSet,
    known_hosts: Path | None,
    options: CollectOptions,
    connect: Connector = open_session,
) -> DeviceRun:
    started = time.monotonic()
    run = DeviceRun(target)
    secrets = creds.secrets()
    device = desired.devices[target.name]

    def error(kind: str, command: str | None, message: str) -> None:
        run.errors.append(
            CollectError(device=target.name, command=command, kind=kind, message=_one_line(mask(message, secrets)))
        )

    try:
        collector: Collector = collector_for(target.platform)
        transport = get_platform(target.platform).transport
        if transport is None:
            raise KeyError("it is not reached over SSH")
    except (KeyError, ImportError) as exc:
        error("command", None, f"no collector for platform {target.platform}: {exc}")
        return run
    spec = ConnectSpec(
        target=target,
        credentials=creds.for_device(target.platform, target.kind),
        known_hosts=known_hosts,
        timeout_s=options.timeout_s,
        enable=transport.enable,
        exec_channel=transport.exec_channel,
    )
    outputs: dict[str, str] = {}
    try:
        session = connect(spec)
    except Exception as exc:  # every failure to connect is classified
        error(classify(exc), None, f"{type(exc).__name__}: {exc}")
        run.elapsed_s = time.monotonic() - started
        return run
    try:
        for command, result in _run(session, collector.commands(device), options.timeout_s):
            if isinstance(result, Exception):
                error(classify(result), command.text, f"{type(result).__name__}: {result}")
                if classify(result) in ("unreachable", "timeout"):
                    break
                continue
            text = mask(result, secrets)
            _save_raw(options.raw_dir, target.name, command.slug, text)
            refusal = refused(text)
            if refusal is not None:
                error("command", command.text, refusal)
                continue
            outputs[command.text] = text
    finally:
        with contextlib.suppress(Exception):  # a failed goodbye loses nothing already read
            session.disconnect()
    run.observation = collector.parse(outputs, device)
    run.elapsed_s = time.monotonic() - started
    return run


def assemble(
    desired: FabricState,
    runs: Iterable[DeviceRun],
    infiniband: IbObservation | None = None,
    extra_errors: Iterable[CollectError] = (),
) -> Snapshot:
    """The Snapshot: observed devices (those read), extras, every error, in device order."""
    devices = {}
    fields: dict[str, list[str]] = {}
    lldp, bgp, counters, hosts = {}, {}, {}, {}
    fib = {}
    port_settings: dict[str, dict[str, PortSettings]] = {}
    pool_watermarks: dict[str, dict[str, int]] = {}
    unmodelled: dict[str, dict[str, int]] = {}
    errors: list[CollectError] = []
    lab_only: set[str] = set()
    for run in sorted(runs, key=lambda r: r.target.name):
        name = run.target.name
        errors += run.errors
        obs = run.observation
        if obs is None:
            continue
        errors += obs.errors
        lab_only.update(obs.lab_only)
        if obs.device is not None:
            devices[name] = obs.device
            fields[name] = obs.fields
        if obs.lldp is not None:
            lldp[name] = obs.lldp
        if obs.bgp_sessions is not None:
            bgp[name] = obs.bgp_sessions
        if obs.counters:
            counters[name] = obs.counters
        if obs.host is not None:
            hosts[name] = obs.host
        if obs.fib is not None:
            fib[name] = obs.fib
        if obs.port_settings:
            port_settings[name] = obs.port_settings
        if obs.buffer_pool_watermarks is not None:
            pool_watermarks[name] = obs.buffer_pool_watermarks
        if obs.unmodelled:
            unmodelled[name] = dict(sorted(obs.unmodelled.items()))
    errors += list(extra_errors)
    observed = desired.model_copy(update={"source": "observed", "devices": devices})
    return Snapshot(
        fabric=desired.fabric,
        collected_at=datetime.now(UTC).isoformat(timespec="seconds"),
        observed=FabricState.model_validate(observed.model_dump()),
        observed_fields=fields,
        lldp=lldp,
        bgp_sessions=bgp,
        counters=counters,
        hosts=hosts,
        fib=fib,
        infiniband=infiniband,
        port_settings=port_settings,
        buffer_pool_watermarks=pool_watermarks,
        unmodelled=unmodelled,
        errors=errors,
        lab_only=sorted(lab_only),
    )


def _collect_task(task: Task, by_name: dict[str, Target], steps: Stage, **kwargs: Any) -> DeviceRun:
    run = collect_device(by_name[task.host.name], **kwargs)
    kinds = sorted({e.kind for e in run.errors})
    steps.step(task.host.name, f"failed: {', '.join(kinds)}" if kinds else "")
    return run


def _read_infiniband(infiniband: InfinibandReader) -> tuple[IbObservation | None, list[CollectError]]:
    try:
        return infiniband(), []
    except Exception as exc:  # the SM host could not be read
        return None, [CollectError(device="infiniband", command=None, kind="unreachable", message=_one_line(str(exc)))]


def _one_round_trip(target: Target) -> bool:
    try:
        transport = get_platform(target.platform).transport
    except (KeyError, ImportError):  # no collector: fails at once wherever it is
        return True
    return transport is not None and transport.exec_channel


def round_trips_first(targets: list[Target]) -> list[Target]:
    """The targets in the order the workers start them: CLI sessions (a round trip per command, the longest
    devices) before exec-channel ones (every command in one round trip), each group in the given order. With
    the hosts first, a 64-device lab's 16 switches started last and ran on alone for their last ~1.4 s; started
    first, their waits overlap the hosts' work. The snapshot is assembled in device-name order either way."""
    return sorted(targets, key=_one_round_trip)


def collect(
    desired: FabricState,
    targets: list[Target],
    creds: CredentialSet,
    known_hosts: Path | None,
    options: CollectOptions,
    *,
    connect: Connector = open_session,
    infiniband: InfinibandReader | None = None,
) -> Snapshot:
    """Collect every target (in parallel) and the InfiniBand fabric (if a reader is given)."""
    workers = max(1, min(options.workers, len(targets) or 1))
    targets = round_trips_first(targets)
    nr = build_nornir(targets, creds, known_hosts, workers=workers, timeout_s=options.timeout_s)
    by_name = {t.name: t for t in targets}
    with ThreadPoolExecutor(1) as pool, stage(options.progress, "collect", len(targets)) as steps:
        ib = pool.submit(_read_infiniband, infiniband) if infiniband is not None else None
        values = run_task(
            nr,
            targets,
            _collect_task,
            by_name=by_name,
            steps=steps,
            desired=desired,
            creds=creds,
            known_hosts=known_hosts,
            options=options,
            connect=connect,
        )
        ib_data, extra = ib.result() if ib is not None else (None, [])
    for value in values:
        if isinstance(value, BaseException):  # collect_device reports every device error; this is a bug
            raise value
    return assemble(desired, values, ib_data, extra)


def raw_dir_for(snapshot_path: Path) -> Path:
    """``<snapshot>.raw`` beside the snapshot file."""
    return snapshot_path.with_name(snapshot_path.name + ".raw")
