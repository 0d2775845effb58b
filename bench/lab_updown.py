"""Lab benchmark: ``lab up`` and ``lab down`` for lab-mini and for a generated 64-switch fabric.

Each run brings the lab up from nothing (namespaces, veths, bridge, FRR zebra + bgpd + staticd and lldpd per
switch, lldpd + OpenSSH per host, the switch SSH server), then, not timed as part of up, waits for
every BGP session to be Established (reported as its own column), runs ``up`` again (the
idempotent no-op), and takes the lab down (processes by PID, namespaces, interfaces, files).
Best and median of N runs; the ratio up/down and the cost per device from the best runs.

The 64-switch fabric (generated here, like plan_scale.py does): 8 spines and 56 leaves (SONiC,
Spectrum-4), every leaf cabled to every spine (448 links), and by default one single-NIC host per
leaf (56 hosts, 56 more links). Addresses from 198.18.0.0/15; labs come up with --remap, which
keeps them (they are lab-safe) unless they are in use on this machine.

Runs as root (namespaces). Uses the Python API (``xoff.lab.lab.up`` / ``xoff.lab.teardown.down``),
so interpreter start-up (about 0.3 s for ``xoff lab up``) is not in the numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from xoff.lab import processes
from xoff.lab.lab import resolve, up
from xoff.lab.teardown import down, leftovers_of

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured  # the results' commit line (bench/README.md, Freshness)
from lab_bench import ONE_NIC_PROFILE, intent_head, run_lines, sonic_roles, wait_bgp  # the lab benchmarks' shared parts

ROOT = Path(__file__).resolve().parents[1]
BGP_TIMEOUT_S = 120.0

FABRIC = (
    intent_head("bench-{switches}", "198.18.0.0/21", "spine: 65100, leaf: 65101")
    + sonic_roles(("spine", "down"), ("leaf", "split"))
    + """\
switches:
  - {{name: "spine{{1..{spines}}}", role: spine}}
  - {{name: "leaf{{01..{leaves:02d}}}", role: leaf}}
cabling:
  - {{kind: leaf_spine, leaves: "leaf{{01..{leaves:02d}}}", spines: "spine{{1..{spines}}}"}}
"""
)
HOSTS = (
    ONE_NIC_PROFILE
    + """\
hosts:
  - {{name: "gpu{{01..{hosts:02d}}}", profile: one-nic}}
links:
{links}
"""
)


def generate(where: Path, spines: int, leaves: int, hosts_per_leaf: int) -> Path:
    text = FABRIC.format(switches=spines + leaves, spines=spines, leaves=leaves)
    hosts = leaves * hosts_per_leaf
    if hosts:
        links = "\n".join(
            f'  - {{a: "gpu{h + 1:02d}:eth0", b: "leaf{h // hosts_per_leaf + 1:02d}:Ethernet{(h % hosts_per_leaf) * 8}"}}'
            for h in range(hosts)
        )
        text += HOSTS.format(hosts=hosts, links=links)
    path = where / "fabric.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@dataclass
class Run:
    up_s: float
    bgp_s: float
    again_s: float
    down_s: float
    phases: dict[str, float] = field(default_factory=dict)


@dataclass
class Result:
    name: str
    devices: int = 0
    switches: int = 0
    hosts: int = 0
    links: int = 0
    processes: int = 0  # alive after up, counted from the lab's process records (not a constant)
    roles: Counter[str] = field(default_factory=Counter)
    sessions: int = 0
    runs: list[Run] = field(default_factory=list)


def measure(name: str, intent: Path, lab: str, runs: int, log: Callable[[str], None]) -> Result:
    result = Result(name)
    for i in range(runs):
        t0 = time.perf_counter()
        report = up(intent, lab, remap_addresses=True)
        up_s = time.perf_counter() - t0
        try:
            bgp_s, sessions = wait_bgp(lab, BGP_TIMEOUT_S)
            t0 = time.perf_counter()
            again = up(intent, lab, remap_addresses=True)
            again_s = time.perf_counter() - t0
            assert not again.changed, again
            state = resolve(lab)
            alive = [r for r in state.processes.values() if processes.alive(r)]
        finally:
            t0 = time.perf_counter()
            down(lab)
            down_s = time.perf_counter() - t0
        assert leftovers_of(state) == []
        result.devices = len(state.devices)
        result.switches = sum(d.kind == "switch" for d in state.devices.values())
        result.hosts = sum(d.kind == "host" for d in state.devices.values())
        result.links = len(state.links)
        if len(alive) != len(report.started):
            raise SystemExit(f"{name}: {len(report.started)} processes started, {len(alive)} alive after BGP")
        result.processes = len(alive)
        result.roles = Counter(r.role for r in alive)
        result.sessions = sessions
        result.runs.append(Run(up_s, bgp_s, again_s, down_s, report.phases))
        log(
            f"{name} run {i + 1}: {len(alive)} processes, up {up_s:.2f} s, BGP {bgp_s:.2f} s, "
            f"up again {again_s:.3f} s, down {down_s:.2f} s"
        )
    return result


def _row(r: Result) -> str:
    up_best = min(x.up_s for x in r.runs)
    down_best = min(x.down_s for x in r.runs)
    return (
        f"| {r.name} | {r.devices} ({r.switches} sw, {r.hosts} hosts) | {r.links} | {r.processes} "
        f"| {up_best:.2f} | {statistics.median(x.up_s for x in r.runs):.2f} "
        f"| {down_best:.2f} | {statistics.median(x.down_s for x in r.runs):.2f} "
        f"| {up_best / down_best:.1f} | {1000 * up_best / r.devices:.0f} | {1000 * down_best / r.devices:.0f} "
        f"| {min(x.again_s for x in r.runs):.3f} | {min(x.bgp_s for x in r.runs):.1f} ({r.sessions}) |"
    )


def _phase_row(r: Result) -> str:
    best = min(r.runs, key=lambda x: x.up_s).phases
    cells = " | ".join(f"{best.get(k, 0.0):.2f}" for k in ("plan", "topology", "shims", "processes"))
    return f"| {r.name} | {cells} |"


def report(results: list[Result], args: argparse.Namespace) -> str:
    command = (
        f"python bench/lab_updown.py --runs {args.runs} --spines {args.spines} --leaves {args.leaves} "
        f"--hosts-per-leaf {args.hosts_per_leaf}"
    )
    lines = [
        f"# lab_updown: `lab up` and `lab down` for {' and '.join(r.name for r in results)}",
        "",
        *run_lines(command),
        "",
        "| fabric | devices | links | processes | up best s | up median s | down best s | down median s "
        "| up / down | up ms / device | down ms / device | up again s | BGP all Established s (sessions) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *(_row(r) for r in results),
        "",
        "Where the best `lab up` went (seconds): *plan* = load + plan + remap + keys, *topology* = namespaces,",
        "bridge, veths, addresses (`ip -batch`), *shims* = the hosts' NIC tool shims and their state roots",
        "(`xoff.lab.shims.install`), *processes* = start every daemon and wait until each is ready.",
        "",
        "| fabric | plan | topology | shims | processes |",
        "|---|---:|---:|---:|---:|",
        *(_phase_row(r) for r in results),
        "",
        "*processes*: alive in the lab after up and BGP (the lab's process records, each checked alive by PID), by role:",
        "",
        *(f"- {r.name}: " + ", ".join(f"{role} {n}" for role, n in sorted(r.roles.items())) for r in results),
        "",
        f"Best and median of {args.runs} runs each. *up*: from nothing to every process started and ready",
        "(zebra's, bgpd's and staticd's sockets, lldpd's control socket, sshd listening, the switch SSH and gNMI",
        "servers listening, the hosts' shim server ready);",
        "*BGP*: from the end of up until every session is Established (FRR's timers: 3 s keepalive, 9 s hold);",
        "*up again*: the idempotent second `lab up` (starts nothing); *down*: processes by PID, namespaces,",
        "interfaces and files removed, then checked gone.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--spines", type=int, default=8)
    ap.add_argument("--leaves", type=int, default=56)
    ap.add_argument("--hosts-per-leaf", type=int, default=1)
    ap.add_argument("--only", choices=["mini", "generated"], help="one fabric only")
    ap.add_argument("--record", type=Path, help="also write the Markdown report here")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("lab_updown: needs root (network namespaces)")

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    results: list[Result] = []
    tag = os.getpid()
    if args.only != "generated":
        results.append(measure("lab-mini", ROOT / "inventory" / "lab-mini", f"bench{tag}-mini", args.runs, log))
    if args.only != "mini":
        with tempfile.TemporaryDirectory(prefix="xoff-lab-bench-") as tmp:
            intent = generate(Path(tmp), args.spines, args.leaves, args.hosts_per_leaf)
            name = f"{args.spines + args.leaves}-switch"
            results.append(measure(name, intent, f"bench{tag}-gen", args.runs, log))
    text = report(results, args)
    print(text)
    if args.record:
        measured.record(args.record, text)  # names the commit it measured (bench/README.md, Freshness)


if __name__ == "__main__":
    main()
