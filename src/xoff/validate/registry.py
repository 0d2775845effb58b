"""Checks registered under stable ids; each is a pure function of FabricState (no I/O, ever)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from xoff.desired.models import FabricState
from xoff.validate.model import CheckResult, Finding, Severity, Status


class Check(ABC):
    """Subclass, set ``id``/``title`` (and ``severity``), implement ``run``; register with ``@register``.

    ``subject`` is the state under judgement: desired alone before a change, observed after.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR

    def applies(self, subject: FabricState) -> str | None:  # noqa: ARG002 - subclasses read it
        """None if the check applies to this fabric, else the reason it is skipped."""
        return None

    @abstractmethod
    def run(self, subject: FabricState) -> Iterable[Finding]:
        """The findings; none means success."""


class Registry:
    """One dict per registry instance (never a class attribute shared by all)."""

    def __init__(self) -> None:
        self._checks: dict[str, type[Check]] = {}

    def register(self, cls: type[Check]) -> type[Check]:
        if cls.id in self._checks:
            raise ValueError(
                f"check id {cls.id!r} is registered twice ({self._checks[cls.id].__name__}, {cls.__name__})"
            )
        self._checks[cls.id] = cls
        return cls

    def ids(self) -> list[str]:
        return sorted(self._checks)

    def get(self, check_id: str) -> type[Check]:
        try:
            return self._checks[check_id]
        except KeyError:
            raise KeyError(f"unknown check {check_id!r} (allowed: {', '.join(self.ids())})") from None


CHECKS = Registry()
register = CHECKS.register


def run_checks(
    subject: FabricState, ids: Iterable[str] | None = None, registry: Registry = CHECKS
) -> list[CheckResult]:
    results = []
    for check_id in ids if ids is not None else registry.ids():
        cls = registry.get(check_id)
        result = CheckResult(id=cls.id, title=cls.title, severity=cls.severity)
        check = cls()
        try:
            reason = check.applies(subject)
            if reason is not None:
                result.status, result.message = Status.SKIPPED, reason
            else:
                result.findings = list(check.run(subject))
                result.status = Status.FAILURE if result.findings else Status.SUCCESS
        except Exception as exc:  # a broken check must show as an error, not as a pass
            result.status, result.message = Status.ERROR, f"{type(exc).__name__}: {exc}"
        results.append(result)
    return results
