"""Where `xoff check` spends its time on a fabric too large to wait for one whole run (the 100,000-GPU reference).

One process, GC off as the CLI runs: load_intent, build_fabric_state, then every check of the pre-change catalog
timed alone, except deadlock.cbd: its baseline routes every destination class (a breadth-first pass over the
switches per class, deadlock.routing.route_class); here the index (fabric_of) is timed whole and route_class on
an evenly spaced sample of classes, extrapolated to all of them. That is a lower bound of the check: forwarding
tables and the cycle analysis come on top. Baseline in the same run: a bare pass over every switch's adjacency
once per class (the same number of edge visits as the routing model, doing nothing with them), from the sample.

    PYTHONPATH=src .venv/bin/python bench/plan_scale.py --gpus 100000 --keep /tmp/ref-100k --phases yaml --runs 1
    PYTHONPATH=src .venv/bin/python bench/check_floor.py /tmp/ref-100k --sample 16
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.routing import route_class
from xoff.desired import build_fabric_state
from xoff.gcpause import for_batch_run
from xoff.intent import load_intent
from xoff.validate.catalog import load_catalog
from xoff.validate.context import CheckContext
from xoff.validate.registry import run_check


def _timed(label: str, rows: list[tuple[str, float]], fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    rows.append((label, time.perf_counter() - t0))
    print(f"{label}: {rows[-1][1]:.2f} s", file=sys.stderr, flush=True)
    return out


def main() -> None:
    for_batch_run()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("intent", type=Path)
    ap.add_argument("--sample", type=int, default=16, help="destination classes routed (default 16)")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    rows: list[tuple[str, float]] = []
    intent = _timed("load_intent", rows, lambda: load_intent(args.intent))
    state = _timed("build_fabric_state", rows, lambda: build_fabric_state(intent))
    catalog = load_catalog("pre-change")
    for check_id in catalog.ids:
        if check_id == "deadlock.cbd":
            continue
        ctx = CheckContext(state, None, catalog.params[check_id])
        _timed(f"check {check_id}", rows, partial(run_check, catalog.registry.get(check_id), ctx))
    fab = _timed("deadlock.cbd: fabric_of (the index)", rows, lambda: fabric_of(state))
    dests = sorted({fab.dest_of(c) for c in fab.classes})
    step = max(1, len(dests) // args.sample)
    sample = dests[::step][: args.sample]
    dead = frozenset(fab.down)
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
    known = sum(s for _, s in rows)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"- commit {sha}; {len(os.sched_getaffinity(0))} CPUs, load average {load:.1f} at the start")
    print(
        f"- {len(state.devices)} devices, {len(state.links)} links, {len(fab.switches)} switches, {len(dests)} classes"
    )
    print("\n| step | s |\n|---|---:|")
    for label, s in rows:
        print(f"| {label} | {s:.2f} |")
    print(
        f"| deadlock.cbd: route_class, {len(sample)} classes sampled: {per_class:.3f} s each x {len(dests)} | "
        f"{per_class * len(dests):.1f} (est.) |"
    )
    print(
        f"| baseline: bare pass over the adjacency, {n} edges, per class {bare:.3f} s x {len(dests)} | "
        f"{bare * len(dests):.1f} (est.) |"
    )
    print(
        f"| **`xoff check` at least** (all of the above but the baseline) | **{known + per_class * len(dests):.1f}** |"
    )
    print(f"\nrouting model / bare pass = {per_class / bare:.1f}x per class")


if __name__ == "__main__":
    main()
