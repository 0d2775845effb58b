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
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

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
from xoff.validate.context import CheckContext
from xoff.validate.registry import run_check


def _timed(label: str, rows: list[tuple[str, float, float]], fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    rows.append((label, time.perf_counter() - t0, _rss_mib()))
    print(f"{label}: {rows[-1][1]:.2f} s, peak RSS {rows[-1][2]:.0f} MiB", file=sys.stderr, flush=True)
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
    args = ap.parse_args()
    load = os.getloadavg()[0]
    rows: list[tuple[str, float, float]] = []
    intent = _timed("load_intent", rows, lambda: load_intent(args.intent))
    state = _timed("build_fabric_state", rows, lambda: build_fabric_state(intent))
    catalog = load_catalog("pre-change")
    for check_id in catalog.ids:
        if check_id == "deadlock.cbd":
            continue
        ctx = CheckContext(state, None, catalog.params[check_id])
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
    steps = [r for r in rows if "step:" not in r[0] and not r[0].startswith("before")]
    known = sum(s for _, s, _ in steps)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"- commit {sha}; {len(os.sched_getaffinity(0))} CPUs, load average {load:.1f} at the start")
    print(
        f"- {len(state.devices)} devices, {len(state.links)} links, {len(fab.switches)} switches, {len(dests)} classes"
    )
    print(f"- deadlock.cbd: {cbd.status.value}; certificate {'held' if res is not None else 'did not hold'}")
    print("\n| step | s | peak RSS MiB after |\n|---|---:|---:|")
    for label, s, rss in rows:
        print(f"| {label} | {s:.2f} | {rss:.0f} |")
    print(f"| **`xoff check`** (the rows above but the deadlock.cbd steps) | **{known:.1f}** | |")
    print(
        f"| before: route_class per class, {min(args.sample, len(dests))} sampled: {per_class:.3f} s each x {len(dests)} | "
        f"{per_class * len(dests):.1f} (est.) | |"
    )
    print(
        f"| baseline: bare pass over the adjacency, {n} edges, per class {bare:.3f} s x {len(dests)} | "
        f"{bare * len(dests):.1f} (est.) | |"
    )
    whole = next(s for label, s, _ in rows if label.startswith("check deadlock.cbd"))
    print(f"\ndeadlock.cbd / bare pass over every class = {whole / (bare * len(dests)):.2f}x")


if __name__ == "__main__":
    main()
