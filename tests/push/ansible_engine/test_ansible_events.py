"""Runner events -> the engines' shared result model: each device's outcome from its report or from
where it failed, steps as PushEvents in order, secrets masked out of every message."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from xoff.connect.credentials import Credentials, CredentialSet
from xoff.connect.targets import Target
from xoff.push.ansible_engine import PASSWORD_PROMPT, EventTranslator, runner_arguments, step_of
from xoff.push.job import PushOptions
from xoff.push.model import Outcome, PushEvent, Step

SECRET = "hunter2-xyz"
# Nornir's steps for a device with nothing to change: the Ansible engine's events must be the same
NOTHING_TO_CHANGE = [
    ("connect", "start"),
    ("connect", "ok"),
    ("backup", "start"),
    ("backup", "ok"),
    ("diff", "start"),
    ("diff", "ok"),
    ("done", "ok"),
]


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


def test_a_connect_task_opens_the_connect_step_once() -> None:
    """push.yml logs in first (``Connect | ...``): the events are Nornir's, connect ok before the backup."""
    events: list[PushEvent] = []
    tr = EventTranslator(events.append, [])
    report = {"outcome": "unchanged", "changes": 0, "backup": "/b/run/leaf1"}
    _feed(
        tr,
        "leaf1",
        [
            ("runner_on_ok", "Connect | log in", {}),
            ("runner_on_ok", "Connect | hostname", {}),
            ("runner_on_ok", "Backup | show runningconfiguration all", {}),
            ("runner_on_ok", "Diff | JSON Patch", {}),
            ("runner_on_ok", "Done | report", {"msg": report}),
        ],
    )
    assert tr.result(_t("leaf1"), 1).outcome is Outcome.UNCHANGED
    assert [(e.step.value, e.status) for e in events] == NOTHING_TO_CHANGE


def test_unreachable_in_a_later_task_leaves_no_step_ok() -> None:
    """OpenSSH says unreachable in whichever task first needs the device: that step did not end well."""
    events: list[PushEvent] = []
    tr = EventTranslator(events.append, [])
    tr(_ev("runner_on_start", "leaf2", "Backup | one stamp for every device of this run"))
    tr(_ev("runner_on_unreachable", "leaf2", "Backup | show runningconfiguration all", {"msg": "timed out"}))
    result = tr.result(_t("leaf2"), 1)
    assert (result.outcome, result.failed_step, result.backup) == (Outcome.FAILED, Step.CONNECT, None)
    assert [(e.step.value, e.status) for e in events if e.status != "start"] == [
        ("connect", "failed"),
        ("done", "failed"),
    ]


def test_the_switch_password_goes_by_prompt_not_by_environment(tmp_path: Path) -> None:
    """ansible-runner writes its environment to artifacts/<ident>/command: the password is not in it
    (not even one the controller's environment has); a prompting wrapper reads it, echo off first."""
    creds = CredentialSet(switch=Credentials("admin", SECRET), host=None)
    args = runner_arguments(tmp_path, creds, PushOptions(timeout_s=2.5))
    assert args["envvars"]["XOFF_SWITCH_PASSWORD"] == "" and SECRET not in json.dumps(args["envvars"])
    assert args["envvars"]["ANSIBLE_TIMEOUT"] == args["envvars"]["ANSIBLE_PERSISTENT_COMMAND_TIMEOUT"] == "3"
    wrapper = Path(args["binary"])
    script = wrapper.read_text(encoding="utf-8")
    assert SECRET not in script and script.index("stty -echo") < script.index("printf")
    assert wrapper.stat().st_mode & 0o777 == 0o700
    ((pattern, answer),) = args["passwords"].items()
    assert answer == SECRET and re.search(pattern, f"some output\n{PASSWORD_PROMPT}", re.M)
    assert args["cmdline"].endswith("push.yml")
    hosts_only = runner_arguments(tmp_path, CredentialSet(switch=None, host=None), PushOptions())
    assert hosts_only["playbook"] == "push.yml" and "binary" not in hosts_only
    assert (hosts_only["envvars"]["ANSIBLE_TIMEOUT"], hosts_only["envvars"]["ANSIBLE_PERSISTENT_COMMAND_TIMEOUT"]) == (
        "20",
        "120",
    )
    slower = runner_arguments(tmp_path / "f", CredentialSet(switch=None, host=None), PushOptions(timeout_factor=2.5))
    assert (slower["envvars"]["ANSIBLE_TIMEOUT"], slower["envvars"]["ANSIBLE_PERSISTENT_COMMAND_TIMEOUT"]) == (
        "50",
        "300",
    )


def test_a_timeout_error_names_the_knob() -> None:
    """Under Ansible too, a device that answered too late fails with the knob to turn in its error."""
    for options, knob in (
        (PushOptions(), "--timeout-factor (now 1)"),
        (PushOptions(timeout_s=4), "--timeout (now 4 s)"),
    ):
        tr = EventTranslator(lambda _e: None, [], options.timeouts)
        tr(_ev("runner_on_start", "leaf2", "Connect | log in"))
        tr(_ev("runner_on_unreachable", "leaf2", "Connect | log in", {"msg": "Timed out after 4 seconds"}))
        error = tr.result(_t("leaf2"), 1).error or ""
        assert error.startswith("Timed out after 4 seconds (raise ") and knob in error, error


def test_the_playbooks_filters_import_this_xoff(tmp_path: Path) -> None:
    """The filter plugins import xoff: ansible-playbook finds first the xoff this engine runs (a checkout
    with PYTHONPATH=src), not another copy the venv has installed, so both engines share one strategy."""
    import xoff

    envvars = runner_arguments(tmp_path, CredentialSet(switch=None, host=None), PushOptions())["envvars"]
    first = envvars["PYTHONPATH"].split(os.pathsep)[0]
    assert Path(first) / "xoff" == Path(xoff.__file__).resolve().parent


def test_each_device_reports_its_own_time_not_the_runs() -> None:
    """Two devices in one run: each one's elapsed time is the sum of its own tasks' durations (the
    runner's per-host start/end), whatever the other one took; a device with no timed result keeps the
    time since its first event."""
    tr = EventTranslator(lambda _e: None, [])
    durations = {"fast": [0.25, 0.5, 0.25], "slow": [4.0, 6.0, 2.5]}
    tasks = ["Backup | show running-config", "Diff | session diff", "Done | report"]
    for host, times in durations.items():
        for task, took in zip(tasks, times, strict=True):
            tr(_ev("runner_on_start", host, task))
            res = {"msg": {"outcome": "unchanged", "backup": "/b"}} if task.startswith("Done") else {}
            tr(_ev("runner_on_ok", host, task, res, duration=took))
    tr(_ev("runner_on_start", "untimed", "Backup | show running-config"))
    tr(_ev("runner_on_failed", "untimed", "Backup | show running-config", {"msg": "boom"}, duration=None))
    got = {h: tr.result(_t(h), 1).elapsed_s for h in ("fast", "slow")}
    assert got == {"fast": 1.0, "slow": 12.5}
    untimed = tr.result(_t("untimed"), 1)
    assert untimed.outcome is Outcome.FAILED and untimed.elapsed_s >= 0


def test_a_backup_task_that_counts_the_diff_reports_both_steps() -> None:
    """xoff_backup reads, keeps and counts in one task: its result's ``xoff_step`` says it ended in the diff,
    so the events are still Nornir's (backup ok, then diff), and a failure in the count is the diff's."""
    events: list[PushEvent] = []
    tr = EventTranslator(events.append, [])
    report = {"outcome": "unchanged", "changes": 0, "backup": "/b/run/leaf1"}
    _feed(
        tr,
        "leaf1",
        [
            ("runner_on_ok", "Connect | log in and have the device answer", {}),
            ("runner_on_ok", "Backup | read, keep, count", {"xoff_step": "diff", "changes": 0}),
            ("runner_on_ok", "Done | report", {"msg": report}),
        ],
    )
    assert tr.result(_t("leaf1"), 1).outcome is Outcome.UNCHANGED
    assert [(e.step.value, e.status) for e in events] == NOTHING_TO_CHANGE
    events.clear()
    failing = [("runner_on_ok", "Connect | log in", {})]
    _feed(tr, "leaf2", [*failing, ("runner_on_failed", "Backup | read", {"xoff_step": "diff", "msg": "no rendered"})])
    result = tr.result(_t("leaf2"), 1)
    assert (result.outcome, result.failed_step, result.error) == (Outcome.FAILED, Step.DIFF, "no rendered")
    assert [(e.step.value, e.status) for e in events][-4:] == [
        ("backup", "ok"),
        ("diff", "start"),
        ("diff", "failed"),
        ("done", "failed"),
    ]
