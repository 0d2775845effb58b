"""What the Ansible lab tests share: a push through either engine that proves no secret leaked, and the
devices' own state read from the lab (not through an engine).

``push`` checks every event, the summary, every backup file and, for the Ansible engine, every file
ansible-runner left in its private data directory (artifacts: stdout, status, command; the inventory,
the rendered files), read just before the engine removes that directory.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import ansible_runner  # type: ignore[import-untyped]

from xoff.connect.ansible_inventory import INVENTORY_FILE
from xoff.connect.credentials import CredentialSet, load_credentials
from xoff.connect.targets import build_targets, select
from xoff.lab.provider import LabConnection
from xoff.push import ansible_engine
from xoff.push.job import PushJob, PushOptions
from xoff.push.model import DeviceResult, PushEvent, PushSummary
from xoff.render import render_fabric


def lab_secrets(lab: LabConnection) -> list[str]:
    """The lab's passwords and the body of the hosts' private key: none may show anywhere."""
    creds = load_credentials(lab.secrets_file, environ={})
    found = creds.secrets()
    if creds.host is not None and creds.host.key_file is not None:
        body = [ln for ln in creds.host.key_file.read_text(encoding="utf-8").splitlines() if "PRIVATE KEY" not in ln]
        found += [ln for ln in body if len(ln) > 20]
    assert found, "the lab has secrets to look for"
    return found


@contextlib.contextmanager
def runner_files_checked(secrets: list[str], seen: list[Path]) -> Iterator[None]:
    """Wrap the real ``ansible_runner.run``: after each run, every file in its private data directory
    must be free of ``secrets`` (the paths are added to ``seen``)."""
    real = ansible_runner.run

    def run(**kwargs: Any) -> Any:
        try:
            return real(**kwargs)
        finally:
            for f in sorted(Path(kwargs["private_data_dir"]).rglob("*")):
                if f.is_file() and not f.is_symlink():
                    data = f.read_bytes()
                    assert not [s for s in secrets if s.encode() in data], f"a secret in ansible-runner's {f}"
                    seen.append(f)

    ansible_runner.run = run
    try:
        yield
    finally:
        ansible_runner.run = real


def push(
    lab: LabConnection,
    devices: list[str],
    run_id: str,
    backups: Path,
    engine: Callable[..., PushSummary] = ansible_engine.run,
    *,
    credentials: CredentialSet | None = None,
    known_hosts: Path | None = None,
    timeout_s: float | None = None,
    timeout_factor: float = 1.0,
    on_event: Callable[[PushEvent], None] | None = None,
    dry_run: bool = False,
) -> tuple[PushSummary, list[PushEvent]]:
    """Push ``devices`` of the lab with ``engine``; the lab's own credentials and known_hosts unless given."""
    targets = select(build_targets(lab.fabric), devices)
    desired: dict[str, dict[str, str]] = {}
    for f in render_fabric(lab.fabric, devices):
        desired.setdefault(f.device, {})[f.name] = f.content
    job = PushJob(
        fabric=lab.fabric.fabric,
        run_id=run_id,
        targets=targets,
        desired=desired,
        credentials=credentials or load_credentials(lab.secrets_file, environ={}),
        known_hosts=known_hosts or lab.known_hosts,
    )
    events: list[PushEvent] = []

    def hook(event: PushEvent) -> None:
        events.append(event)
        if on_event is not None:
            on_event(event)

    secrets = sorted({*job.secrets, *lab_secrets(lab)})
    seen: list[Path] = []
    with runner_files_checked(secrets, seen):
        summary = engine(
            job,
            PushOptions(
                dry_run=dry_run, workers=4, backup_dir=backups, timeout_s=timeout_s, timeout_factor=timeout_factor
            ),
            hook,
        )
    if engine is ansible_engine.run:
        assert any(f.name == "stdout" for f in seen), "ansible-runner's artifacts were read"
    text = json.dumps([e.to_json() for e in events]) + json.dumps(summary.to_json())
    assert not [s for s in secrets if s in text], "a secret in an event or the summary"
    for f in (backups / run_id).rglob("*"):
        if f.is_file():
            assert not [s for s in secrets if s in f.read_text(encoding="utf-8")], f"a secret in the backup {f}"
            assert f.stat().st_mode & 0o077 == 0, f
    return summary, events


def verify_alone(lab: LabConnection, devices: list[str]) -> dict[str, DeviceResult]:
    """``playbooks/verify.yml`` run by itself (AWX's verify job template), through ansible-runner as the engine
    starts it: the inventory xoff writes, the rendered files, the lab's credentials. Each device's result is
    what its ``Done | report`` said (or where it failed without one); no secret in any file the run left."""
    targets = select(build_targets(lab.fabric), devices)
    desired: dict[str, dict[str, str]] = {}
    for f in render_fabric(lab.fabric, devices):
        desired.setdefault(f.device, {})[f.name] = f.content
    creds = load_credentials(lab.secrets_file, environ={})
    job = PushJob(lab.fabric.fabric, "verify", targets, desired, creds, lab.known_hosts)
    options = PushOptions(workers=4)
    translator = ansible_engine.EventTranslator(lambda _: None, job.secrets, options.timeouts)
    secrets = sorted({*job.secrets, *lab_secrets(lab)})
    seen: list[Path] = []
    work = Path(tempfile.mkdtemp(prefix="xvt-"))
    try:
        render = ansible_engine._write_tree(work, job, targets)
        with runner_files_checked(secrets, seen):
            ansible_runner.run(
                private_data_dir=str(work),
                project_dir=str(ansible_engine.playbooks_dir()),
                inventory=str(work / "inventory" / INVENTORY_FILE),
                **ansible_engine.runner_arguments(work, creds, options, "verify.yml"),
                extravars={"xoff_render_dir": str(render)},  # only what the job template's survey gives
                forks=4,
                event_handler=translator,
                suppress_env_files=True,
                quiet=True,
            )
    finally:
        ansible_engine.end_control_masters(work / "cp")
        shutil.rmtree(work, ignore_errors=True)
    assert any(f.name == "stdout" for f in seen), "ansible-runner's artifacts were read"
    return {t.name: translator.result(t, 1) for t in targets}


def state_dir(lab: LabConnection, device: str) -> Path:
    return lab.lab_dir / "devices" / device / "state"


def device_state(lab: LabConnection, device: str) -> Any:
    """What the emulator holds as the switch's running configuration (SONiC CONFIG_DB, EOS running-config)."""
    d = state_dir(lab, device)
    if (d / "config_db.json").exists():
        return json.loads((d / "config_db.json").read_text(encoding="utf-8"))
    assert (d / "running-config").exists(), f"{device} has not booted (SONiC: its first session writes CONFIG_DB)"
    return (d / "running-config").read_text(encoding="utf-8")


def rendered(lab: LabConnection, device: str, name: str) -> str:
    return next(f.content for f in render_fabric(lab.fabric, [device]) if f.name == name)


def config_db_mismatches(running: dict[str, Any], desired: dict[str, Any]) -> list[str]:
    """The SONiC strategy's comparison (both engines', ``playbooks/filter_plugins/config_db.py`` calls it):
    the tables xoff owns."""
    from xoff.platforms.sonic.apply import config_patch

    _, lines = config_patch(running, desired)
    return lines
