"""xoff as a library: one function per job, typed options in, a typed result out, nothing printed.

    from xoff import api

    loaded = api.load("inventory/lab-mini")                     # Intent + desired FabricState
    report = api.check(loaded)                                   # the pre-change catalog on the plan
    out = api.render(loaded, api.RenderOptions(output=None))     # files in memory, nothing written
    result = api.validate(loaded, api.ValidateOptions(offline=True))
    risk = api.deadlock(api.DeadlockOptions(intent=Path("inventory/lab-mini")))
    summary = api.push("inventory/lab-mini", api.PushOptions(lab="mini", dry_run=True)).summary

Every job takes an intent path (or a ``Loaded`` from :func:`load`, to load once and run several jobs),
raises :class:`xoff.errors.InputError` for bad input (every problem located, one line each), and
reports progress only through the hooks it is given. The command line (``xoff.cli``) is these
functions plus printing and :class:`xoff.exitcodes.ExitCode`. docs/api.md has the details and a Nornir
task example. Importing this package is cheap: each job imports its machinery when it runs.
"""

from __future__ import annotations

from xoff.api.awx import AwxOptions, AwxResult, export_awx
from xoff.api.collect import CollectOptions, CollectResult, NotCollectedError, collect
from xoff.api.deadlock import DeadlockOptions, DeadlockResult, deadlock
from xoff.api.intent import (
    CheckReport,
    IntentSource,
    Loaded,
    PlanOptions,
    PlanResult,
    RenderOptions,
    RenderResult,
    check,
    load,
    plan,
    render,
)
from xoff.api.push import (
    InventoryOptions,
    InventoryResult,
    PushHooks,
    PushOptions,
    PushPlan,
    PushResult,
    export_inventory,
    prepare_push,
    push,
    run_push,
)
from xoff.api.validate import ValidateOptions, ValidateResult, validate
from xoff.api.watch import WatchOptions, watch
from xoff.errors import InputError

__all__ = [
    "AwxOptions",
    "AwxResult",
    "CheckReport",
    "CollectOptions",
    "CollectResult",
    "DeadlockOptions",
    "DeadlockResult",
    "InputError",
    "IntentSource",
    "InventoryOptions",
    "InventoryResult",
    "Loaded",
    "NotCollectedError",
    "PlanOptions",
    "PlanResult",
    "PushHooks",
    "PushOptions",
    "PushPlan",
    "PushResult",
    "RenderOptions",
    "RenderResult",
    "ValidateOptions",
    "ValidateResult",
    "WatchOptions",
    "check",
    "collect",
    "deadlock",
    "export_awx",
    "export_inventory",
    "load",
    "plan",
    "prepare_push",
    "push",
    "render",
    "run_push",
    "validate",
    "watch",
]
