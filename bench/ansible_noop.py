"""The Ansible engine with nothing to change, side by side with a trivial play over the same hosts.

Issue 19: ``xoff push --engine ansible`` on lab-mini with no changes within 3x of a trivial
``ansible-playbook`` play over the same hosts. The trivial play is each device's ``Connect |`` task
alone (``playbooks/tasks/<platform>/connect.yml``: log in, one harmless command), with the same
inventory, connections, forks and environment the engine gives ``ansible-playbook``. The lab is
pushed once with Nornir first (not timed), then the two are run alternately (engine, play, engine,
play ...) so the machine's other load falls on both alike; the ratio is median / median.

Each run's CPU time is shown beside its wall time: the user + system seconds of the run's own processes
(``ansible-playbook``, its workers, ``xoff``; not the lab's devices nor detached connection daemons), which
another job's load on the machine changes far less than it changes wall time.

Runs as root (namespaces). ``--record`` writes ``bench/results/ansible_noop.md``; the recordings before it are
kept below it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from xoff.connect.ansible_inventory import export_ansible
from xoff.connect.credentials import load_credentials
from xoff.connect.targets import build_targets
from xoff.lab.lab import LabError, up
from xoff.lab.provider import from_lab
from xoff.lab.teardown import down
from xoff.push.ansible_engine import ansible_environment, playbooks_dir
from xoff.push.job import PushOptions
from xoff.render import render_fabric

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured  # first of the bench's own modules: it notes the commit the run starts at
from push_scale import neighbour_room

ROOT = Path(__file__).resolve().parents[1]
XOFF = str(Path(sys.executable).parent / "xoff")
TARGET = 3.0
TRIVIAL = """\
---
- name: Trivial play (each device's connect task alone)
  hosts: all
  gather_facts: false
  tasks:
    - name: Connect
      ansible.builtin.include_tasks: "{tasks}/{{{{ xoff_platform }}}}/connect.yml"
"""


RESULT = ROOT / "bench" / "results" / "ansible_noop.md"
TITLE = "# ansible_noop: the Ansible engine with no changes vs a trivial play (issue 19)"


def _cpu() -> float:
    """User + system CPU seconds of this process's waited-for children so far."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the run's processes)."""
    c0, t0 = _cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({done.returncode}): {(done.stdout + done.stderr)[-2000:]}")
    return elapsed, _cpu() - c0


def _trivial_argv(lab: str, work: Path) -> tuple[list[str], dict[str, str]]:
    """``ansible-playbook`` of the trivial play, as the engine runs its playbook (push_scale's ``ansible_push``)."""
    conn = from_lab(lab)
    targets = build_targets(conn.fabric)
    inventory = export_ansible(targets, work / "inventory", known_hosts=conn.known_hosts)
    (work / "home" / ".ssh").mkdir(parents=True)
    shutil.copyfile(conn.known_hosts, work / "home" / ".ssh" / "known_hosts")
    for sub in ("tmp", "pc", "cp"):
        (work / sub).mkdir()
    play = work / "trivial.yml"
    play.write_text(TRIVIAL.format(tasks=playbooks_dir().resolve() / "tasks"), encoding="utf-8")
    env = {**os.environ, **ansible_environment(work, load_credentials(conn.secrets_file), PushOptions())}
    forks = ["-f", str(len(targets))]
    return [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inventory), *forks, str(play)], env


def _profile(lab: str, play: list[str], env: dict[str, str], work: Path) -> str:
    """The engine's playbook (``push.yml``, nothing to change) once more, as ``ansible-playbook`` with the
    same inventory and environment and Ansible's ``profile_tasks`` callback: the slowest tasks."""
    render = work / "render"
    for f in render_fabric(from_lab(lab).fabric, None):
        (render / f.device).mkdir(parents=True, exist_ok=True)
        (render / f.device / f.name).write_text(f.content, encoding="utf-8")
    argv = [*play[:-1], "-e", f"xoff_render_dir={render}", "-e", f"xoff_backups={work / 'backups'}"]
    argv.append(str(playbooks_dir() / "push.yml"))
    env = {**env, "ANSIBLE_CALLBACKS_ENABLED": "ansible.posix.profile_tasks", "PROFILE_TASKS_TASK_OUTPUT_LIMIT": "12"}
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    head = f"`ansible-playbook push.yml` alone: {time.perf_counter() - t0:.2f} s, exit {done.returncode}"
    lines = done.stdout.splitlines()
    marks = [i for i, ln in enumerate(lines) if ln.startswith("=====")]
    return "\n".join([head, "", "```", *(lines[marks[-1] + 1 :] if marks else lines[-15:]), "```"])


def _commit() -> str:
    done = subprocess.run(
        ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, cwd=ROOT, check=False
    )
    return done.stdout.strip()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--intent", type=Path, default=ROOT / "inventory" / "lab-mini")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--record", action="store_true", help=f"write {RESULT.relative_to(ROOT)}")
    parser.add_argument("--profile", action="store_true", help="then push.yml once with profile_tasks")
    args = parser.parse_args(argv)
    neighbour_room()
    work = Path(tempfile.mkdtemp(prefix="xoff-ansible-noop-"))
    work.chmod(0o755)  # FRR (user frr) must traverse the lab directory
    os.environ["XOFF_LAB_DIR"] = str(work / "labs")
    lab = f"an{os.getpid()}"
    load = os.getloadavg()
    engine: list[float] = []
    trivial: list[float] = []
    engine_cpu: list[float] = []
    trivial_cpu: list[float] = []
    profile = ""
    try:
        up(args.intent, lab, remap_addresses=True)
        _timed([XOFF, "push", str(args.intent), "--lab", lab, "-f", "json", "--backup-dir", str(work / "b0")])
        play, env = _trivial_argv(lab, work / "play")
        for i in range(args.runs):
            push = [XOFF, "push", str(args.intent), "--lab", lab, "--engine", "ansible", "-f", "json"]
            for walls, cpus, (wall, cpu) in (
                (engine, engine_cpu, _timed([*push, "--backup-dir", str(work / f"b{i + 1}")])),
                (trivial, trivial_cpu, _timed(play, env)),
            ):
                walls.append(wall)
                cpus.append(cpu)
            print(f"run {i + 1}: engine {engine[-1]:.2f} s, trivial play {trivial[-1]:.2f} s", file=sys.stderr)
        profile = _profile(lab, play, env, work / "play") if args.profile else ""
    finally:
        with contextlib.suppress(LabError):
            down(lab)
        shutil.rmtree(work, ignore_errors=True)
    ratio = statistics.median(engine) / statistics.median(trivial)
    cpu_ratio = statistics.median(engine_cpu) / statistics.median(trivial_cpu)
    intent = args.intent.relative_to(ROOT) if args.intent.is_relative_to(ROOT) else args.intent
    text = f"""{TITLE}

- intent: `{intent}`; runs alternated, {args.runs} each
- machine: {os.cpu_count()} CPUs, load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; commit `{_commit()}`

| run | wall, each (s) | wall, median (s) | vs trivial play | CPU, each (s) | CPU, median (s) | vs trivial play |
|---|---|---:|---:|---|---:|---:|
| `xoff push --engine ansible` (no changes) | {_each(engine)} | {statistics.median(engine):.2f} | {ratio:.2f} | {_each(engine_cpu)} | {statistics.median(engine_cpu):.2f} | {cpu_ratio:.2f} |
| trivial play (connect task only, same inventory and forks) | {_each(trivial)} | {statistics.median(trivial):.2f} | 1.00 | {_each(trivial_cpu)} | {statistics.median(trivial_cpu):.2f} | 1.00 |

Target (issue 19): within {TARGET:.0f}x of the trivial play (wall time, idle machine): \
**{"met" if ratio <= TARGET else "not met"}** ({ratio:.2f}x).

{profile}
"""
    print(text)
    if args.record:
        measured.record(RESULT, text)  # names the commit it measured; earlier recordings kept below it


def _each(values: list[float]) -> str:
    return ", ".join(f"{x:.2f}" for x in values)


if __name__ == "__main__":
    main()
