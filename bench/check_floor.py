"""Where `xoff check` spends its time on a fabric too large to profile whole (the 100,000-GPU reference).

One process, GC off as the CLI runs: load_intent, build_fabric_state, then every check of the pre-change catalog
timed alone. deadlock.cbd (baseline only, ``max_failures: 0``) is split into its steps: the index (fabric_of), the
next-hop matrix of every destination class (routing_batch.next_hop_matrix: the routing rounds) and the up*/down*
certificate from it (certify.certified_baseline: the two together), then the whole check as it runs. Baseline in
the same run: a bare pass over every switch's adjacency once per class (the edge visits of a per-class routing
pass doing nothing with them), from a sample of classes, and the per-class routing model that the check ran
before (route_class) on the same sample, extrapolated. Peak RSS after each step shows where memory goes.

    PYTHONPATH=src .venv/bin/python bench/plan_scale.py --gpus 100000 --keep /tmp/ref-100k --phases yaml --runs 1
    PYTHONPATH=src .venv/bin/python bench/check_floor.py /tmp/ref-100k --sample 16

The other checks share one run's memo of what they derive (``Derived``: the link ends, the RoCE NICs), as
``validate()`` gives them. ``--before DIR`` first runs this same script on another tree (``DIR/src``, e.g. a
``git archive`` of the commit before a change) in a child process, and the report shows both trees' seconds side
by side, from the same minutes. ``--record FILE`` writes the report there (``bench/measured.py`` names the
commit), the file's earlier recordings kept below it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import measured
from xoff.deadlock.analysis import analyse
from xoff.deadlock.certify import certified_baseline
from xoff.deadlock.fabric import Fabric
from xoff.deadlock.failures import sweep
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.next_hops import next_hop_matrix
from xoff.deadlock.routing import route_class
from xoff.desired import build_fabric_state
from xoff.gcpause import for_batch_run
from xoff.intent import load_intent
from xoff.validate.catalog import load_catalog
from xoff.validate.context import CheckContext, Derived
from xoff.validate.registry import run_check


def _timed(label: str, rows: list[tuple[str, float, float, float]], fn):  # type: ignore[no-untyped-def]
    """Run ``fn``; a row of its wall seconds, CPU seconds (this process) and the peak RSS after it."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    rows.append((label, time.perf_counter() - t0, time.process_time() - c0, _rss_mib()))
    print(f"{label}: {rows[-1][1]:.2f} s, {rows[-1][2]:.2f} CPU s, peak RSS {rows[-1][3]:.0f} MiB", file=sys.stderr)
    return out


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _per_class_baselines(fab: Fabric, dests: list[int], sample: int) -> tuple[float, float, int]:
    """Seconds per class of route_class and of a bare pass over the adjacency (on a sample), and its edges."""
    dead = frozenset(fab.down)
    step = max(1, len(dests) // sample)
    sample = dests[::step][:sample]
    t0 = time.perf_counter()
    for d in sample:
        route_class(fab, d, "bgp", dead)
    per_class = (time.perf_counter() - t0) / len(sample)
    adj = fab.adjacency()
    t0 = time.perf_counter()
    for _ in sample:
        n = 0
        for edges in adj:
            for _edge in edges:
                n += 1
    bare = (time.perf_counter() - t0) / len(sample)
    return per_class, bare, n


def main() -> None:
    for_batch_run()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("intent", type=Path)
    ap.add_argument("--full-path", action="store_true", help="also time the check's full path (before)")
    ap.add_argument("--sample", type=int, default=16, help="destination classes of the per-class baselines")
    ap.add_argument("--before", type=Path, help="a tree (DIR/src) to time first, in a child process, for comparison")
    ap.add_argument("--record", type=Path, help="write the report to this Markdown file (earlier recordings kept)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # what the --before child prints
    args = ap.parse_args()
    load = os.getloadavg()[0]
    before = _before(args) if args.before is not None else None
    rows: list[tuple[str, float, float, float]] = []
    facts = _measure(args, rows)
    if args.json:
        print(json.dumps({"rows": rows, **facts}))
        return
    text = _report(args, load, rows, facts, before)
    print(text)
    if args.record is not None:
        measured.record(args.record, text)  # earlier recordings kept below it


def _before(args: argparse.Namespace) -> dict[str, object]:
    """This script's rows on the ``--before`` tree, from a child process (its memory gone before we start)."""
    env = {**os.environ, "PYTHONPATH": str(args.before.resolve() / "src")}
    cmd = [sys.executable, __file__, str(args.intent), "--json", "--sample", str(args.sample)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _measure(args: argparse.Namespace, rows: list[tuple[str, float, float, float]]) -> dict[str, object]:
    """Time every step into ``rows``; the facts the report states about the fabric and the check."""
    intent = _timed("load_intent", rows, lambda: load_intent(args.intent))
    state = _timed("build_fabric_state", rows, lambda: build_fabric_state(intent))
    catalog = load_catalog("pre-change")
    derived = Derived()  # shared by the checks, as validate() shares it
    for check_id in catalog.ids:
        if check_id == "deadlock.cbd":
            continue
        ctx = CheckContext(state, None, catalog.params[check_id], derived=derived)
        _timed(f"check {check_id}", rows, partial(run_check, catalog.registry.get(check_id), ctx))
    fab = _timed("deadlock.cbd step: fabric_of (the index)", rows, lambda: fabric_of(state))
    dests = list(fab.classes)
    dead = frozenset(fab.down)
    _timed(
        "deadlock.cbd step: next_hop_matrix (the routing rounds)", rows, lambda: next_hop_matrix(fab, dests, True, dead)
    )
    res = _timed(
        "deadlock.cbd step: certified_baseline (matrix + certificate)",
        rows,
        lambda: certified_baseline(fab, "bgp", dead),
    )
    ctx = CheckContext(state, None, catalog.params["deadlock.cbd"])
    cbd = _timed(
        "check deadlock.cbd (whole, as it runs)", rows, partial(run_check, catalog.registry.get("deadlock.cbd"), ctx)
    )
    if args.full_path:  # last: its peak RSS is the process's from here on
        same = partial(analyse, use_certificate=True)  # not the default analyser: sweep takes the full path
        full = _timed(
            "before: deadlock.cbd's full path (route_all, per-class snapshot, analyse)",
            rows,
            lambda: sweep(state, max_failures=0, analyser=same),
        )
        quick = sweep(state, max_failures=0)
        agree = {**full.to_json(), "seconds": 0} == {**quick.to_json(), "seconds": 0}
        print(f"full path and certificate give the same report: {agree}", file=sys.stderr)
    per_class, bare, n = _per_class_baselines(fab, dests, args.sample)
    return {
        "fabric": f"{len(state.devices)} devices, {len(state.links)} links, {len(fab.switches)} switches, "
        f"{len(dests)} classes",
        "cbd": f"{cbd.status.value}; certificate {'held' if res is not None else 'did not hold'}",
        "per_class": per_class,
        "bare": bare,
        "edges": n,
        "classes": len(dests),
    }


def _report(
    args: argparse.Namespace,
    load: float,
    rows: list[tuple[str, float, float, float]],
    facts: dict[str, object],
    before: dict[str, object] | None,
) -> str:
    classes, bare, per_class = int(facts["classes"]), float(facts["bare"]), float(facts["per_class"])  # type: ignore[call-overload,arg-type]
    then = {label: cpu for label, _, cpu, _ in before["rows"]} if before is not None else {}  # type: ignore[union-attr,attr-defined]
    out = [
        f"# deadlock_check: `xoff check` step by step at {args.intent.name} (bench/check_floor.py)",
        "",
        f"- machine: {len(os.sched_getaffinity(0))} CPUs, load average {load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end",
        f"- fabric: {facts['fabric']}; deadlock.cbd: {facts['cbd']}",
        f"- command: `bench/check_floor.py {args.intent} --sample {args.sample}"
        + (
            f" --before {args.before}`: the before column is the same script on that tree, run first"
            if args.before
            else "`"
        ),
        "",
        "",
        "CPU seconds of this process (wall seconds beside them: other work on the machine stretches those)",
        "",
        "| step | before: CPU s | CPU s | wall s | peak RSS MiB after |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, wall, cpu, rss in rows:
        was = f"{then[label]:.2f}" if label in then else ""
        out.append(f"| {label} | {was} | {cpu:.2f} | {wall:.2f} | {rss:.0f} |")

    def stage(r: dict[str, float]) -> tuple[float, float, float]:
        others = sum(s for label, s in r.items() if label.startswith("check ") and "deadlock.cbd" not in label)
        cbd = next(s for label, s in r.items() if label.startswith("check deadlock.cbd"))
        return others, cbd, others + cbd + r["load_intent"] + r["build_fabric_state"]

    now = stage({label: cpu for label, _, cpu, _ in rows})
    was = stage(then) if then else None
    for i, what in enumerate(
        ("the other pre-change checks together", "deadlock.cbd (whole)", "**`xoff check`** (load + plan + every check)")
    ):
        out.append(f"| {what} | {f'{was[i]:.2f}' if was else ''} | {now[i]:.2f} | | |")
    out.append(
        f"| route_class per class, {min(args.sample, classes)} sampled: {per_class:.3f} s each x {classes} | | "
        f"{per_class * classes:.1f} (est.) | | |"
    )
    out.append(
        f"| baseline: bare pass over the adjacency, {facts['edges']} edges, per class {bare:.3f} s x {classes} | | "
        f"{bare * classes:.1f} (est.) | | |"
    )
    ratio = f"{now[1] / (bare * classes):.2f}x" if bare else "n/a"
    out += ["", f"deadlock.cbd / bare pass over every class = {ratio}", ""]
    return "\n".join(out)


if __name__ == "__main__":
    main()
