"""Push benchmark: a ~100-line change to 64 emulated EOS switches in one lab, with Nornir.

The fabric (generated here): 64 EOS switches in a ring (each cabled to the next; eBGP over every
/31), six ports each, so each switch's rendered configuration is about 100 lines and a push from
factory sends all of them inside a configuration session (``rollback clean-config`` + the
configuration, ``commit timer``, verify, confirm).

Measured, each on a fresh lab (devices at factory):
- single: ``--singles`` devices pushed one at a time, alone (the uncontended per-device time; the
  slowest is the baseline);
- nornir: all 64 in one ``xoff push`` (Nornir, ``--workers 64``): total wall time, and the slowest
  device inside that run;
- again: the same push once more (0 changes: connect, back up, diff only).
Target (issue 19): nornir engine wall time <= 1.3 x the slowest single device's (issue 6: 2x).

- ansible: on a fresh lab, the same change with ``ansible-playbook playbooks/push.yml`` (arista.eos
  network_cli, forks 64) against the exported inventory (``ansible_push``), printed in the same table.

Runs as root (namespaces). Writes bench/results/push_scale.md with --record.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from xoff.connect.ansible_inventory import export_ansible
from xoff.connect.credentials import load_credentials
from xoff.connect.targets import build_targets, select
from xoff.lab import neighbours
from xoff.lab.lab import LabError, resolve, up
from xoff.lab.provider import from_lab
from xoff.lab.teardown import down
from xoff.push.ansible_engine import ansible_environment, playbooks_dir
from xoff.push.job import PushJob, PushOptions, engine
from xoff.push.model import Outcome, PushEvent, PushSummary
from xoff.render import render_fabric

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured  # first of the bench's own modules: it notes the commit the run starts at
from fabric_text import qos_policies  # the benchmarks' shared intent text, beside them

ROOT = Path(__file__).resolve().parents[1]
SWITCHES = 64

FABRIC = (
    """\
fabric: {{name: {name}, site: bench}}
networks:
  management: {{prefix: 198.19.128.0/22, gateway: 198.19.128.1}}
  compute:
    kind: roce
    qos_policy: rdma
    p2p_prefix: 198.18.0.0/22
    loopback_prefix: 198.18.255.0/24
    underlay: {{asn_plan: {{leaf: 65101}}}}
"""
    + qos_policies(watchdog=True)
    + """\
defaults:
  switch: {{platform: eos, asic: tomahawk5}}
roles:
  leaf: {{ports: [{{name: "Ethernet{{1..6}}/1", speed: 400G, use: downlink}}]}}
switches:
  - {{name: "sw{{01..{n:02d}}}", role: leaf}}
links:
{links}
"""
)


def generate(where: Path, n: int, name: str) -> Path:
    links = "\n".join(
        f'  - {{a: "sw{i + 1:02d}:Ethernet1/1", b: "sw{(i + 1) % n + 1:02d}:Ethernet2/1"}}' for i in range(n)
    )
    path = where / "fabric.yaml"
    path.write_text(FABRIC.format(n=n, links=links, name=name), encoding="utf-8")
    return path


def ansible_push(lab: str, intent: Path, workdir: Path) -> float | None:
    """The Ansible half on a fresh lab: ``ansible-playbook playbooks/push.yml`` (arista.eos network_cli,
    forks 64) against the exported inventory, as a user would run it; the wall time in seconds."""
    del intent
    conn = from_lab(lab)
    targets = build_targets(conn.fabric)
    work = workdir / "ansible"
    render = work / "render"
    for f in render_fabric(conn.fabric, [t.name for t in targets]):
        (render / f.device).mkdir(parents=True, exist_ok=True)
        (render / f.device / f.name).write_text(f.content, encoding="utf-8")
    inventory = export_ansible(targets, work / "inventory", known_hosts=conn.known_hosts)
    (work / "home" / ".ssh").mkdir(parents=True)
    shutil.copyfile(conn.known_hosts, work / "home" / ".ssh" / "known_hosts")
    for sub in ("tmp", "pc", "cp"):
        (work / sub).mkdir()
    env = {**os.environ, **ansible_environment(work, load_credentials(conn.secrets_file), PushOptions())}
    argv = [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inventory), "-f", str(len(targets))]
    argv += ["-e", f"xoff_render_dir={render}", "-e", f"xoff_backups={work / 'backups'}"]
    t0 = time.perf_counter()
    done = subprocess.run(
        [*argv, str(playbooks_dir() / "push.yml")], capture_output=True, text=True, env=env, check=False
    )
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"ansible-playbook failed ({done.returncode}): {done.stdout[-2000:]}")
    return elapsed


def _push(lab: str, limit: list[str], workdir: Path, workers: int) -> PushSummary:
    conn = from_lab(lab)
    targets = select(build_targets(conn.fabric), limit)
    desired: dict[str, dict[str, str]] = {}
    for f in render_fabric(conn.fabric, [t.name for t in targets]):
        desired.setdefault(f.device, {})[f.name] = f.content
    run_id = f"bench{time.time_ns()}"
    job = PushJob(conn.fabric.fabric, run_id, targets, desired, load_credentials(conn.secrets_file), conn.known_hosts)

    def quiet(_event: PushEvent) -> None:
        pass

    options = PushOptions(workers=workers, backup_dir=workdir / "backups")
    summary = engine("nornir")(job, options, quiet)
    bad = [r for r in summary.results if r.outcome not in {Outcome.CHANGED, Outcome.UNCHANGED}]
    if bad:
        raise SystemExit(f"push failed: {bad[0].device}: {bad[0].outcome.value}: {bad[0].error}")
    return summary


@dataclass(frozen=True)
class CpuSample:
    """CPU seconds used so far: by the lab's processes (by role, children included), by this process
    (the controller: Nornir, netmiko, paramiko), and by the whole machine."""

    by_role: dict[str, float]
    controller: float
    machine_busy: float
    wall: float

    @classmethod
    def take(cls, lab: str) -> CpuSample:
        tick = os.sysconf("SC_CLK_TCK")
        by_role: dict[str, float] = {}
        for rec in resolve(lab).processes.values():
            try:
                fields = Path(f"/proc/{rec.pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[19]) != rec.start_ticks:  # a reused PID is not the lab's process
                continue
            used = sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
            by_role[rec.role] = by_role.get(rec.role, 0.0) + used
        t = os.times()
        cpu = [int(x) for x in Path("/proc/stat").read_text(encoding="utf-8").splitlines()[0].split()[1:]]
        busy = (sum(cpu) - cpu[3] - cpu[4]) / tick  # all but idle and iowait
        return cls(by_role, t.user + t.system + t.children_user + t.children_system, busy, time.monotonic())

    def since(self, before: CpuSample) -> CpuSample:
        roles = {r: v - before.by_role.get(r, 0.0) for r, v in self.by_role.items()}
        return CpuSample(
            roles, self.controller - before.controller, self.machine_busy - before.machine_busy, self.wall - before.wall
        )


def _fresh_lab(intent: Path, lab: str) -> None:
    with contextlib.suppress(LabError):
        down(lab)
    up(intent, lab, remap_addresses=True)
    _await_banners(lab)


def neighbour_room() -> None:
    """Room in the kernel's neighbour tables for this bench's 64 switches beside other labs (``lab up`` does the same
    since it knows; kept here for a lab brought up by an older xoff)."""
    for line in neighbours.make_room():
        print(line, file=sys.stderr)


def _await_banners(lab: str, limit_s: float = 180.0) -> None:
    """Wait until every switch sends its SSH banner to this namespace (the push is timed after this):
    the lab is up when ``lab up`` returns, but on a shared machine the first ARP answers may lag."""
    pending = {(t.address, t.port) for t in build_targets(from_lab(lab).fabric)}
    deadline = time.monotonic() + limit_s
    while pending:
        if time.monotonic() > deadline:
            raise SystemExit(f"{len(pending)} switches sent no SSH banner within {limit_s:.0f} s of lab up")
        for addr in sorted(pending):
            with contextlib.suppress(OSError), socket.create_connection(addr, timeout=1.0) as s:
                s.settimeout(2.0)
                if s.recv(8).startswith(b"SSH-"):
                    pending.discard(addr)


def _singles(lab: str, names: list[str], work: Path, log: Callable[[str], None]) -> list[float]:
    """Each device pushed alone: the engine's wall time of each (the baseline is the slowest)."""
    singles: list[float] = []
    for name in names:
        one = _push(lab, [name], work, 1)
        r = one.results[0]
        singles.append(one.elapsed_s)
        log(f"single {name}: engine {one.elapsed_s:.2f} s (device {r.elapsed_s:.2f} s), {r.changes} changes")
    return singles


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--switches", type=int, default=SWITCHES)
    parser.add_argument("--singles", type=int, default=3, help="devices pushed alone for the baseline")
    parser.add_argument("--workers", type=int, default=SWITCHES, help="Nornir workers for the whole-fabric push")
    parser.add_argument("--record", action="store_true", help="write bench/results/push_scale.md")
    parser.add_argument("--no-ansible", action="store_true", help="skip the Ansible half (about 4 minutes)")
    args = parser.parse_args(argv)
    log: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    neighbour_room()
    work = Path(tempfile.mkdtemp(prefix="xoff-push-bench-"))
    work.chmod(0o755)  # FRR (user frr) must traverse the lab directory
    os.environ["XOFF_LAB_DIR"] = str(work / "labs")
    lab = f"pb{os.getpid()}"  # unique per run: two runs never share a lab, namespaces or fabric name
    try:
        intent = generate(work, args.switches, f"pushbench{os.getpid()}")
        names = [f"sw{i + 1:02d}" for i in range(args.switches)]
        _fresh_lab(intent, lab)
        lines = len(render_fabric(from_lab(lab).fabric, [names[0]])[0].content.splitlines())
        load = os.getloadavg()
        singles = _singles(lab, names[: args.singles], work, log)
        _fresh_lab(intent, lab)
        servers = sum(r.role == "switch-ssh" for r in resolve(lab).processes.values())
        log(f"lab: {servers} switch SSH server processes")
        time.sleep(5)  # lab up's own CPU (FRR, lldpd settling) out of the measurement
        idle = CpuSample.take(lab)
        time.sleep(5)
        background = CpuSample.take(lab).since(idle)
        before = CpuSample.take(lab)
        t0 = time.perf_counter()
        run = _push(lab, [], work, args.workers)
        whole = time.perf_counter() - t0
        cpu = CpuSample.take(lab).since(before)
        total = run.elapsed_s
        slowest_in_run = max(r.elapsed_s for r in run.results)
        changes = sorted(r.changes for r in run.results)
        log(
            f"nornir {args.switches} ({args.workers} workers): engine {total:.2f} s, with render {whole:.2f} s (slowest device in the run {slowest_in_run:.2f} s)"
        )
        t0 = time.perf_counter()
        _push(lab, [], work, args.workers)
        again = time.perf_counter() - t0
        log(f"again (0 changes): {again:.2f} s")
        ansible = None
        if not args.no_ansible:
            _fresh_lab(intent, lab)
            ansible = ansible_push(lab, intent, work)
        report(
            args,
            lines,
            changes,
            singles,
            (total, whole),
            slowest_in_run,
            again,
            ansible,
            cpu_table(cpu, background) + "\n" + cpu_floor(cpu, args.switches, max(singles)),
            servers,
            load,
        )
    finally:
        with contextlib.suppress(LabError):
            down(lab)
        shutil.rmtree(work, ignore_errors=True)


def cpu_floor(cpu: CpuSample, devices: int, slowest: float) -> str:
    """The least wall time the run's work could take here: every CPU-s the machine spent in it, spread over all its
    CPUs with none idle (controller and emulated switches share them: a lab's 64 switches are not 64 machines);
    and the CPU-s per device at which that floor would be 1.3 x the slowest single device."""
    cpus = os.cpu_count() or 1
    floor = cpu.machine_busy / cpus
    per_device = cpu.machine_busy / devices
    allowed = 1.3 * slowest * cpus / devices
    return (
        f"CPU floor of the Nornir run on this machine: {cpu.machine_busy:.2f} CPU-s over {cpus} CPUs = **{floor:.2f} s**"
        f" = {floor / slowest:.2f}x the slowest single device, with no CPU ever idle. Per device"
        f" {1000 * per_device:.0f} ms of CPU (controller and emulated switch together); 1.3x here needs at most"
        f" {1000 * allowed:.0f} ms per device and no idle CPU.\n"
    )


def cpu_table(cpu: CpuSample, background: CpuSample) -> str:
    """Where the CPU went during the Nornir run, against what the machine had (wall x CPUs); the idle
    lab's own rate (FRR keepalives, LLDP every second), measured before, for comparison."""
    capacity = cpu.wall * (os.cpu_count() or 1)
    rows = [("controller (this process: Nornir, netmiko, paramiko)", cpu.controller, 0.0)]
    for role in sorted(cpu.by_role, key=lambda r: -cpu.by_role[r]):
        idle = background.by_role.get(role, 0.0) / background.wall * cpu.wall
        rows.append((f"lab `{role}`", cpu.by_role[role], idle))
    ours = sum(r[1] for r in rows)
    rows.append(("rest of the machine (other users' processes, kernel)", cpu.machine_busy - ours, 0.0))
    out = [
        f"CPU during the Nornir run ({cpu.wall:.1f} s x {os.cpu_count()} CPUs = {capacity:.1f} CPU-s available; "
        f"machine busy {cpu.machine_busy:.1f} CPU-s, {100 * cpu.machine_busy / capacity:.0f}%):",
        "",
        "| who | CPU-s in the run | share of available | same processes idle, for as long |",
        "|---|---:|---:|---:|",
    ]
    out += [f"| {who} | {used:.1f} | {100 * used / capacity:.0f}% | {idle:.1f} |" for who, used, idle in rows]
    return "\n".join(out) + "\n"


def report(
    args: argparse.Namespace,
    lines: int,
    changes: list[int],
    singles: list[float],
    totals: tuple[float, float],
    slowest_in_run: float,
    again: float,
    ansible: float | None,
    cpu: str,
    servers: int,
    load: tuple[float, float, float],
) -> None:
    slowest = max(singles)
    total, whole = totals
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, cwd=ROOT, check=False
    ).stdout.strip()
    text = f"""# push_scale: a ~100-line change to {args.switches} emulated EOS switches

`bench/push_scale.py` ({datetime.now(UTC).strftime("%Y-%m-%d")}, {platform.node()}, {os.cpu_count()} CPUs,
Python {platform.python_version()}, commit `{commit}`, load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}).
Times are the push engine's own wall time (`PushSummary.elapsed_s`: Nornir set-up, connect ... confirm),
for one device alone and for all of them; rendering the configurations is shown apart. Each switch's rendered running-config is {lines} lines; the push
from factory sends it in a configuration session (rollback clean-config + config, commit timer,
verify, confirm); per-device diff sizes {changes[0]}-{changes[-1]} changes. The lab serves the
switches' SSH from {servers} processes (`xoff.lab.sshd --shard`).

| run | wall time (s) | vs slowest single device |
|---|---:|---:|
| slowest single device, pushed alone, engine wall time (of {len(singles)}: {", ".join(f"{s:.2f}" for s in singles)}) | {slowest:.2f} | 1.00 |
| Nornir, {args.switches} devices, {args.workers} workers | {total:.2f} | {total / slowest:.2f} |
| same run with loading the lab and rendering {args.switches} configurations | {whole:.2f} | {whole / slowest:.2f} |
| slowest device inside that Nornir run | {slowest_in_run:.2f} | {slowest_in_run / slowest:.2f} |
| Nornir again, 0 changes (connect, backup, diff) | {again:.2f} | {again / slowest:.2f} |
| Ansible (ansible-playbook, arista.eos, forks 64) | {f"{ansible:.2f}" if ansible is not None else "not run (hook `ansible_push`)"} | {f"{ansible / slowest:.2f}" if ansible is not None else "-"} |

Target (issue 19): Nornir total <= 1.3 x the slowest single device: **{"met" if total <= 1.3 * slowest else "not met"}**
({total / slowest:.2f}x). Nornir vs Ansible >= 3x: {f"{ansible / total:.2f}x" if ansible is not None else "pending the Ansible half"}.

{cpu}"""
    print(text)
    if args.record:
        path = ROOT / "bench" / "results" / "push_scale.md"
        measured.record(path, text)  # names the commit it measured; earlier recordings and hand notes kept below


if __name__ == "__main__":
    main()
