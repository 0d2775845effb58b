"""The offline jobs: load an intent, plan it, check the plan, render it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.errors import InputError, Problem, usage_error

if TYPE_CHECKING:
    from xoff.desired.models import FabricState
    from xoff.intent.resolved import Intent
    from xoff.render import RenderedFile
    from xoff.validate.model import CheckResult


@dataclass(frozen=True)
class Loaded:
    """An intent loaded strictly and its desired state (FabricState), built once."""

    path: Path
    intent: Intent
    state: FabricState


IntentSource = Path | str | Loaded


def load(source: IntentSource) -> Loaded:
    """Load an intent file or directory strictly and plan it; ``InputError`` lists every problem."""
    if isinstance(source, Loaded):
        return source
    from xoff.desired import build_fabric_state  # noqa: PLC0415 - each job loads its machinery
    from xoff.intent import load_intent  # noqa: PLC0415
    from xoff.intent.load import IntentError  # noqa: PLC0415

    path = Path(source)
    try:
        intent = load_intent(path)
    except IntentError as exc:  # the planner's own problems (headroom, ASN plan) in the same run, when it can
        raise InputError(exc.problems + _planning_problems(exc.plannable)) from None
    return Loaded(path, intent, build_fabric_state(intent))


def _planning_problems(intent: Intent | None) -> list[Problem]:
    from xoff.desired import build_fabric_state  # noqa: PLC0415

    if intent is None:
        return []
    try:
        build_fabric_state(intent)
    except InputError as exc:
        return exc.problems
    return []


@dataclass(frozen=True)
class PlanOptions:
    device: str | None = None  # only this device's desired state


@dataclass(frozen=True)
class PlanResult:
    loaded: Loaded
    device: str | None = None

    def to_json(self) -> str:
        """The desired state as JSON (deterministic: byte-identical across runs)."""
        state = self.loaded.state
        return state.devices[self.device].model_dump_json(indent=2) if self.device else state.model_dump_json(indent=2)


def plan(source: IntentSource, options: PlanOptions = PlanOptions()) -> PlanResult:
    loaded = load(source)
    if options.device is not None and options.device not in loaded.state.devices:
        raise usage_error(f"{loaded.path}: --device: no device named {options.device!r} in this intent")
    return PlanResult(loaded, options.device)


@dataclass(frozen=True)
class CheckReport:
    """``xoff check``: the intent loads, and the pre-change catalog's results on its plan."""

    loaded: Loaded
    results: list[CheckResult] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(r.blocking for r in self.results)


def check(source: IntentSource) -> CheckReport:
    from xoff.validate.run import pre_change_results  # noqa: PLC0415

    loaded = load(source)
    return CheckReport(loaded, pre_change_results(loaded.state))


@dataclass(frozen=True)
class RenderOptions:
    output: Path | None = Path("out/render")  # <device>/<file> + manifest.json; None: write nothing
    devices: tuple[str, ...] = ()  # only these devices (empty: all)
    diff_against: Path | None = None  # an earlier output: compute the unified diff, write nothing


@dataclass(frozen=True)
class RenderResult:
    loaded: Loaded
    files: list[RenderedFile]
    manifest: Path | None = None  # written with the files
    diff: str | None = None  # with ``diff_against``

    @property
    def devices(self) -> int:
        return len({f.device for f in self.files})


def render(source: IntentSource, options: RenderOptions = RenderOptions()) -> RenderResult:
    from xoff.render import diff_output, render_fabric, write_output  # noqa: PLC0415

    loaded = load(source)
    unknown = [d for d in options.devices if d not in loaded.state.devices]
    if unknown:
        raise usage_error(f"{loaded.path}: --device: no device named {unknown[0]!r} in this intent")
    files = render_fabric(loaded.state, list(options.devices) or None)
    if options.diff_against is not None:
        if not options.diff_against.is_dir():
            raise usage_error(f"{options.diff_against}: --diff: not a directory of an earlier `xoff render` output")
        return RenderResult(loaded, files, diff=diff_output(files, options.diff_against, options.devices))
    manifest = write_output(loaded.state, files, options.output) if options.output is not None else None
    return RenderResult(loaded, files, manifest)
