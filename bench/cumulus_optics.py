"""Cumulus optics benchmark: one 64-port Cumulus switch's watch read with every port's module DOM from one
``nv show platform transceiver detail -o json`` (what ``platforms/cumulus/watch.py`` runs now) against one ``nv show
interface <swp> transceiver`` per port (what it ran before), alternated on the same session of the same lab.

The lab: watch_scale.py's fabric at its smallest (one Cumulus spine, ``swp1-64``, one SONiC leaf, one host), every
port seeded with moving counters and an optic with DOM. Both command lists are run through ``SshCounterSource``'s
own command runner (Cumulus has no exec-channel batch: one command after the other on the CLI session). The
controller's CPU is ``getrusage(RUSAGE_SELF)`` around each read; wall time is the emulator's answer time too.
Median of ``--runs`` alternations after one warm-up read. Runs as root. ``python bench/cumulus_optics.py [--runs 3]
[--record FILE]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from xoff.connect.credentials import load_credentials
from xoff.contracts.collect import Command
from xoff.lab.lab import up
from xoff.lab.provider import from_lab
from xoff.lab.teardown import down
from xoff.platforms.cumulus import transceivers
from xoff.watch.ssh_source import SshCounterSource, _run, reader_for

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured  # the results' commit line (bench/README.md, Freshness)
import watch_scale  # its fabric and its moving counters, beside this file

TIMEOUT_S = 120.0


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def per_port_before(now: list[str], ports: list[str]) -> list[str]:
    """The reader's commands as they were before: today's (whatever else it reads per port) with the one all-ports
    module command replaced by one ``nv show interface <swp> transceiver`` per port."""
    return [c for c in now if c != transceivers.TRANSCEIVERS.text] + [
        f"nv show interface {p} transceiver" for p in ports
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--record", type=Path)
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("cumulus_optics: needs root (network namespaces)")
    load_start = os.getloadavg()
    lab = f"c{os.getpid() % 100000}-optics"
    root = Path(tempfile.mkdtemp(prefix="xo", dir="/tmp"))
    root.chmod(0o755)
    os.environ["XOFF_LAB_DIR"] = str(root)
    try:
        up(watch_scale.generate(root, 1, 1, 1, 0), lab, remap_addresses=True)
        conn = from_lab(lab)
        fabric = conn.fabric
        watch_scale.seed(conn.lab_dir, fabric, ["spine1", "leaf01"])
        source = SshCounterSource(
            fabric, load_credentials(conn.secrets_file), known_hosts=conn.known_hosts, timeout_s=TIMEOUT_S
        )
        target, device = source.targets["spine1"], fabric.devices["spine1"]
        now = [c.text for c in reader_for(target).commands(device)]
        ports = [n for n, i in device.interfaces.items() if i.kind == "ethernet"]
        lists = {"before: a transceiver command per port": per_port_before(now, ports), "now: one for all ports": now}
        session = source._session(target)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in lists}
        for i in range(args.runs + 1):
            for name, commands in lists.items():
                c0, t0 = cpu(), time.perf_counter()
                got = [r for _, r in _run(session, [Command(c) for c in commands], TIMEOUT_S)]
                spent = (cpu() - c0, time.perf_counter() - t0)
                failed = [r for r in got if isinstance(r, Exception)]
                if failed:
                    raise SystemExit(f"cumulus_optics: {name}: {len(failed)} commands failed: {failed[0]}")
                if i:
                    runs[name].append(spent)
        source.close()
    finally:
        down(lab)
    rows = []
    base = statistics.median(c for c, _ in runs["before: a transceiver command per port"])
    for name, rs in runs.items():
        cpu_ms = 1000 * statistics.median(c for c, _ in rs)
        rows.append(
            f"| {name} | {len(lists[name])} | {cpu_ms:.0f} | {cpu_ms / 1000 / base:.2f} | "
            f"{statistics.median(w for _, w in rs):.1f} |"
        )
    text = "\n".join(
        [
            "# cumulus_optics: one 64-port Cumulus switch's watch read, the modules' DOM in one command or per port",
            "",
            f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; command: `python bench/cumulus_optics.py --runs "
            f"{args.runs}`",
            f"- machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
            f"- load average (1, 5, 15 min): at the start {', '.join(f'{x:.1f}' for x in load_start)}; at the end "
            f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}",
            f"- {len(ports)} ports, every one with moving counters and an optic with DOM; median of {args.runs} "
            "alternated reads after a warm-up read, one CLI session",
            "",
            "| read | commands | controller CPU ms | ratio to before | wall s (emulator's answers included) |",
            "|---|---:|---:|---:|---:|",
            *rows,
            "",
            "Baseline: the per-port read, in the same run. Cumulus has no exec-channel batch here: each command is",
            "a round trip on the CLI session, so the wall time is mostly the emulator's answers, on a loaded machine.",
        ]
    )
    print(text)
    if args.record:
        measured.record(args.record, text + "\n")


if __name__ == "__main__":
    main()
