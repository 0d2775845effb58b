"""Benchmark: the incremental single-link-failure deadlock sweep beside the naive full recompute.

For each fabric and routing model, in one process:

- ``sweep``: ``xoff.deadlock.failures.sweep(max_failures=1)``: route every destination class once,
  analyse the baseline, then every fabric-link failure incrementally (critical classes only,
  repaired rather than recomputed, new down -> up turns checked against the certificate).
- ``naive``: per failure, route every class from scratch, build the snapshot and run the core
  ``analyse`` on it. On large fabrics a deterministic sample of failures (every k-th link) is
  timed and the per-failure mean is extrapolated to all links; both sides also count risky failures
  and must agree on the sample.

Fabrics: ``inventory/roce-pod`` (compute: 16 switches, 256 fabric links, 4 parallel links per
leaf-spine pair) and the rail-optimised 3-tier reference of ``plan_scale.py`` (``--hosts``: 256
gives 1,152 switches and 4,096 fabric links; 1250 gives the 10,000-GPU fabric, 1,664 switches and
20,480 fabric links).

``--gpus N`` sizes the reference fabric by GPUs (8 per host: ``--gpus 10000`` is ``--hosts 1250``;
``--gpus 100000`` is plan_scale's 128-port shape, 12,500 hosts). ``--workers`` runs the sweep once per
worker count (1 = one process; the pool forks and inherits the model), every one against the same
exactness check: the same risky failures, levels and witnesses as the single-process sweep.
``--all-classes`` also runs the single-process sweep with ``twins=False`` (every critical class of every
failure repaired, no twin renaming), in the same run and against the same check: the in-run baseline of
the twin shortcut. ``bare pass`` is a plain walk over every
baseline next hop (each port's peer switch looked up), timed in the same run: ``x bare`` = sweep / bare
pass, the figure that survives a noisy machine. ``--profile`` adds the cProfile of the single-process sweep
of the largest fabric.

    .venv/bin/python bench/deadlock_failures.py --gpus 10000 --routing bgp --workers 1 2 --naive-sample 0 \
        --profile --record bench/results/deadlock_failures.md
    .venv/bin/python bench/deadlock_failures.py --hosts 256 --routing bgp --naive-sample 8   # quick
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import measured  # noqa: E402 - the results' commit line (bench/README.md, Freshness)
import plan_scale  # noqa: E402 - the reference fabric generator lives beside this file
from xoff.deadlock.analysis import analyse  # noqa: E402
from xoff.deadlock.failures import sweep  # noqa: E402
from xoff.deadlock.forwarding import build_snapshot, describe  # noqa: E402
from xoff.deadlock.index_state import fabric_of  # noqa: E402
from xoff.deadlock.pool import default_workers  # noqa: E402
from xoff.deadlock.routing import Routing, route_all  # noqa: E402
from xoff.desired import build_fabric_state  # noqa: E402
from xoff.desired.models import FabricState  # noqa: E402
from xoff.gcpause import for_batch_run  # noqa: E402
from xoff.intent import load_intent  # noqa: E402

HEADER = (
    "| fabric | routing | workers | switches | fabric links | classes | sweep s | of which routing + baseline s "
    "| per failure ms | bare pass s | x bare | naive failures timed | naive per failure ms | naive all (est.) s "
    "| ratio | risky (sweep / naive sample) |"
)


def bare_pass(state: FabricState, routing: Routing) -> float:
    """Seconds of a plain walk over every baseline next hop (each port's peer switch looked up)."""
    fab = fabric_of(state)
    routes = route_all(fab, routing, fab.down)
    owner, peer = fab.port_owner, fab.port_peer
    t0 = time.perf_counter()
    n = 0
    for per in routes.values():
        for _, nh, _ in per.values():
            for q in nh:
                n += owner[peer[q]] >= 0
    seconds = time.perf_counter() - t0
    assert n > 0
    return seconds


def load(name: str, hosts: int | None) -> tuple[str, FabricState]:
    if hosts is None:
        return name, build_fabric_state(load_intent(ROOT / "inventory" / name))
    with tempfile.TemporaryDirectory() as tmp:
        lay = plan_scale.generate(hosts, Path(tmp))
        state = build_fabric_state(load_intent(Path(tmp)))
    label = f"clos3 reference, {hosts} hosts ({lay['pods']} pods, {lay['super_spines']} super-spines)"
    return label, state


def naive(state: FabricState, routing: Routing, sample: int | None) -> dict[str, Any]:
    if sample == 0:
        return {"timed": 0, "per_ms": 0.0, "all_s": 0.0, "risky": 0, "chosen": []}
    fab = fabric_of(state)
    links = [li for li in range(len(fab.link_ids)) if li not in fab.down]
    step = 1 if sample is None or sample >= len(links) else max(1, len(links) // sample)
    chosen = links[::step][: sample or None]
    risky = 0
    t0 = time.perf_counter()
    for li in chosen:
        dead = fab.down | {li}
        routes = route_all(fab, routing, dead)
        snap = build_snapshot(fab, routes, dead, description=describe(fab, routing, [fab.link_ids[li]]))
        risky += analyse(snap).deadlock_risk
    seconds = time.perf_counter() - t0
    per = seconds / len(chosen)
    return {"timed": len(chosen), "per_ms": per * 1000, "all_s": per * len(links), "risky": risky, "chosen": chosen}


def decided(report: Any) -> str:
    """What a sweep decided (no timings), as text: the pooled sweeps must equal the single-process one."""
    doc = report.to_json()
    doc.pop("seconds")
    doc["full"] = [{k: v for k, v in s.result.to_json().items() if k != "timings"} for s in report.risky]
    return repr(doc)


def timed_sweep(
    state: FabricState, routing: Routing, workers: int, twins: bool, profile: bool
) -> tuple[float, Any, str, tuple[float, float]]:
    """Best of 3 when quick; with ``profile``, one more run under cProfile (its time is not the figure).
    Also the best run's CPU seconds: this process's and its (joined) forked workers'."""
    runs: list[tuple[float, Any, tuple[float, float]]] = []
    while not runs or (len(runs) < 3 and sum(r[0] for r in runs) < 5.0):
        c0, t0 = os.times(), time.perf_counter()
        report = sweep(state, routing=routing, max_failures=1, workers=workers, twins=twins)
        seconds, c1 = time.perf_counter() - t0, os.times()
        cpu = (
            c1.user + c1.system - c0.user - c0.system,
            c1.children_user + c1.children_system - c0.children_user - c0.children_system,
        )
        runs.append((seconds, report, cpu))
    total, report, cpu = min(runs, key=lambda r: r[0])
    text = ""
    if profile:
        prof = cProfile.Profile()
        prof.runcall(sweep, state, routing=routing, max_failures=1, workers=workers, twins=twins)
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(15)
        text = out.getvalue().replace(str(ROOT) + "/", "")
    return total, report, text, cpu


def run(
    label: str,
    state: FabricState,
    routing: Routing,
    sample: int | None,
    variants: list[tuple[int, bool]],
    profile: bool,
) -> tuple[list[dict[str, Any]], str]:
    """Every (workers, twins) variant of the sweep on one fabric, each checked against the first."""
    fab = fabric_of(state)
    bare = min(bare_pass(state, routing) for _ in range(3))
    ref = naive(state, routing, sample)
    rows: list[dict[str, Any]] = []
    first = ""
    prof_text = ""
    for w, twins in variants:
        name = str(w) if twins else f"{w} (all classes)"
        total, report, text, cpu = timed_sweep(state, routing, w, twins, profile and w == 1 and twins)
        prof_text = prof_text or text
        got = decided(report)
        first = first or got
        if got != first:
            sys.exit(f"{label} {routing}: the sweep with workers {name} differs from the first one")
        setup = report.seconds["routing"] + report.seconds["baseline_analysis"]
        links = report.fabric_links
        risky_ids = {s.failed[0] for s in report.risky}
        risky_in_sample = sum(1 for li in ref["chosen"] if fab.link_ids[li] in risky_ids)
        if risky_in_sample != ref["risky"]:
            sys.exit(f"{label} {routing}: sweep and naive disagree on the sample ({risky_in_sample} vs {ref['risky']})")
        row = {
            "fabric": label,
            "routing": routing,
            "workers": name,
            "switches": len(fab.switches),
            "links": links,
            "classes": len(fab.classes),
            "sweep_s": total,
            "setup_s": setup,
            "per_failure_ms": (total - setup) / links * 1000,
            "bare_s": bare,
            "x_bare": total / bare,
            "naive_timed": ref["timed"],
            "naive_per_ms": ref["per_ms"],
            "naive_all_s": ref["all_s"],
            "ratio": ref["all_s"] / total,
            "risky": f"{len(report.risky)} / {ref['risky']} of {ref['timed']}",
            "levels": report.levels[1].to_json(),
            "cpu": cpu,
        }
        print(
            f"{label} [{routing}] workers {name}: sweep {total:.2f} s ({setup:.2f} s routing + baseline), "
            f"CPU {cpu[0]:.2f} s + workers {cpu[1]:.2f} s, bare pass {bare * 1000:.1f} ms (x{row['x_bare']:.0f}), "
            f"naive {ref['per_ms']:.1f} ms/failure x {links} = {ref['all_s']:.1f} s (timed {ref['timed']}); {row['levels']}",
            flush=True,
        )
        rows.append(row)
    return rows, prof_text


def earlier(path: Path) -> dict[tuple[str, str], tuple[float, float, str]]:
    """(fabric, routing) -> (sweep s, routing + baseline s, code) from an earlier recorded report."""
    text = path.read_text(encoding="utf-8")
    code = next((line.split("= ", 1)[1] for line in text.splitlines() if line.startswith("- code:")), "?")
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 13 and cells[1] in ("bgp", "igp"):  # before issue 19: one process, no workers column
            out[(cells[0], cells[1])] = (float(cells[5]), float(cells[6]), code.strip())
        elif len(cells) == 16 and cells[1] in ("bgp", "igp") and cells[2] == "1":
            out[(cells[0], cells[1])] = (float(cells[6]), float(cells[7]), code.strip())
    return out


def comparison(rows: list[dict[str, Any]], before: dict[tuple[str, str], tuple[float, float, str]]) -> list[str]:
    lines = [
        "",
        "Before / after (same fabrics, same machine; `before` = the recorded report named by `--before`, whose own command is in it):",
        "",
        "| fabric | routing | workers after | routing + baseline s before | after | ratio | sweep s before | after | ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        old = before.get((r["fabric"], r["routing"]))
        if old is None:
            continue
        lines.append(
            f"| {r['fabric']} | {r['routing']} | {r['workers']} | {old[1]:.3f} | {r['setup_s']:.3f} | {old[1] / r['setup_s']:.1f}x "
            f"| {old[0]:.3f} | {r['sweep_s']:.3f} | {old[0] / r['sweep_s']:.1f}x |"
        )
    codes = sorted({c for _, _, c in before.values()})
    lines.append(f"\n`before` code: {', '.join(codes)}.")
    return lines


def revision() -> str:
    try:
        return subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, cwd=ROOT, check=False
        ).stdout.strip()
    except OSError:
        return "unknown"


def markdown(rows: list[dict[str, Any]], command: str, load_avg: str, profile: str, rev: str) -> str:
    lines = [
        "# deadlock_failures: incremental single-failure sweep vs naive full recompute",
        "",
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- machine: {platform.machine()}, nproc {os.cpu_count()} ({default_workers()} usable), "
        f"Python {platform.python_version()}, load average at start {load_avg}",
        f"- code: `git describe --always --dirty` = {rev} (when the run started)",
        f"- command: `{command}`",
        "",
        "`sweep s`: the whole `sweep(max_failures=1, workers=N)` call (best of 3 when under 5 s): routing every",
        "destination class once, the core baseline analysis, then every fabric-link failure (in `workers` forked",
        "processes). `per failure ms` excludes routing + baseline. `bare pass s`: a plain walk over every baseline",
        "next hop, best of 3, same run; `x bare` = sweep / bare pass.",
        "`naive`: per failure, every class routed from scratch, snapshot built, core `analyse` run; timed on",
        "every failure (roce-pod) or on an evenly spaced sample, and extrapolated to all links (`est.`).",
        "`ratio` = naive all / sweep. Both sides must agree on which sampled failures are risky; every worker",
        "count must decide exactly what one process decides (the run stops otherwise). Workers `1 (all classes)`:",
        "`sweep(twins=False)`, every critical class of every failure repaired (no twin renaming), in the same",
        "run and held to the same check.",
        "",
        HEADER,
        "|" + "---|" * 2 + "---:|" * 14,
    ]
    for r in rows:
        lines.append(
            f"| {r['fabric']} | {r['routing']} | {r['workers']} | {r['switches']} | {r['links']} | {r['classes']} | "
            f"{r['sweep_s']:.3f} | {r['setup_s']:.3f} | {r['per_failure_ms']:.3f} | {r['bare_s']:.4f} | "
            f"{r['x_bare']:.0f} | {r['naive_timed']} | {r['naive_per_ms']:.1f} | "
            f"{r['naive_all_s']:.1f} | {r['ratio']:.0f}x | {r['risky']} |"
        )
    lines += ["", "Per fabric, what the sweep did (single failures):", ""]
    lines += [
        f"- {r['fabric']} [{r['routing']}] workers {r['workers']}: {r['levels']}; CPU s of the timed run: "
        f"this process {r['cpu'][0]:.2f}, forked workers {r['cpu'][1]:.2f}"
        for r in rows
    ]
    if profile:
        lines += ["", "Profile of the single-process sweep of the largest fabric (cProfile, top 15 by own time):", ""]
        lines += ["```", profile.strip(), "```"]
    return "\n".join(lines) + "\n"


def main() -> None:
    for_batch_run()  # as the CLI's main() does: the cyclic GC off for this batch process
    load_avg = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rev = revision()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, nargs="*", default=None, help="reference clos sizes in hosts (plan_scale)")
    ap.add_argument("--gpus", type=int, nargs="*", default=None, help="reference clos sizes in GPUs (8 per host)")
    ap.add_argument("--routing", nargs="*", default=["bgp", "igp"], choices=["bgp", "igp"])
    ap.add_argument("--workers", type=int, nargs="*", default=[1], help="worker counts to run the sweep with")
    ap.add_argument(
        "--all-classes", action="store_true", help="also sweep (one process) repairing every class: twins=False"
    )
    ap.add_argument(
        "--naive-sample", type=int, default=24, help="failures timed naively on the large fabrics (0: none)"
    )
    ap.add_argument("--no-roce-pod", action="store_true", help="skip inventory/roce-pod")
    ap.add_argument("--profile", action="store_true", help="add the profile of the largest single-process sweep")
    ap.add_argument("--record", type=Path, help="also write the Markdown report here")
    ap.add_argument("--before", type=Path, help="an earlier recorded report: add a before/after table")
    args = ap.parse_args()
    hosts = list(args.hosts or []) + [-(-g // 8) for g in args.gpus or []]
    if not hosts and args.hosts is None and args.gpus is None:
        hosts = [256, 1250]
    before = earlier(args.before) if args.before is not None else {}
    fabrics: list[tuple[str, FabricState, int | None]] = []
    if not args.no_roce_pod:
        fabrics.append((*load("roce-pod", None), None))  # naive on every failure
    for h in hosts:
        fabrics.append((*load("", h), args.naive_sample))
    rows: list[dict[str, Any]] = []
    profile = ""
    for i, (label, state, sample) in enumerate(fabrics):
        for routing in args.routing:
            variants = [(w, True) for w in args.workers] + [(1, False)] * args.all_classes
            got, text = run(label, state, routing, sample, variants, args.profile and i == len(fabrics) - 1)
            rows += got
            profile = text or profile
    command = "python bench/deadlock_failures.py " + " ".join(sys.argv[1:])
    text = markdown(rows, command.strip(), load_avg, profile, rev)
    if before:
        text += "\n".join(comparison(rows, before)) + "\n"
    print(text)
    if args.record is not None:
        measured.record(args.record, text)


if __name__ == "__main__":
    main()
