"""Watch benchmark: the counters of a 64-switch, 56-host lab read every 10 s, gNMI against SSH polling, with the
controller's CPU share, and the cost projected to 1,000 switches.

The lab is lab_updown.py's generated fabric (8 spines, 56 leaves, SONiC; one single-NIC host per leaf), brought
up once. Every switch's ``counters.json`` is seeded with PFC and queue counters on every port, so each read
parses and decodes non-zero values. Then, in one process,
one mode after the other (the same lab, the same interval):

- *ssh*: each switch over SSH (xoff's netmiko sessions, kept open across rounds, as a watcher keeps them):
  ``show pfc counters``, ``show queue counters``, ``show pfcwd stats``, parsed by xoff's SONiC parsers;
- *gnmi*: each switch over gNMI (``GnmiCounterSource``: one Get of ``COUNTERS/Ethernet*``, its ``Queues`` and
  ``Pfcwd`` per switch per round, gRPC channels kept open), SONiC's telemetry on port 8080;
- in both modes each host over SSH (exec channels, key auth): ``mlnx_qos -i eth0`` (the lab's NIC tool shim;
  the hosts' counter commands are another part's), so the host share is the same work in both.

A round reads every device with 16 threads, then waits for the next 10 s tick. The controller's CPU is
``getrusage(RUSAGE_SELF)`` user + system (every thread of this process), measured per phase (switches, hosts) of
every round; the first round of each mode (logins, channels) is reported on its own and left out of the steady
state. *CPU share* = steady-state CPU seconds / wall seconds of those rounds (1.0 = one core busy). The baseline
is the SSH mode, measured in the same run: the ratio column is gNMI's CPU over SSH's.

Projection to 1,000 switches: steady-state switch CPU seconds per switch per round, times 1,000, over the
10 s interval = cores busy (linear: each switch is a separate request whose cost does not depend on the others;
connection setup is once per watcher start, not per round). If the 64-switch lab does not come up here, run
``--leaves`` smaller and the projection is from that size (the report says the size).

Runs as root (namespaces). ``python bench/watch_scale.py [--rounds 4] [--interval 10] [--record FILE]``.
Not part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from xoff.connect.credentials import load_credentials
from xoff.connect.session import ConnectSpec, open_session
from xoff.connect.targets import build_targets
from xoff.lab import daemons
from xoff.lab.lab import resolve, up
from xoff.lab.provider import from_lab
from xoff.lab.teardown import down
from xoff.platforms.registry import get_platform
from xoff.platforms.sonic.counters import parse_pfc, parse_queues, parse_watchdog
from xoff.watch.gnmi_source import GnmiCounterSource, targets_for

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab_updown import generate  # the 64-switch fabric, beside this file

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 16
SWITCH_COMMANDS = ("show pfc counters", "show queue counters", "show pfcwd stats")
HOST_COMMAND = "mlnx_qos -i eth0"
PROJECT_TO = 1000
_SAID: set[str] = set()


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


@dataclass
class Phase:
    cpu_s: float
    wall_s: float
    errors: int


@dataclass
class Mode:
    name: str
    first: list[Phase] = field(default_factory=list)  # switches, hosts of round 1
    rounds: list[tuple[Phase, Phase]] = field(default_factory=list)  # steady state: (switches, hosts)
    wall_s: float = 0.0  # wall time of the steady-state rounds (their ticks, or longer when a round overran)
    overran: int = 0  # steady-state rounds that took longer than the interval
    readings: int = 0  # readings (gNMI) or parsed rows (SSH) of the last round


def timed(work: Callable[[], int]) -> tuple[Phase, int]:
    c0, t0 = cpu(), time.perf_counter()
    errors = work()
    return Phase(cpu() - c0, time.perf_counter() - t0, errors), errors


def seed(lab_dir: Path, switches: Sequence[str], ports: int) -> None:
    """PFC and queue counters on every port (what the ASIC would count). Fixed totals: the SONiC emulator on this
    commit prints integers only (the rising form is issue 18's switch part; the gNMI server reads both)."""
    for i, name in enumerate(switches):
        n = 1000 * (i + 1)
        pfc = {
            f"Ethernet{8 * p}": {"rx": [0, 0, 0, n + p, 0, 0, 0, 0], "tx": [0, 0, 0, 0, p, 0, 0, 0]}
            for p in range(ports)
        }
        queue = {
            f"Ethernet{8 * p}": {"UC3": {"packets": n, "bytes": 4096 * n, "drop_packets": p, "drop_bytes": 4096 * p}}
            for p in range(ports)
        }
        path = daemons.state_dir(lab_dir, name) / "counters.json"
        path.write_text(json.dumps({"pfc": pfc, "queue": queue}), encoding="utf-8")


class SshReader:
    """Sessions kept open across rounds; one command list per device per round."""

    def __init__(self, lab: str, names: Sequence[str]) -> None:
        conn = from_lab(lab)
        self.creds = load_credentials(conn.secrets_file)
        self.known_hosts = conn.known_hosts
        self.targets = {t.name: t for t in build_targets(conn.fabric) if t.name in names}
        self.sessions: dict[str, Any] = {}

    def _session(self, name: str) -> Any:
        if name not in self.sessions:
            t = self.targets[name]
            transport = get_platform(t.platform).transport  # as xoff collect connects (collect/engine.py)
            assert transport is not None
            creds = self.creds.for_device(t.platform, t.kind)
            spec = ConnectSpec(t, creds, self.known_hosts, 30.0, transport.enable, transport.exec_channel)
            self.sessions[name] = open_session(spec)
        return self.sessions[name]

    def read_switch(self, name: str) -> int:
        s = self._session(name)
        pfc, queues, wd = (s.send_command(c, read_timeout=30) for c in SWITCH_COMMANDS)
        values = sum(len(c.rx_pause) + len(c.tx_pause) for c in parse_pfc(pfc).values())
        values += sum(3 * len(qs) for qs in parse_queues(queues).values())  # packets, bytes, drops, as gNMI reads
        return values + sum(2 * len(w) for w in parse_watchdog(wd).values())

    def read_host(self, name: str) -> int:
        return len(str(self._session(name).send_command(HOST_COMMAND, read_timeout=30)).splitlines())

    def close(self) -> None:
        for s in self.sessions.values():
            s.disconnect()


def _pool_count(pool: ThreadPoolExecutor, fn: Callable[[str], int], names: Sequence[str]) -> tuple[int, int]:
    errors, total = 0, 0

    def one(name: str) -> int | None:
        try:
            return fn(name)
        except Exception as exc:  # a device that failed counts as an error of the round (said once on stderr)
            if name not in _SAID:
                _SAID.add(name)
                print(f"watch_scale: {name}: {type(exc).__name__}: {str(exc)[:300]}", file=sys.stderr, flush=True)
            return None

    for got in pool.map(one, names):
        if got is None:
            errors += 1
        else:
            total += got
    return errors, total


def run_mode(name: str, lab: str, switches: list[str], hosts: list[str], rounds: int, interval: float) -> Mode:
    mode = Mode(name)
    ssh = SshReader(lab, [*switches, *hosts])
    gnmi = None
    if name == "gnmi":
        conn = from_lab(lab)
        gnmi = GnmiCounterSource(targets_for(conn.fabric, load_credentials(conn.secrets_file)), workers=WORKERS)
    pool = ThreadPoolExecutor(max_workers=WORKERS)
    counted = {"readings": 0}

    def switch_phase() -> int:
        if gnmi is not None:
            samples = gnmi.read(switches)
            counted["readings"] = sum(len(s.readings) for s in samples)
            return sum(s.error is not None for s in samples)
        errors, total = _pool_count(pool, ssh.read_switch, switches)
        counted["readings"] = total
        return errors

    def host_phase() -> int:
        return _pool_count(pool, ssh.read_host, hosts)[0]

    try:
        tick = time.perf_counter()
        for r in range(rounds + 1):
            sw, _ = timed(switch_phase)
            ho, _ = timed(host_phase)
            if r == 0:
                mode.first = [sw, ho]
                tick = time.perf_counter()  # the steady state starts after the first round
                start = tick
            else:
                mode.rounds.append((sw, ho))
                mode.overran += sw.wall_s + ho.wall_s > interval
                tick = max(tick + interval, time.perf_counter())  # a round that overran starts the next at once
                time.sleep(max(0.0, tick - time.perf_counter()))  # the watcher's own schedule: the next tick
        mode.wall_s = tick - start
        mode.readings = counted["readings"]
    finally:
        pool.shutdown()
        ssh.close()
        if gnmi is not None:
            gnmi.close()
    return mode


def report(modes: dict[str, Mode], args: argparse.Namespace, switches: int, hosts: int, up_s: float) -> str:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT, check=False
    )
    rows, per_switch = [], {}
    for m in modes.values():
        sw_cpu = sum(s.cpu_s for s, _ in m.rounds)
        ho_cpu = sum(h.cpu_s for _, h in m.rounds)
        share = (sw_cpu + ho_cpu) / m.wall_s
        per_switch[m.name] = sw_cpu / len(m.rounds) / switches
        sw_wall = statistics.median(s.wall_s for s, _ in m.rounds)
        ho_wall = statistics.median(h.wall_s for _, h in m.rounds)
        errors = sum(s.errors + h.errors for s, h in m.rounds)
        rows.append(
            f"| {m.name} | {m.first[0].cpu_s:.2f} / {m.first[0].wall_s:.2f} | {sw_cpu / len(m.rounds):.3f} | "
            f"{ho_cpu / len(m.rounds):.3f} | {sw_wall:.2f} | {ho_wall:.2f} | {m.overran} | {share:.3f} | "
            f"{1000 * per_switch[m.name]:.2f} | {errors} | {m.readings} |"
        )
    ratio = per_switch["gnmi"] / per_switch["ssh"] if per_switch.get("ssh") else float("nan")
    projection = [
        f"| {name} | {1000 * per:.2f} | {per * PROJECT_TO / args.interval:.2f} |" for name, per in per_switch.items()
    ]
    lines = [
        f"# watch_scale: counters of a {switches}-switch, {hosts}-host lab every {args.interval:g} s, gNMI against SSH",
        "",
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code: `{commit.stdout.strip() or '?'}`",
        f"- command: `python bench/watch_scale.py --rounds {args.rounds} --interval {args.interval:g} "
        f"--spines {args.spines} --leaves {args.leaves}`",
        f"- machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        f"- lab up (not timed below): {up_s:.1f} s; {WORKERS} reader threads; {args.rounds} steady-state rounds per mode",
        f"- load average (1, 5, 15 min) at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}",
        "",
        "| mode | round 1 CPU / wall s (logins) | switch CPU s / round | host CPU s / round | switch wall s "
        "(median) | host wall s (median) | rounds over the interval | controller CPU share | switch CPU ms / "
        "switch / round | errors | switch values read (last round) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        f"gNMI / SSH, controller CPU per switch per round (baseline: SSH, same run): **{ratio:.2f}**",
        "",
        f"Projected to {PROJECT_TO:,} switches read every {args.interval:g} s (switch CPU per switch per round x "
        f"{PROJECT_TO:,} / interval; linear; hosts and logins left out):",
        "",
        "| mode | switch CPU ms / switch / round | cores busy at 1,000 switches |",
        "|---|---:|---:|",
        *projection,
        "",
        "*controller CPU share*: user + system CPU of the controller process over the wall time of the",
        "steady-state rounds (1.0 = one core; a round over the interval starts the next at once). The lab's servers (SSH emulators, gNMI servers) run in other",
        "processes on the same machine and are not counted; on this 2-CPU machine they compete with the",
        "controller for the cores, so wall times are pessimistic. SSH parses three tables per switch in",
        "Python; gNMI decodes one protobuf Get with three JSON values per switch.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--interval", type=float, default=10.0)
    ap.add_argument("--spines", type=int, default=8)
    ap.add_argument("--leaves", type=int, default=56)
    ap.add_argument("--modes", default="ssh,gnmi")
    ap.add_argument("--record", type=Path)
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("watch_scale: needs root (network namespaces)")
    lab = f"w{os.getpid() % 100000}-watch"
    root = Path(tempfile.mkdtemp(prefix="xw", dir="/tmp"))
    root.chmod(0o755)
    os.environ["XOFF_LAB_DIR"] = str(root)
    try:
        intent = generate(root, args.spines, args.leaves, 1)
        t0 = time.perf_counter()
        up(intent, lab, remap_addresses=True)
        up_s = time.perf_counter() - t0
        state = resolve(lab)
        switches = sorted(n for n, d in state.devices.items() if d.kind == "switch")
        hosts = sorted(n for n, d in state.devices.items() if d.kind == "host")
        seed(from_lab(lab).lab_dir, switches, 32)
        modes = {}
        for name in args.modes.split(","):
            print(f"watch_scale: {name} ...", file=sys.stderr, flush=True)
            modes[name] = run_mode(name, lab, switches, hosts, args.rounds, args.interval)
        text = report(modes, args, len(switches), len(hosts), up_s)
        print(text)
        if args.record:
            args.record.write_text(text, encoding="utf-8")
    finally:
        down(lab)


if __name__ == "__main__":
    main()
