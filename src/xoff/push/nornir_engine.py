"""The Nornir engine: each batch is one run of ``connect.runner`` (Nornir's threaded runner); each
device's task runs the engine-neutral flow (``device_flow``) through nornir_netmiko's connection,
opened with the options of ``connect.options``."""

from __future__ import annotations

import contextlib
import time

from nornir.core import Nornir
from nornir.core.task import Result, Task

from xoff.connect.nornir_inventory import CONNECTION
from xoff.connect.runner import build_nornir, run_task
from xoff.connect.session import connect_paced
from xoff.connect.targets import Target
from xoff.contracts.apply import Capabilities
from xoff.contracts.session import Session
from xoff.platforms.registry import get_platform, strategy_for
from xoff.push.device_flow import DeviceContext, push_device
from xoff.push.job import EventHook, PushJob, PushOptions, rollout_stages
from xoff.push.model import DeviceResult, Outcome, PushSummary
from xoff.push.rollout import roll_out


def _capabilities(platform: str) -> Capabilities:
    caps = get_platform(platform).capabilities
    if caps is None:
        raise KeyError(f"no push strategy for platform {platform!r}")
    return caps


def _device_task(task: Task, job: PushJob, options: PushOptions, on_event: EventHook, batch: int) -> Result:
    host = task.host
    platform = str(host.data["xoff_platform"])

    def connect() -> Session:
        return connect_paced(lambda: host.get_connection(CONNECTION, task.nornir.config), options.timeouts)

    def disconnect() -> None:
        with contextlib.suppress(Exception):
            host.close_connection(CONNECTION)

    ctx = DeviceContext(
        device=host.name,
        platform=platform,
        desired=job.desired.get(host.name, {}),
        run_id=job.run_id,
        backup_root=options.backup_dir,
        dry_run=options.dry_run,
        secrets=job.secrets,
        batch=batch,
        capabilities=_capabilities(platform),
        timeouts=options.timeouts,
    )
    result = push_device(ctx, strategy_for(platform, job.run_id), connect, disconnect, on_event)
    return Result(host=host, result=result, changed=result.outcome is Outcome.CHANGED)


def _run_batch(nr: Nornir, job: PushJob, options: PushOptions, on_event: EventHook):  # type: ignore[no-untyped-def]
    def run(batch: list[Target], number: int) -> list[DeviceResult]:
        values = run_task(nr, batch, _device_task, job=job, options=options, on_event=on_event, batch=number)
        return [
            value
            if isinstance(value, DeviceResult)
            # the task itself broke: report, do not hide it
            else DeviceResult(t.name, t.platform, Outcome.FAILED, error=f"task error: {value!r}", batch=number)
            for t, value in zip(batch, values, strict=True)
        ]

    return run


def run(job: PushJob, options: PushOptions, on_event: EventHook) -> PushSummary:
    started = time.monotonic()
    nr = build_nornir(
        job.targets,
        job.credentials,
        job.known_hosts,
        workers=options.workers,
        timeout_s=options.timeout_s,
        timeout_factor=options.timeout_factor,
    )
    plan, canary = rollout_stages(job, options)
    results, stages = roll_out(
        plan,
        _run_batch(nr, job, options, on_event),
        canary=canary,
        max_failures=options.max_failures,
        on_stage=on_event,
    )
    return PushSummary(results=results, elapsed_s=time.monotonic() - started, engine="nornir", stages=stages)
