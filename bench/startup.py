"""Startup: what a command costs before it does anything, as a ratio to ``python -c pass``.

Each command runs in a fresh interpreter the way the console script starts it (``from xoff.cli import
main; main()``), from one or more source trees (``--tree LABEL=SRC``, e.g. a checkout before and after a
change), alternated run by run with ``python -c pass`` so load on a shared machine falls on all alike.
Reported: the median wall time and peak RSS of each, and the ratio of its wall time to ``python -c pass``
measured beside it (the ratio is the steadier figure on a busy machine). No timed test holds these
figures; ``tests/api/test_cli_imports.py`` holds the import list that makes them.

    PYTHONPATH=src .venv/bin/python bench/startup.py --tree before=/tmp/xoff-before/src --tree after=src \
        --runs 15 --record bench/results/startup.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "import sys; sys.argv[0] = 'xoff'; from xoff.cli import main; main()"  # what the console script does
COMMANDS: dict[str, list[str]] = {
    "xoff --version": ["--version"],
    "xoff --help": ["--help"],
    "xoff check lab-mini": ["check", str(ROOT / "inventory" / "lab-mini")],
}


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one fresh interpreter."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: exit {child.returncode}")
    return wall, usage.ru_maxrss / 1024


def measure(trees: dict[str, Path], runs: int) -> dict[tuple[str, str], list[tuple[float, float, float]]]:
    """(tree, command) -> per run (wall, rss, wall of `python -c pass` just before)."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for _ in range(runs):
        for label, src in trees.items():
            env = {**base, "PYTHONPATH": str(src.resolve())}
            for name, args in COMMANDS.items():
                floor, _ = run_once([sys.executable, "-c", "pass"], base)
                wall, rss = run_once([sys.executable, "-c", ENTRY, *args], env)
                out.setdefault((label, name), []).append((wall, rss, floor))
    return out


def report(results: dict[tuple[str, str], list[tuple[float, float, float]]], runs: int) -> str:
    floor = statistics.median(f for samples in results.values() for _, _, f in samples)
    lines = [
        "# Startup: `xoff` commands against `python -c pass`",
        "",
        f"{runs} runs each, alternated with `python -c pass` (median {floor * 1000:.0f} ms here); "
        f"load average {os.getloadavg()[0]:.1f} at the end. Ratio: median of (command wall / `pass` wall "
        "measured just before it).",
        "",
        "| tree | command | wall, median (ms) | ratio to `python -c pass` | peak RSS (MiB) |",
        "|---|---|---:|---:|---:|",
    ]
    for (label, name), samples in results.items():
        wall = statistics.median(w for w, _, _ in samples)
        ratio = statistics.median(w / f for w, _, f in samples)
        rss = statistics.median(r for _, r, _ in samples)
        lines.append(f"| {label} | `{name}` | {wall * 1000:.0f} | {ratio:.1f} | {rss:.0f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", default=[], help="LABEL=SRC (a checkout's src/); repeat")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--record", type=Path, help="also write the Markdown report here")
    args = parser.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree) or {"this": str(ROOT / "src")}
    text = report(measure({k: Path(v) for k, v in trees.items()}, args.runs), args.runs)
    print(text, end="")
    if args.record is not None:
        measured.record(args.record, text)  # names the commit it measured (bench/README.md, Freshness)


if __name__ == "__main__":
    main()
