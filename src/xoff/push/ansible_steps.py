"""The Ansible engine's connect and backup steps, done inside one task's worker on the controller.

``playbooks/action_plugins/xoff_connect.py`` and ``xoff_backup.py`` call this. A task costs Ansible about a
worker fork and a templating pass per host (``bench/results/push_scale.md``): a device with nothing to change
now runs three (connect; backup with the diff; report) where it ran a dozen small ones. What each platform
sends is what its ``tasks/<platform>/connect.yml`` and ``backup.yml`` sent, byte for byte, and the backup text
is kept in the same form; the count of changes is the platform's own ``ApplyStrategy.diff`` (the Nornir flow's),
and a device with changes then goes through its ``tasks/<platform>/diff.yml`` as before.

The table below is keyed by platform, as ``playbooks/tasks/<platform>/`` is: the playbooks' per-platform files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ansible.module_utils.connection import Connection  # type: ignore[import-untyped]

from xoff.atomic import write_atomic
from xoff.contracts.apply import ApplyError
from xoff.platforms.registry import strategy_for

FILE_MODE = 0o600
DIR_MODE = 0o700


@dataclass(frozen=True)
class Answer:
    """What a command printed: through a shell (its exit status, stdout, stderr) or a CLI session (status 0)."""

    rc: int
    stdout: str
    stderr: str = ""


def nvue_commands(stdout: str) -> str:
    """``nv config show -o commands`` as the backup text (line ends as netmiko returns them)."""
    lines = [ln.rstrip() for ln in stdout.replace("\r\n", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


def _shell(answer: Answer, command: str) -> str:
    """A switch shell's output; its exit status must be 0 (as ``ansible.builtin.raw`` fails otherwise)."""
    if answer.rc != 0:
        why = next((ln for ln in (answer.stderr + answer.stdout).splitlines() if ln.strip()), "no output")
        raise ApplyError(f"{command}: exit status {answer.rc}: {why.strip()}")
    return answer.stdout


# a host's parts are imported where a host is read: they bring the intent models (~0.3 s of CPU), and every
# task's worker is a fresh fork that imports its own
def _snapshot_script() -> str:
    from xoff.platforms.linux.observe import SNAPSHOT_SCRIPT  # noqa: PLC0415

    return SNAPSHOT_SCRIPT


def _host_state(answer: Answer) -> str:
    from xoff.platforms.linux.apply import read_state  # noqa: PLC0415
    from xoff.platforms.linux.observe import dumps  # noqa: PLC0415

    return dumps(read_state(answer.rc, answer.stdout, answer.stderr))


@dataclass(frozen=True)
class Read:
    """How a platform's device is reached and its running state kept (its ``connect.yml``, ``backup.yml``)."""

    connect: str  # one harmless command: the device answers
    command: str  # reads the running state
    keep: Callable[[Answer], str]  # the answer -> the backup text
    stdin: Callable[[], str] | None = None  # the command's input (a host's snapshot script)


READS: dict[str, Read] = {
    "sonic": Read("hostname", "show runningconfiguration all", lambda a: _shell(a, "show runningconfiguration all")),
    # eos_command's answer, stripped, as the file kept it
    "eos": Read("show version", "show running-config", lambda a: a.stdout.strip() + "\n"),
    "cumulus": Read(
        "hostname", "nv config show -o commands", lambda a: nvue_commands(_shell(a, "nv config show -o commands"))
    ),
    # bash reading the script on standard input, no terminal, as the Nornir strategy runs it
    "linux": Read("hostname", "bash -s", _host_state, stdin=_snapshot_script),
}


def ask(connection: Any, shell: Callable[..., dict[str, Any]], command: str, stdin: str | None = None) -> Answer:
    """``command`` through the task's connection: a persistent CLI session (``network_cli``: the request
    ``eos_command`` makes), else a shell command as ``ansible.builtin.raw`` runs it (``shell``: the action's
    ``_low_level_execute_command``). A CLI error raises ``ansible.module_utils.connection.ConnectionError``."""
    socket_path = getattr(connection, "socket_path", None)
    if socket_path:
        out = Connection(socket_path).run_commands(commands=[command], check_rc=True)[0]
        return Answer(0, out if isinstance(out, str) else str(out))
    done = shell(command, in_data=stdin, executable=False)
    return Answer(int(done.get("rc", 1)), str(done.get("stdout", "")), str(done.get("stderr", "")))


def read_for(platform: str) -> Read:
    try:
        return READS[platform]
    except KeyError:
        raise ApplyError(f"no Ansible backup step for platform {platform!r} (allowed: {', '.join(READS)})") from None


def rendered_files(folder: Path) -> dict[str, str]:
    """The rendered files of one device, as the engine loads them (name -> exact text)."""
    if not folder.is_dir():
        raise ApplyError(f"no rendered files for this device in {folder}")
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()) if p.is_file()}


def changes(platform: str, running: str, folder: Path) -> list[str]:
    """The lines the push would change: the platform's own diff (the Nornir flow's), from the backup text."""
    return strategy_for(platform).diff(running, rendered_files(folder)).lines


def write_file(path: Path, content: str) -> bool:
    """Write ``content`` to ``path`` atomically (mode 0600, parents 0700); True when it was not already there."""
    data = content.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    write_atomic(path, data, FILE_MODE, DIR_MODE)
    return True
