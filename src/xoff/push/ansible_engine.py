"""The Ansible engine: ``playbooks/push.yml`` run by ansible-runner, one run per rollout batch.

Each run gets a private data directory (removed afterwards): the batch's inventory
(``connect.ansible_inventory``), the rendered files, a HOME whose ``.ssh/known_hosts`` is the
given one (paramiko, under ``network_cli``, reads only that file); the user names and the key's
path are the environment variables the inventory looks up, the switch password reaches
``ansible-playbook`` through a prompt ansible-runner answers (``runner_arguments``): nothing secret
is written to disk, ansible-runner's artifacts included. Runner events
become the same ``PushEvent`` stream the Nornir engine emits, and each device's ``Done | report``
task (or, without one, where it failed) becomes its ``DeviceResult``: its changes and diff are the
playbook's own, computed by the platforms' code the Nornir strategies use (``playbooks/filter_plugins/``),
so the report shows what this engine sent. A device's ``elapsed_s`` is its own time: the sum of its
tasks' durations from the runner's per-host events (not the whole run's, which the slowest device sets).

Task names carry the step: ``Connect | ...``, ``Backup | ...``, ``Diff | ...``, ``Apply | ...``,
``Verify | ...``, ``Rollback | ...``, ``Done | ...``; a task that ends in a later step says so in its result
(``xoff_step``: ``xoff_backup`` reads, keeps and counts the diff in one task). Each device first logs in and answers one
command in ``Connect |`` tasks (``network_cli`` would log in at the backup's first request), so a
device unreachable, refusing the login or the host key, or too slow fails in ``connect``, as with
Nornir.

``PushOptions.timeout_s`` bounds each SSH operation, as netmiko's read timeout does under Nornir:
``ANSIBLE_TIMEOUT`` (connecting), ``ANSIBLE_PERSISTENT_COMMAND_TIMEOUT`` (each ``network_cli``
request) and ``xoff_command_timeout`` (the task timeout of each ``raw`` command on a switch).
Without it, ``PushOptions.timeout_factor`` scales the first two (Ansible measures no pace); a
timeout error names the knob, as under Nornir.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ansible_runner  # type: ignore[import-untyped]

from xoff.connect.ansible_inventory import INVENTORY_FILE, export_ansible, unsupported
from xoff.connect.credentials import CredentialSet, mask
from xoff.connect.pace import CONNECT_S, Timeouts
from xoff.connect.targets import Target
from xoff.push.job import EventHook, PushJob, PushOptions, rollout_stages
from xoff.push.model import DeviceResult, Outcome, PushEvent, PushSummary, Step
from xoff.push.rollout import roll_out

PLAYBOOK = "push.yml"
RESTORE_PLAYBOOK = "restore.yml"  # a rollback (``PushJob.restore_from``): the run's backups restored
MAX_ERROR_CHARS = 300
COMMAND_TIMEOUT_S = 120
STEPS = {s.value: s for s in Step}
# the step a failure without a report happened in -> the outcome it leaves
UNTOUCHED = (Step.CONNECT, Step.BACKUP, Step.DIFF)
# the runner events that end one task on one host (each carries that task's start, end and duration)
TASK_ENDS = ("runner_on_ok", "runner_on_failed", "runner_on_skipped", "runner_on_unreachable")


def playbooks_dir() -> Path:
    """The package's ``data/playbooks`` (in a checkout, a symlink to the top-level ``playbooks/``; in a
    wheel, a copy); ``XOFF_PLAYBOOKS`` points elsewhere."""
    env = os.environ.get("XOFF_PLAYBOOKS")
    return Path(env) if env else Path(__file__).resolve().parents[1] / "data" / "playbooks"


def step_of(task_name: str) -> Step | None:
    """``"Apply | change the device"`` -> Step.APPLY."""
    head = task_name.split("|", 1)[0].strip().lower()
    return STEPS.get(head)


@dataclass
class _Device:
    """What the events said about one device."""

    step: Step | None = None
    started: float = field(default_factory=time.monotonic)
    report: dict[str, Any] | None = None
    error: str | None = None
    failed_step: Step | None = None  # the first step that failed (a failed rollback keeps it, as with Nornir)
    failed_steps: set[Step] = field(default_factory=set)
    unreachable: bool = False
    connected: bool = False  # "connect ok" was emitted
    busy_s: float = 0.0  # the sum of its own tasks' durations (the runner's per-host start/end)
    timed: bool = False  # some task result carried a duration


class EventTranslator:
    """Runner events -> PushEvents (through ``on_event``) and, at the end, DeviceResults."""

    def __init__(self, on_event: EventHook, secrets: list[str], timeouts: Timeouts | None = None) -> None:
        self.on_event = on_event
        self.secrets = secrets
        self.timeouts = timeouts or Timeouts()
        self.devices: dict[str, _Device] = {}

    def _emit(self, host: str, step: Step, status: str, message: str = "") -> None:
        dev = self.devices[host]
        self.on_event(PushEvent(host, step, status, message, round(time.monotonic() - dev.started, 3)))

    def _one_line(self, res: dict[str, Any]) -> str:
        text = str(res.get("msg") or res.get("stderr") or res.get("stdout") or "failed")
        line = mask(next((ln.strip() for ln in text.splitlines() if ln.strip()), "failed"), self.secrets)
        line = line[:MAX_ERROR_CHARS]
        timed_out = "timed out" in line.lower() or "timeout" in line.lower()
        return f"{line} ({self.timeouts.hint()})" if timed_out else line

    def _enter(self, host: str, step: Step) -> None:
        dev = self.devices.setdefault(host, _Device())
        if dev.step is None and step is not Step.CONNECT:
            self._emit(host, Step.CONNECT, "start")
        if dev.step == step:
            return
        if dev.step is not None and dev.step not in dev.failed_steps:
            self._emit(host, dev.step, "ok")
            if dev.step is Step.BACKUP and not dev.connected:
                self._emit(host, Step.CONNECT, "ok")  # the backup read the device: it was reached
            dev.connected = dev.connected or dev.step in (Step.CONNECT, Step.BACKUP)
        dev.step = step
        self._emit(host, step, "start")

    def __call__(self, event: dict[str, Any]) -> bool:
        """ansible-runner's event_handler; False: do not keep the event on disk (it may hold device output)."""
        kind = event.get("event", "")
        data = event.get("event_data") or {}
        host = data.get("host")
        if not host or host == "localhost":
            return False
        step = step_of(str(data.get("task", "")))
        res = data.get("res") or {}
        ended_in = STEPS.get(str(res.get("xoff_step", ""))) if isinstance(res, dict) else None
        if ended_in is not None and kind in ("runner_on_ok", "runner_on_failed"):
            self._enter(host, ended_in)  # a task of several steps (xoff_backup: backup, then the diff's count)
            step = ended_in
        if kind in TASK_ENDS:
            self._timed(host, data.get("duration"))
        if kind == "runner_on_start" and step is not None and step is not Step.DONE:  # DONE: at result()
            self._enter(host, step)
        elif kind == "runner_on_ok" and step is Step.DONE and isinstance((data.get("res") or {}).get("msg"), dict):
            self.devices.setdefault(host, _Device()).report = data["res"]["msg"]
        elif kind == "runner_on_failed" and step is Step.DONE and self.devices.get(host, _Device()).report:
            pass  # "Done | rolled back, so this device failed": the report said it; DONE is emitted at result()
        elif kind == "runner_on_failed" and not data.get("ignore_errors"):
            self._failed(host, step or Step.CONNECT, self._one_line(data.get("res") or {}))
        elif kind == "runner_on_unreachable":
            dev = self.devices.setdefault(host, _Device())
            dev.unreachable = True
            self._failed(host, Step.CONNECT, self._one_line(data.get("res") or {}))
        return False

    def _timed(self, host: str, duration: Any) -> None:
        """Add one task's own time on ``host``: ansible-runner's ``duration`` (end - start of the task on
        that host). Where a play runs under the linear strategy a host waits for the others after each task:
        that wait is not its time."""
        if isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration >= 0:
            dev = self.devices.setdefault(host, _Device())
            dev.busy_s += float(duration)
            dev.timed = True

    def _failed(self, host: str, step: Step, message: str) -> None:
        dev = self.devices.setdefault(host, _Device())
        dev.failed_steps.add(step)
        if dev.step is not None and step is Step.CONNECT:
            dev.failed_steps.add(dev.step)  # unreachable in a backup task: that step did not end well either
        if dev.error is None:  # keep the first cause
            dev.error, dev.failed_step = message, step
        elif step is Step.ROLLBACK:  # and add why the rollback failed, worded as the Nornir flow words it
            why = message if message.startswith("rollback not verified") else f"rollback failed: {message}"
            dev.error = f"{dev.error}; {why}"
        self._emit(host, step, "failed", message)

    def result(self, target: Target, batch: int) -> DeviceResult:
        dev = self.devices.get(target.name)
        if dev is None:
            return DeviceResult(
                target.name, target.platform, Outcome.FAILED, error="no result from Ansible", batch=batch
            )
        report = dev.report or {}
        outcome = self._outcome(dev, report)
        if dev.step is not None and dev.step not in dev.failed_steps:
            self._emit(target.name, dev.step, "ok")  # the last step ended well: no later step closed it
        failed_step = dev.failed_step if outcome is not Outcome.CHANGED else None
        self._emit(target.name, Step.DONE, "failed" if failed_step else "ok", outcome.value)  # as the Nornir flow
        return DeviceResult(
            device=target.name,
            platform=target.platform,
            outcome=outcome,
            changes=int(report.get("changes", 0)),
            diff=mask(str(report.get("diff", "")), self.secrets),
            backup=str(report["backup"]) if report.get("backup") else None,
            failed_step=failed_step,
            error=dev.error if outcome not in (Outcome.CHANGED, Outcome.UNCHANGED, Outcome.DRY_RUN) else None,
            elapsed_s=round(dev.busy_s if dev.timed else time.monotonic() - dev.started, 3),
            batch=batch,
        )

    @staticmethod
    def _outcome(dev: _Device, report: dict[str, Any]) -> Outcome:
        if report.get("outcome") in {o.value for o in Outcome}:
            return Outcome(report["outcome"])
        if dev.unreachable or dev.failed_step in UNTOUCHED or dev.failed_step is None:
            return Outcome.FAILED
        return Outcome.ROLLBACK_FAILED  # failed after the change began, and no rollback report (its rollback failed)


def _mask_backup(result: DeviceResult, secrets: list[str]) -> None:
    """Backups hold no secret (as with Nornir): the playbook wrote what the device printed."""
    if result.backup is None or not Path(result.backup).is_file():
        return
    path = Path(result.backup)
    text = path.read_text(encoding="utf-8")
    if mask(text, secrets) != text:
        path.write_text(mask(text, secrets), encoding="utf-8")


def command_timeout(options: PushOptions) -> int:
    """The task timeout of one ``raw`` command, whole seconds (0: none, the platform's own)."""
    return math.ceil(options.timeout_s) if options.timeout_s else 0


def persistent_command_timeout(options: PushOptions) -> int:
    """Each ``network_cli`` request: ``--timeout``, else ``COMMAND_TIMEOUT_S`` times ``--timeout-factor``."""
    return command_timeout(options) or math.ceil(COMMAND_TIMEOUT_S * options.timeout_factor)


def connect_timeout(options: PushOptions) -> int:
    """Connecting (``ANSIBLE_TIMEOUT``): ``--timeout``, else netmiko's setup time times ``--timeout-factor``."""
    return command_timeout(options) or math.ceil(CONNECT_S * options.timeout_factor)


# the filter plugins import xoff: the directory this xoff is imported from goes first on the playbook's
# PYTHONPATH, so they run this engine's own strategy code, not another copy the venv has installed
XOFF_IMPORT_ROOT = str(Path(__file__).resolve().parents[2])


def ansible_environment(work: Path, creds: CredentialSet, options: PushOptions) -> dict[str, str]:
    env = {
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "PYTHONPATH": os.pathsep.join(p for p in (XOFF_IMPORT_ROOT, os.environ.get("PYTHONPATH")) if p),
        "HOME": str(work / "home"),
        "ANSIBLE_LOCAL_TEMP": str(work / "tmp"),
        "ANSIBLE_PERSISTENT_CONTROL_PATH_DIR": str(work / "pc"),
        "ANSIBLE_SSH_CONTROL_PATH_DIR": str(work / "cp"),
        "ANSIBLE_HOST_KEY_CHECKING": "True",
        "ANSIBLE_PARAMIKO_RECORD_HOST_KEYS": "False",
        "ANSIBLE_RETRY_FILES_ENABLED": "False",
        "ANSIBLE_DEPRECATION_WARNINGS": "False",
        "ANSIBLE_NOCOLOR": "1",
    }
    # a whole configuration goes through one network_cli command: give it more than Ansible's 30 s
    env["ANSIBLE_PERSISTENT_COMMAND_TIMEOUT"] = str(persistent_command_timeout(options))
    env["ANSIBLE_TIMEOUT"] = str(connect_timeout(options))
    pairs = [
        ("XOFF_SWITCH_USERNAME", creds.switch.username if creds.switch else None),
        ("XOFF_SWITCH_PASSWORD", creds.switch.password if creds.switch else None),
        ("XOFF_HOST_USERNAME", creds.host.username if creds.host else None),
        ("XOFF_HOST_KEY", str(creds.host.key_file) if creds.host and creds.host.key_file else None),
    ]
    env.update({k: v for k, v in pairs if v})
    return env


# ansible-runner writes its whole environment to artifacts/<ident>/command: the switch password reaches
# ansible-playbook through a prompt instead, which ansible-runner answers (as AWX hands over passwords),
# so it is in no file. The prompt turns echo off before it is printed: the answer is never echoed.
PASSWORD_VAR = "XOFF_SWITCH_PASSWORD"
PASSWORD_PROMPT = "xoff: switch password: "
PROMPTING_PLAYBOOK = f"""#!/bin/bash
# ansible-playbook with {PASSWORD_VAR} read from the terminal first (xoff.push.ansible_engine)
stty -echo 2>/dev/null
printf '%s' '{PASSWORD_PROMPT}'
IFS= read -r {PASSWORD_VAR} || exit 2
stty echo 2>/dev/null
printf '\\n'
export {PASSWORD_VAR}
exec ansible-playbook "$@"
"""


def runner_arguments(
    work: Path, creds: CredentialSet, options: PushOptions, playbook: str = PLAYBOOK
) -> dict[str, Any]:
    """How ansible-runner starts ``push.yml`` (or ``restore.yml``): the environment without the switch
    password, and with one, the prompting wrapper above and the answer to its prompt."""
    env = ansible_environment(work, creds, options)
    password = env.pop(PASSWORD_VAR, None)
    if not password:
        return {"playbook": playbook, "envvars": env}
    env[PASSWORD_VAR] = ""  # also hides one the controller's environment has (ansible-runner copies it)
    wrapper = work / "ansible-playbook-prompting"
    wrapper.write_text(PROMPTING_PLAYBOOK, encoding="utf-8")
    wrapper.chmod(0o700)
    return {
        "binary": str(wrapper),
        "cmdline": shlex.quote(str((playbooks_dir() / playbook).resolve())),
        "envvars": env,
        "passwords": {re.escape(PASSWORD_PROMPT) + "$": password},
    }


def end_control_masters(control_dir: Path) -> None:
    """Stop the OpenSSH connection masters of this run (``ControlPersist`` would keep them a minute
    after the run, holding sessions to the devices): ``ssh -O exit`` through each control socket."""
    if not control_dir.is_dir():
        return
    for sock in sorted(control_dir.iterdir()):
        if sock.is_socket():
            subprocess.run(
                ["ssh", "-o", f"ControlPath={sock}", "-O", "exit", "xoff-control-master"],
                capture_output=True,
                check=False,
                timeout=10,
            )


def _write_tree(work: Path, job: PushJob, batch: list[Target]) -> Path:
    render = work / "render"
    for t in batch:
        for name, text in job.desired.get(t.name, {}).items():
            path = render / t.name / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    ssh = work / "home" / ".ssh"
    ssh.mkdir(parents=True, mode=0o700)
    if job.known_hosts is not None:
        shutil.copyfile(job.known_hosts, ssh / "known_hosts")
    for sub in ("tmp", "pc", "cp"):
        (work / sub).mkdir(mode=0o700)
    export_ansible(batch, work / "inventory", known_hosts=job.known_hosts)
    return render


def _playbook(job: PushJob) -> str:
    return PLAYBOOK if job.restore_from is None else RESTORE_PLAYBOOK


def _restore_vars(job: PushJob) -> dict[str, str]:
    return {} if job.restore_from is None else {"xoff_restore_from": str(job.restore_from.resolve())}


def _run_batch(
    job: PushJob, options: PushOptions, on_event: EventHook
) -> Callable[[list[Target], int], list[DeviceResult]]:
    def run(batch: list[Target], number: int) -> list[DeviceResult]:
        cannot = {t.name for t in unsupported(batch)}
        runnable = [t for t in batch if t.name not in cannot]
        translator = EventTranslator(on_event, job.secrets, options.timeouts)
        if runnable:
            work = Path(tempfile.mkdtemp(prefix="xoff-ansible-"))
            try:
                render = _write_tree(work, job, runnable)
                ansible_runner.run(
                    private_data_dir=str(work),
                    project_dir=str(playbooks_dir()),
                    inventory=str(work / "inventory" / INVENTORY_FILE),
                    **runner_arguments(work, job.credentials, options, _playbook(job)),
                    extravars={
                        **_restore_vars(job),
                        "xoff_render_dir": str(render),
                        "xoff_backups": str(options.backup_dir.resolve()),
                        "xoff_run_stamp": job.run_id,
                        "xoff_dry_run": options.dry_run,
                        "xoff_command_timeout": command_timeout(options),
                    },
                    forks=max(1, options.workers),
                    event_handler=translator,
                    suppress_env_files=True,
                    quiet=True,
                )
            finally:
                end_control_masters(work / "cp")
                shutil.rmtree(work, ignore_errors=True)
        out: list[DeviceResult] = []
        for t in batch:
            if t.name in cannot:
                out.append(
                    DeviceResult(
                        t.name, t.platform, Outcome.FAILED, error=f"no playbook tasks for {t.platform}", batch=number
                    )
                )
                continue
            result = translator.result(t, number)
            _mask_backup(result, job.secrets)
            out.append(result)
        return out

    return run


def run(job: PushJob, options: PushOptions, on_event: EventHook) -> PushSummary:
    """The engine contract (``xoff.push.job.ENGINES``): canary, batches and max failures as with Nornir."""
    started = time.monotonic()
    plan, canary = rollout_stages(job, options)
    results, stages = roll_out(
        plan,
        _run_batch(job, options, on_event),
        canary=canary,
        max_failures=options.max_failures,
        on_stage=on_event,
    )
    return PushSummary(results=results, elapsed_s=time.monotonic() - started, engine="ansible", stages=stages)
