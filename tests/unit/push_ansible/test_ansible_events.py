"""Runner events -> the engines' shared result model: each device's outcome from its report or from
where it failed, steps as PushEvents in order, secrets masked out of every message."""

from __future__ import annotations

from typing import Any

from xoff.connect.targets import Target
from xoff.push.ansible_engine import EventTranslator, step_of
from xoff.push.model import Outcome, PushEvent, Step

SECRET = "hunter2-xyz"


def _t(name: str) -> Target:
    return Target(name, "eos", "switch", "spine", None, "198.18.2.12")


def _ev(kind: str, host: str, task: str, res: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"event": kind, "event_data": {"host": host, "task": task, "res": res or {}, **extra}}


def _feed(tr: EventTranslator, host: str, tasks: list[tuple[str, str, dict[str, Any] | None]]) -> None:
    for kind, task, res in tasks:
        assert tr(_ev("runner_on_start", host, task)) is False, "events are not kept on disk"
        if kind != "start":
            tr(_ev(kind, host, task, res))


def test_step_from_task_name() -> None:
    assert step_of("Apply | config apply-patch") is Step.APPLY
    assert step_of("Rollback | restore the backup") is Step.ROLLBACK
    assert step_of("Gathering Facts") is None


def test_changed_device_reports_its_steps_and_outcome() -> None:
    events: list[PushEvent] = []
    tr = EventTranslator(events.append, [SECRET])
    report = {"outcome": "changed", "changes": 3, "diff": "+ a\n+ b\n- c", "backup": "/b/run/spine2"}
    _feed(
        tr,
        "spine2",
        [
            ("runner_on_ok", "Backup | show running-config", {}),
            ("runner_on_ok", "Diff | session diff", {}),
            ("runner_on_ok", "Apply | replace", {"changed": True}),
            ("runner_on_ok", "Verify | session diff", {}),
            ("runner_on_ok", "Done | report", {"msg": report}),
        ],
    )
    result = tr.result(_t("spine2"), 1)
    assert (result.outcome, result.changes, result.backup, result.error) == (Outcome.CHANGED, 3, "/b/run/spine2", None)
    assert [(e.step.value, e.status) for e in events] == [
        ("connect", "start"),
        ("backup", "start"),
        ("backup", "ok"),
        ("connect", "ok"),
        ("diff", "start"),
        ("diff", "ok"),
        ("apply", "start"),
        ("apply", "ok"),
        ("verify", "start"),
        ("verify", "ok"),
        ("done", "ok"),
    ]


def test_rolled_back_device_keeps_the_first_error_masked() -> None:
    events: list[PushEvent] = []
    tr = EventTranslator(events.append, [SECRET])
    _feed(
        tr,
        "spine2",
        [
            ("runner_on_ok", "Backup | show running-config", {}),
            ("runner_on_ok", "Diff | session diff", {}),
            ("runner_on_failed", "Apply | replace", {"msg": f"% Invalid input (password {SECRET})\nmore"}),
            ("runner_on_ok", "Rollback | replace with the backup", {}),
            ("runner_on_ok", "Done | report", {"msg": {"outcome": "rolled_back", "changes": 5, "backup": "/b"}}),
            ("runner_on_failed", "Done | rolled back, so this device failed", {"msg": "rolled back"}),
        ],
    )
    result = tr.result(_t("spine2"), 2)
    assert result.outcome is Outcome.ROLLED_BACK and result.failed_step is Step.APPLY and result.batch == 2
    assert result.error == "% Invalid input (password ********)"
    assert all(SECRET not in e.message for e in events)
    assert ("apply", "failed") in [(e.step.value, e.status) for e in events]


def test_outcomes_without_a_report() -> None:
    tr = EventTranslator(lambda _e: None, [])
    tr(_ev("runner_on_start", "a", "Backup | show running-config"))
    tr(_ev("runner_on_unreachable", "a", "Backup | show running-config", {"msg": "host key mismatch"}))
    _feed(tr, "b", [("runner_on_failed", "Diff | session diff", {"msg": "boom"})])
    _feed(
        tr,
        "c",
        [
            ("runner_on_ok", "Diff | x", {}),
            ("runner_on_failed", "Apply | x", {"msg": "refused"}),
            ("runner_on_failed", "Rollback | x", {"msg": "gone"}),
        ],
    )
    tr(_ev("runner_on_failed", "d", "Apply | x", {"msg": "ignored"}, ignore_errors=True))
    a, b, c = (tr.result(_t(n), 1) for n in "abc")
    assert (a.outcome, a.failed_step, a.error) == (Outcome.FAILED, Step.CONNECT, "host key mismatch")
    assert (b.outcome, b.failed_step) == (Outcome.FAILED, Step.DIFF), "nothing was sent: untouched"
    # as the Nornir flow reports it: the step that failed first, then why the rollback failed
    assert (c.outcome, c.failed_step, c.error) == (
        Outcome.ROLLBACK_FAILED,
        Step.APPLY,
        "refused; rollback failed: gone",
    )
    assert tr.result(_t("never-seen"), 1).outcome is Outcome.FAILED


def test_a_rollback_that_does_not_verify_fails_as_with_nornir() -> None:
    """push.yml's "Rollback | running equals the backup" fails: rollback_failed (exit status 3), the
    first cause kept, the mismatching values named, the DONE event carrying the outcome."""
    events: list[PushEvent] = []
    tr = EventTranslator(events.append, [SECRET])
    _feed(
        tr,
        "gpu1",
        [
            ("runner_on_ok", "Backup | read the host state", {}),
            ("runner_on_ok", "Diff | the values", {}),
            ("runner_on_failed", "Apply | the script ran to its end", {"msg": "xoff-host-apply.sh exit 3: boom"}),
            ("runner_on_ok", "Rollback | run the restore script", {}),
            (
                "runner_on_failed",
                "Rollback | running equals the backup",
                {"msg": "rollback not verified: links differs from the backup: links.eth0.mtu is 9000, backup 1500"},
            ),
        ],
    )
    result = tr.result(_t("gpu1"), 1)
    assert (result.outcome, result.failed_step) == (Outcome.ROLLBACK_FAILED, Step.APPLY)
    assert result.error == (
        "xoff-host-apply.sh exit 3: boom; rollback not verified: links differs from the backup: "
        "links.eth0.mtu is 9000, backup 1500"
    )
    assert [(e.step.value, e.status, e.message) for e in events][-2:] == [
        ("rollback", "failed", result.error.split("; ", 1)[1]),
        ("done", "failed", "rollback_failed"),
    ]
