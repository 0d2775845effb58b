"""Validation: registered checks over FabricState, and their results."""

from xoff.validate import checks as _builtin  # noqa: F401  (registers the built-in checks)
from xoff.validate.model import CheckResult, Finding, Severity, Status
from xoff.validate.registry import CHECKS, Check, register, run_checks

__all__ = ["CHECKS", "Check", "CheckResult", "Finding", "Severity", "Status", "register", "run_checks"]
