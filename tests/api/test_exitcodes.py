"""Exit codes are defined once (xoff.exitcodes) and the commands use them."""

from __future__ import annotations

import re

from tests.support.paths import ROOT
from xoff.exitcodes import ExitCode
from xoff.push.model import DeviceResult, Outcome, PushSummary

SRC = ROOT / "src" / "xoff"


def test_values_are_the_documented_ones() -> None:
    assert [(c.name, int(c)) for c in ExitCode] == [
        ("OK", 0),
        ("FINDINGS", 1),
        ("BAD_INPUT", 2),
        ("ROLLBACK_FAILED", 3),
        ("NOT_COLLECTED", 4),
        ("INTERRUPTED", 130),
    ]


def test_push_summary_exit_status_is_an_exit_code() -> None:
    failed = PushSummary([DeviceResult("a", "sonic", Outcome.ROLLBACK_FAILED)])
    assert failed.exit_status is ExitCode.ROLLBACK_FAILED
    assert PushSummary([DeviceResult("a", "sonic", Outcome.ROLLED_BACK)]).exit_status is ExitCode.FINDINGS
    assert PushSummary([]).exit_status is ExitCode.OK


def test_no_command_module_defines_its_own_exit_constants() -> None:
    own = re.compile(r"^EXIT_[A-Z_]+(, *EXIT_[A-Z_]+)* *=", re.MULTILINE)
    found = [str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if own.search(p.read_text(encoding="utf-8"))]
    assert found == []
