"""Render benchmark: every file of the reference fabric (10,000 GPUs; --gpus up to 100,000), all platforms.

Uses plan_scale.py's reference fabric, with the spine tier on Cumulus (NVUE) and the super-spine
tier on Arista EOS (Tomahawk 5), so SONiC (+FRR), NVUE, EOS and Linux hosts are all rendered.
Load and plan are not timed here (plan_scale.py measures them); rendering is timed per platform,
best of N runs in one process, beside a baseline of the same devices' FabricState JSON dump
(model_dump_json), the cheapest way to turn the same state into text.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured
import plan_scale
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.render import render_fabric
from xoff.render.parallel import workers_for
from xoff.render.registry import load_renderer, renderer_names

TARGET_S = {10_000: 3.0, 100_000: 30.0}  # GPUs (at most) -> seconds for the whole fabric (issue 19)
MIXED = {  # radix -> the fabric.yaml edits: spines on Cumulus, super-spines on EOS
    64: {
        "  spine: {ports: *halves}": (
            "  spine: {platform: cumulus, asic: spectrum4, ports: [\n"
            '    {name: "swp{1..32}", speed: 400G, use: downlink}, {name: "swp{33..64}", speed: 400G, use: uplink}]}'
        ),
        '  super-spine: {ports: [{name: "Ethernet{0..504..8}", speed: 400G, use: downlink}]}': (
            "  super-spine: {platform: eos, asic: tomahawk5,"
            ' ports: [{name: "Ethernet{1..64}/1", speed: 400G, use: downlink}]}'
        ),
    },
    128: {  # 64 x 800G cages, each split into 2 x 400G (swpNs0/s1 on NVUE, EthernetN/1 and /5 on EOS)
        "  spine: {ports: *halves}": (
            "  spine: {platform: cumulus, asic: spectrum4, ports: [\n"
            '    {name: "swp{1..32}s{0..1}", speed: 400G, use: downlink},'
            ' {name: "swp{33..64}s{0..1}", speed: 400G, use: uplink}]}'
        ),
        '  super-spine: {ports: [{name: "Ethernet{0..508..4}", speed: 400G, use: downlink}]}': (
            "  super-spine: {platform: eos, asic: tomahawk5,"
            ' ports: [{name: "Ethernet{1..64}/{1,5}", speed: 400G, use: downlink}]}'
        ),
        "    ports: &halves\n": "    hwsku: Mellanox-SN5600-O128\n    ports: &halves\n",
    },
}


def build(hosts: int, where: Path, radix: int | None = None):  # type: ignore[no-untyped-def]
    lay = plan_scale.generate(hosts, where, radix)
    text = (where / "fabric.yaml").read_text(encoding="utf-8")
    edits = {**MIXED[lay["radix"]], "spine_super_spine: 300": "spine_super_spine: 40"}  # TH5 rows: 5 m, 40 m
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new)
    hwsku = plan_scale.SHAPES[lay["radix"]]["hwsku"]
    text = text.replace(
        f"defaults:\n  switch: {{platform: sonic, asic: spectrum4, hwsku: {hwsku}}}",
        "defaults:\n  switch: {platform: sonic, asic: spectrum4}",
    )
    (where / "fabric.yaml").write_text(text, encoding="utf-8")
    return lay, build_fabric_state(load_intent(where))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=1250, help="GPU hosts, 8 GPUs each (default 1250 = 10,000 GPUs)")
    ap.add_argument("--gpus", type=int, help="GPUs (a multiple of 8; overrides --hosts)")
    ap.add_argument("--radix", type=int, choices=sorted(plan_scale.SHAPES), help="switch radix (plan_scale.py)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--record", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="xoff-render-bench-") as tmp:
        lay, state = build(plan_scale.hosts_of(args), Path(tmp), args.radix)
    per: dict[str, list[float]] = defaultdict(list)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # devices, files, bytes
    totals, baselines = [], []
    for _ in range(args.runs):
        run: dict[str, float] = defaultdict(float)
        t_all = time.perf_counter()
        for device in state.devices.values():
            for name in renderer_names(device):
                fn = load_renderer(name)
                t0 = time.perf_counter()
                files = fn(device, state)
                run[name] += time.perf_counter() - t0
                if len(totals) == 0:
                    c = counts[name]
                    c[0] += 1
                    c[1] += len(files)
                    c[2] += sum(len(t) for t in files.values())
        totals.append(time.perf_counter() - t_all)
        for name, s in run.items():
            per[name].append(s)
        t0 = time.perf_counter()
        for device in state.devices.values():
            device.model_dump_json()
        baselines.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    all_files = render_fabric(state, workers=1)  # the public entry point on one core, to cross-check the counts
    public_s = time.perf_counter() - t0
    workers = workers_for(len(state.devices))
    c0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime, time.perf_counter()
    assert render_fabric(state, workers=workers) == all_files  # the pool: the same files
    pool_s, pool_cpu = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - c0
    assert len(all_files) == sum(c[1] for c in counts.values())
    best, base = min(totals), min(baselines)
    gpus = lay["hosts"] * plan_scale.RAILS
    target = next((t for n, t in sorted(TARGET_S.items()) if gpus <= n), max(TARGET_S.values()))
    lines = [
        f"# render_scale: every file of the {lay['hosts'] * plan_scale.RAILS:,}-GPU reference fabric",
        "",
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code: `{plan_scale._git_rev()}`",
        f"- command: `python bench/render_scale.py --gpus {lay['hosts'] * plan_scale.RAILS} --runs {args.runs}`",
        f"- fabric: {lay['hosts']} hosts, {lay['leaves']} SONiC leaves, {lay['spines']} Cumulus spines, "
        f"{lay['super_spines']} EOS super-spines, {lay['links']} links",
        "",
        "| renderer | devices | files | MiB | best s | median s | ms / device |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, times in sorted(per.items()):
        dev, nfiles, nbytes = counts[name]
        lines.append(
            f"| {name} | {dev} | {nfiles} | {nbytes / 2**20:.1f} | {min(times):.2f} | {statistics.median(times):.2f}"
            f" | {1000 * min(times) / dev:.2f} |"
        )
    lines += [
        f"| **all** | {len(state.devices)} | {len(all_files)} | {sum(c[2] for c in counts.values()) / 2**20:.1f}"
        f" | {best:.2f} | {statistics.median(totals):.2f} | {1000 * best / len(state.devices):.2f} |",
        "",
        f"Baseline (same devices, `model_dump_json`): {base:.2f} s; rendering / baseline = {best / base:.1f}x.",
        f"`render_fabric` (public entry point, one run): {public_s:.2f} s on one core; {pool_s:.2f} s over a pool of"
        f" {workers} processes (`xoff render`'s default here; {pool_cpu:.2f} s of CPU in the workers), the same files;"
        f" load average {os.getloadavg()[0]:.1f} after.",
        f"Target: the whole fabric under {target:.0f} s: one core **{'met' if best < target else 'NOT met'}**"
        f" ({best:.2f} s); the pool **{'met' if pool_s < target else 'NOT met'}** ({pool_s:.2f} s).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.record:
        measured.record(args.record, text)  # names the commit it measured (bench/README.md, Freshness)


if __name__ == "__main__":
    main()
