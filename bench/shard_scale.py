"""Shard benchmark: collect (and optionally push) a 256-device lab fabric as 4 shards in 4 processes vs one process.

The fabric (generated here): a 3-tier Clos of 4 pods (8 SONiC leaves and 4 spines per pod, 4 super-spines, one
per plane) and single-NIC hosts spread over the leaves, 256 devices in all (52 switches, 204 hosts), every host
in its pod's scalable unit. It comes up as one lab (``xoff.lab.lab.up``, --remap), BGP settles, then:

- one: ``xoff collect --lab`` in one process (``--workers``);
- sharded: ``xoff collect --lab --shard K/4 --shard-by pod`` as 4 processes started together (each ``--workers``),
  then ``xoff snapshot merge``; per-shard times, the wall time of the 4, the merge, and the ratio to one;
- the merged snapshot compared with the single one, minus ``collected_at`` (they must be equal);
- with --push: the same for ``xoff push`` from factory (4 shards by pod at once: each holds only its pods' locks),
  then one push that must change nothing.

On these 2-core machines 4 processes do not make it 4x faster: the point is that the split and the merge are right,
and what each shard costs. Runs as root (namespaces). Writes bench/results/shard_scale.md with --record.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from xoff.contracts.observed import Snapshot
from xoff.lab.lab import LabError, resolve, up
from xoff.lab.teardown import down

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured  # the results' commit line (bench/README.md, Freshness)
from lab_bench import (  # the lab benchmarks' shared parts
    ONE_NIC_PROFILE,
    intent_head,
    private_lab_dir,
    run_lines,
    sonic_roles,
    wait_bgp,
)

ROOT = Path(__file__).resolve().parents[1]
BGP_TIMEOUT_S = 300.0

FABRIC = (
    intent_head("shard-bench", "198.18.0.0/21", "super_spine: 65000, spine: 65100, leaf: 65201")
    + sonic_roles(("leaf", "split"), ("spine", "split"), ("super-spine", "down"))
    + """\
switches:
  - {{name: "leaf{{01..{leaves:02d}}}", role: leaf}}
  - {{name: "spine{{01..{spines:02d}}}", role: spine}}
  - {{name: "ss{{1..{supers}}}", role: super-spine}}
cabling:
  - {{kind: clos3, pods: {pods}, leaves: "leaf{{01..{leaves:02d}}}", spines: "spine{{01..{spines:02d}}}",
     super_spines: "ss{{1..{supers}}}"}}
"""
    + ONE_NIC_PROFILE
    + """\
hosts:
{hosts}
links:
{links}
"""
)


def generate(where: Path, devices: int, pods: int = 4, leaves_per_pod: int = 8, spines_per_pod: int = 4) -> Path:
    """The intent of a ``devices``-device Clos: the switches, then hosts over the leaves (round robin)."""
    leaves, spines, supers = pods * leaves_per_pod, pods * spines_per_pod, spines_per_pod
    count = devices - leaves - spines - supers
    per_pod = -(-count // pods)
    hosts, links = [], []
    for h in range(count):
        pod, index = divmod(h, per_pod)
        leaf = pod * leaves_per_pod + index % leaves_per_pod + 1
        port = (index // leaves_per_pod) * 8
        hosts.append(f"  - {{name: gpu{h + 1:03d}, profile: one-nic, unit: {pod + 1}}}")
        links.append(f'  - {{a: "gpu{h + 1:03d}:eth0", b: "leaf{leaf:02d}:Ethernet{port}"}}')
    text = FABRIC.format(
        leaves=leaves, spines=spines, supers=supers, pods=pods, hosts="\n".join(hosts), links="\n".join(links)
    )
    path = where / "fabric.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@dataclass
class Timed:
    seconds: float
    code: int
    stderr: str


def _start(args: list[str]) -> tuple[subprocess.Popen[str], float]:
    cmd = [sys.executable, "-m", "xoff", *args]
    return subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    ), time.perf_counter()


def _finish(proc: subprocess.Popen[str], started: float) -> Timed:
    _, err = proc.communicate()
    return Timed(time.perf_counter() - started, proc.returncode, err[-2000:])


def run_all(commands: list[list[str]]) -> tuple[list[Timed], float]:
    """Start every command at once; each one's time and the wall time of all."""
    t0 = time.perf_counter()
    running = [_start(c) for c in commands]
    done = [_finish(p, s) for p, s in running]
    return done, time.perf_counter() - t0


@dataclass
class Measured:
    name: str
    one: Timed
    shards: list[Timed]
    wall: float
    merge_s: float = 0.0
    equal: str = ""
    comparable: bool = True  # the one-process run did the same work as the shards together


def measure_collect(intent: Path, lab: str, tmp: Path, n: int, workers: int) -> Measured:
    base = ["collect", str(intent), "--lab", lab, "-q", "--workers", str(workers), "--timeout", "120"]
    ((one,), _) = run_all([[*base, "-o", str(tmp / "one.json")]])
    parts = [tmp / f"shard{k}.json" for k in range(1, n + 1)]
    shards, wall = run_all(
        [[*base, "-o", str(p), "--shard", f"{k}/{n}", "--shard-by", "pod"] for k, p in enumerate(parts, 1)]
    )
    ((merged,), _) = run_all([["snapshot", "merge", *map(str, parts), "-o", str(tmp / "merged.json")]])
    result = Measured("collect", one, shards, wall, merged.seconds)
    if merged.code != 0:
        result.equal = f"merge failed: {merged.stderr.strip()}"
        return result
    a, b = (Snapshot.model_validate_json((tmp / f).read_text(encoding="utf-8")) for f in ("one.json", "merged.json"))
    same = a.model_dump(exclude={"collected_at"}) == b.model_dump(exclude={"collected_at"})
    result.equal = (
        f"equal ({len(b.observed.devices)} devices observed, {len(b.errors)} errors)"
        if same
        else _difference(a.model_dump(exclude={"collected_at"}), b.model_dump(exclude={"collected_at"}))
    )
    return result


def _difference(a: dict[str, object], b: dict[str, object]) -> str:
    fields = [k for k in a if a[k] != b.get(k)]
    return "DIFFERENT in " + ", ".join(fields)


def measure_push(intent: Path, lab: str, tmp: Path, n: int, workers: int) -> Measured:
    """Sharded push from factory (4 processes at once, by pod), then one push (must change nothing)."""
    base = ["push", str(intent), "--lab", lab, "-f", "json", "--workers", str(workers), "--backup-dir", str(tmp / "b")]
    shards, wall = run_all([[*base, "--shard", f"{k}/{n}", "--shard-by", "pod"] for k in range(1, n + 1)])
    proc, started = _start(base)
    out, err = proc.communicate()
    one = Timed(time.perf_counter() - started, proc.returncode, err[-2000:])
    summary = [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")][-1:]
    changed = summary[0].get("changed") if summary else "?"
    return Measured(
        "push from factory (one process: the push after the shards, 0 changes expected)",
        one,
        shards,
        wall,
        equal=f"the push after the shards: {changed} changed, exit {one.code}",
        comparable=False,
    )


def report(results: list[Measured], devices: int, lab_up_s: float, bgp_s: float, args: argparse.Namespace) -> str:
    command = f"python bench/shard_scale.py --devices {args.devices} --shards {args.shards} --workers {args.workers}"
    lines = [
        f"# shard_scale: {args.shards} shards of a {devices}-device lab fabric vs one process",
        "",
        *run_lines(command + (" --push" if args.push else "")),
        f"- lab up {lab_up_s:.1f} s, BGP all Established {bgp_s:.1f} s later",
        "",
        "| job | one process s | "
        + " | ".join(f"shard {k} s" for k in range(1, args.shards + 1))
        + " | shards wall s | merge s | one / shards | exit codes | result |",
        "|---|---:|" + "---:|" * args.shards + "---:|---:|---:|---|---|",
    ]
    for r in results:
        cells = " | ".join(f"{t.seconds:.1f}" for t in r.shards)
        codes = f"{r.one.code} / " + ",".join(str(t.code) for t in r.shards)
        ratio = f"{r.one.seconds / r.wall:.2f}" if r.comparable else "-"
        lines.append(
            f"| {r.name} | {r.one.seconds:.1f} | {cells} | {r.wall:.1f} | {r.merge_s:.1f} | {ratio} | {codes} | {r.equal} |"
        )
    lines += [
        "",
        "Each time is a whole `xoff` process (interpreter start, load, plan, SSH to every device of its part). The",
        "shards are split by pod (`--shard-by pod`): whole pods per shard, the super-spines (in no pod) with one",
        "of them. The shards run at once on the same 2 cores as the lab's daemons, so their wall time shows the",
        "split and merge costing little, not a speed-up: on N controllers each shard's own time is the bound.",
    ]
    for r in results:
        for k, t in enumerate(r.shards, 1):
            if t.code not in (0,):
                lines.append(f"\n{r.name} shard {k} exit {t.code}: `{t.stderr.strip().splitlines()[-1:]}`")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", type=int, default=256)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--workers", type=int, default=20)
    ap.add_argument("--push", action="store_true", help="also push from factory, sharded, then once")
    ap.add_argument("--record", type=Path, help="also write the Markdown report here")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("shard_scale: needs root (network namespaces)")
    lab = f"shb{os.getpid() % 100000}"
    work = private_lab_dir("xl")
    with tempfile.TemporaryDirectory(prefix="xoff-shard-bench-") as tmp:
        intent = generate(Path(tmp), args.devices)
        try:
            t0 = time.perf_counter()
            up(intent, lab, remap_addresses=True)
            lab_up_s = time.perf_counter() - t0
            bgp_s, _ = wait_bgp(lab, BGP_TIMEOUT_S, poll_s=0.5)
            print(f"lab up {lab_up_s:.1f} s, BGP {bgp_s:.1f} s", file=sys.stderr, flush=True)
            results = []
            if args.push:
                results.append(measure_push(intent, lab, Path(tmp), args.shards, args.workers))
                print(results[-1], file=sys.stderr, flush=True)
                wait_bgp(lab, BGP_TIMEOUT_S, poll_s=0.5)
            results.append(measure_collect(intent, lab, Path(tmp), args.shards, args.workers))
            devices = len(resolve(lab).devices)
        finally:
            with contextlib.suppress(LabError):
                down(lab)
            shutil.rmtree(work, ignore_errors=True)
    text = report(results, devices, lab_up_s, bgp_s, args)
    print(text)
    if args.record:
        measured.record(args.record, text)  # names the commit it measured (bench/README.md, Freshness)


if __name__ == "__main__":
    main()
