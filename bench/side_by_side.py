"""Side by side: the same xoff commands from two checkouts, alternated run by run, as CPU time and wall time.

For a restructuring that must not slow anything down (issue 12): run each command under checkout A's
venv and checkout B's venv in turn (A B A B ...), so load on a shared machine falls on both alike, and
report the median of each and the ratio B/A. CPU time (user + system of the child) is the steadier
measure on a busy machine; wall time is printed beside it.

    .venv/bin/python bench/side_by_side.py --base ../base --runs 3 --intent /tmp/ref-10k \
        --record bench/results/issue12_side_by_side.md

The intent directory is any fabric (``bench/plan_scale.py --keep DIR --phases yaml`` writes the 10k-GPU one).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commands(intent: Path, out: Path) -> dict[str, list[str]]:
    return {
        "xoff --help": ["--help"],
        "xoff plan": ["plan", str(intent), "-o", str(out / "plan.json")],
        "xoff render": ["render", str(intent), "-o", str(out / "render")],
        "xoff validate --offline": ["validate", str(intent), "--offline"],
        "xoff check": ["check", str(intent)],
    }


def run_once(xoff: Path, argv: list[str], timeout: float) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.run([str(xoff), *argv], capture_output=True, timeout=timeout, check=False)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="checkout A (with its .venv)")
    ap.add_argument("--head", type=Path, default=ROOT, help="checkout B (default: this one)")
    ap.add_argument("--intent", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated command labels")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--record", type=Path)
    args = ap.parse_args()
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"xoff-sbs-{os.getpid()}"
    sides = {"A": args.base / ".venv" / "bin" / "xoff", "B": args.head / ".venv" / "bin" / "xoff"}
    rows = []
    for label, argv in commands(args.intent, out).items():
        if args.only and label not in args.only.split(","):
            continue
        samples: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
        codes: dict[str, set[int]] = {"A": set(), "B": set()}
        for _ in range(args.runs):
            for side in ("A", "B"):
                cpu, wall, code = run_once(sides[side], argv, args.timeout)
                samples[side].append((cpu, wall))
                codes[side].add(code)
        med = {s: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for s, v in samples.items()}
        rows.append((label, med["A"], med["B"], codes["A"], codes["B"]))
        print(
            f"{label}: A cpu {med['A'][0]:.2f}s wall {med['A'][1]:.2f}s | B cpu {med['B'][0]:.2f}s "
            f"wall {med['B'][1]:.2f}s | B/A cpu {med['B'][0] / med['A'][0]:.2f} (exit A {codes['A']} B {codes['B']})",
            flush=True,
        )
    if args.record is not None:
        head = subprocess.run(
            ["git", "-C", str(args.head), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        base = subprocess.run(
            ["git", "-C", str(args.base), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        lines = [
            "# side by side: the same commands from two checkouts, alternated",
            "",
            f"A = `{base}`, B = `{head}`, intent `{args.intent}`, {args.runs} runs each, alternated A B A B;"
            f" {time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}."
            " Medians; CPU = user + system time of the xoff process.",
            "",
            "| command | A cpu s | B cpu s | B/A cpu | A wall s | B wall s | B/A wall | exit A / B |",
            "|---|---:|---:|---:|---:|---:|---:|---|",
        ]
        for label, a, b, ca, cb in rows:
            lines.append(
                f"| `{label}` | {a[0]:.2f} | {b[0]:.2f} | {b[0] / a[0]:.2f} | {a[1]:.2f} | {b[1]:.2f} |"
                f" {b[1] / a[1]:.2f} | {sorted(ca)} / {sorted(cb)} |"
            )
        args.record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
