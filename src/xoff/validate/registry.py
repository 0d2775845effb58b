"""Checks registered under stable ids; each is a pure function of its context (no I/O, ever)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import ClassVar

from xoff.contracts.observed import Snapshot
from xoff.desired.models import FabricState
from xoff.validate.context import NEEDS, CheckContext, Derived, Need, NoParams
from xoff.validate.context import Params as ParamsModel
from xoff.validate.coverage import cover, holds, path_error
from xoff.validate.model import CheckResult, Finding, Severity, Status

_ABSENT: dict[Need, str] = {
    "desired": "no desired state",
    "observed": "needs observed state (a snapshot or a live collect); not available offline",
}


class Check:
    """Subclass, set ``id``/``title`` (and ``severity``, ``needs``, ``Params``, ``hint``), register with ``@register``.

    Implement ``check(ctx)``: the full context (desired, observed snapshot, typed params; a check that
    judges one state reads ``ctx.subject``, the observed state when present, else the desired).
    ``skip_reason(ctx)`` / ``applies(subject)`` say why a check does not apply. The class docstring is
    the reference text ("what it catches") in docs/checks.md.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR
    needs: ClassVar[frozenset[Need]] = frozenset({"desired"})
    Params: ClassVar[type[ParamsModel]] = NoParams
    # Device field paths the check judges (``qos.pfc_priority_to_queue``, ``interfaces.*.mtu``, the collectors'
    # FIELD PATHS), the first being what it is about. With a snapshot, a device whose collector did not read them all
    # is not judged (named in the result, saying why), never judged on values it did not show; with no device left
    # that holds the first path, the check is skipped (``validate.coverage``).
    reads: ClassVar[tuple[str, ...]] = ()
    hint: ClassVar[str | None] = None
    # What ``validate --tags`` chooses it by, besides its family (the id before the dot, always a tag): ``hosts``,
    # ``buffers``, ``deadlock``, ... (the tags of the registered checks are the ones ``--tags`` allows).
    tags: ClassVar[tuple[str, ...]] = ()
    # The device kinds it judges as one whole (a cycle through every switch's FIB): on observed state under
    # ``validate --limit``, skipped unless every device of these kinds holding ``reads[0]`` is selected.
    whole_fabric: ClassVar[frozenset[str]] = frozenset()
    # Slow and whole-fabric (the failure sweep): on a large fabric the runner judges it while a forked child judges
    # the other checks (``validate.apart``); the same result either way.
    apart: ClassVar[bool] = False
    note: str | None = None  # set by ``check``: what was judged, shown with a passing or failing result

    def applies(self, subject: FabricState) -> str | None:  # noqa: ARG002 - subclasses read it
        """None if the check applies to this fabric, else the reason it is skipped."""
        return None

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return self.applies(ctx.subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        """The findings; none means success."""
        raise NotImplementedError(
            f"{type(self).__name__} implements neither check(ctx) itself nor through a base class"
        )

    @classmethod
    def tag_set(cls) -> frozenset[str]:
        """Its tags: the id's family (``lossless`` of ``lossless.pfc_symmetry``) and ``tags``."""
        return frozenset((cls.id.split(".", 1)[0], *cls.tags))

    @classmethod
    def description(cls) -> str:
        """What it catches: the class docstring, or the title."""
        doc = inspect.getdoc(cls)
        return doc if doc and cls.__doc__ is not None else cls.title


class Registry:
    """One dict per registry instance (never a class attribute shared by all)."""

    def __init__(self) -> None:
        self._checks: dict[str, type[Check]] = {}

    def register(self, cls: type[Check]) -> type[Check]:
        if cls.id in self._checks:
            raise ValueError(
                f"check id {cls.id!r} is registered twice ({self._checks[cls.id].__name__}, {cls.__name__})"
            )
        if cls.check is Check.check:
            raise TypeError(
                f"check {cls.id!r} ({cls.__name__}) implements neither check(ctx) itself nor through a base class"
            )
        unknown = set(cls.needs) - set(NEEDS)
        if unknown:
            raise ValueError(f"check {cls.id!r}: needs {sorted(unknown)} (allowed: {', '.join(NEEDS)})")
        bad = [f"{r} ({why})" for r in cls.reads if (why := path_error(r)) is not None]
        if bad:
            raise ValueError(f"check {cls.id!r}: reads {', '.join(bad)}: not Device field paths")
        self._checks[cls.id] = cls
        return cls

    def ids(self) -> list[str]:
        return sorted(self._checks)

    def get(self, check_id: str) -> type[Check]:
        try:
            return self._checks[check_id]
        except KeyError:
            raise KeyError(f"unknown check {check_id!r} (allowed: {', '.join(self.ids())})") from None

    def __contains__(self, check_id: object) -> bool:
        return check_id in self._checks

    def copy(self) -> Registry:
        """A new registry with the same checks, for a catalog that adds site checks."""
        new = Registry()
        new._checks = dict(self._checks)
        return new


CHECKS = Registry()
register = CHECKS.register


def _judged_context(cls: type[Check], ctx: CheckContext) -> tuple[CheckContext, str | None, bool]:
    """The context cut down to the devices the check may judge (``Check.reads`` all observed), the reason
    naming those left out, and whether any device is left to judge."""
    if not cls.reads or ctx.observed is None:
        return ctx, None, True
    coverage = cover(ctx.observed, cls.reads, ctx.desired, ctx.selected)
    reason = coverage.reason()
    if not coverage.judged:
        reason = reason or f"no observed device holds {', '.join(cls.reads)}"
    judged = CheckContext(ctx.desired, coverage.snapshot, ctx.params, ctx.selected, ctx.derived)
    return judged, reason, bool(coverage.judged)


def _unselected_reason(cls: type[Check], ctx: CheckContext) -> str | None:
    """``validate --limit``: why the check has nothing to judge among the selected devices (None: it has)."""
    if ctx.selected is None or not cls.reads:
        return None
    subjects = {n: d for n, d in ctx.desired.devices.items() if holds(d, cls.reads[0])}
    if not any(n in ctx.selected for n in subjects):
        return f"no selected device holds {cls.reads[0]} (--limit)"
    left = [n for n, d in subjects.items() if n not in ctx.selected and d.kind in cls.whole_fabric]
    if ctx.observed is not None and left:
        kinds = ", ".join(sorted(cls.whole_fabric))
        return f"judges every {kinds}'s running state together; not selected (--limit): {', '.join(left)}"
    return None


def _selected_note(ctx: CheckContext) -> str | None:
    if ctx.selected is None:
        return None
    left = len(ctx.desired.devices) - len(ctx.selected & ctx.desired.devices.keys())
    return f"judged on the selected devices only ({left} not selected)" if left else None


def _joined(*parts: str | None) -> str | None:
    text = "; ".join(p for p in parts if p)
    return text or None


def run_check(cls: type[Check], ctx: CheckContext) -> CheckResult:
    result = CheckResult(id=cls.id, title=cls.title, severity=cls.severity, hint=cls.hint)
    missing = [n for n in sorted(cls.needs) if not ctx.has(n)]
    if missing:
        result.status, result.message = Status.SKIPPED, _ABSENT[missing[0]]
        return result
    check = cls()
    try:
        reason = _unselected_reason(cls, ctx) or check.skip_reason(ctx)
        judged, left_out, any_judged = _judged_context(cls, ctx)
        if reason is None and not any_judged:
            reason = left_out
        if reason is not None:
            result.status, result.message = Status.SKIPPED, reason
        else:
            result.findings = [f for f in check.check(judged) if ctx.selects(f.device)]
            result.status = Status.FAILURE if result.findings else Status.SUCCESS
            result.message = _joined(check.note, left_out, _selected_note(ctx))
    except Exception as exc:  # a broken check must show as an error, not as a pass
        result.status, result.message = Status.ERROR, f"{type(exc).__name__}: {exc}"
    return result


def run_checks(
    subject: FabricState,
    ids: Iterable[str] | None = None,
    registry: Registry = CHECKS,
    *,
    observed: Snapshot | None = None,
    params: Mapping[str, ParamsModel] | None = None,
    selected: frozenset[str] | None = None,
    derived: Derived | None = None,
) -> list[CheckResult]:
    """Run checks on the desired state ``subject`` (and the observed snapshot, when given).

    ``params``: check id -> its ``Params`` instance (a catalog's thresholds); defaults otherwise. ``selected``: the
    devices judged (``validate --limit``; None: all): findings about the others are not reported. ``derived``: the
    run's memo of what checks derive from a state (``CheckContext.derive``), shared across calls of one run.
    """
    shared = derived if derived is not None else Derived()
    results = []
    for check_id in ids if ids is not None else registry.ids():
        cls = registry.get(check_id)
        given = (params or {}).get(check_id)
        ctx = CheckContext(subject, observed, given if given is not None else cls.Params(), selected, shared)
        results.append(run_check(cls, ctx))
    return results
