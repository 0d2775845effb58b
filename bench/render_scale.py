"""Render benchmark: every file of the 10,000-GPU reference fabric, all platforms.

Uses plan_scale.py's reference fabric, with the spine tier on Cumulus (NVUE) and the super-spine
tier on Arista EOS (Tomahawk 5), so SONiC (+FRR), NVUE, EOS and Linux hosts are all rendered.
Load and plan are not timed here (plan_scale.py measures them); rendering is timed per platform,
best of N runs in one process, beside a baseline of the same devices' FabricState JSON dump
(model_dump_json), the cheapest way to turn the same state into text.
"""

from __future__ import annotations

import argparse
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
from xoff.render.registry import load_renderer, renderer_names

TARGET_S = 30.0
MIXED = {
    "  spine: {ports: *halves}": (
        "  spine: {platform: cumulus, asic: spectrum4, ports: [\n"
        '    {name: "swp{1..32}", speed: 400G, use: downlink}, {name: "swp{33..64}", speed: 400G, use: uplink}]}'
    ),
    '  super-spine: {ports: [{name: "Ethernet{0..504..8}", speed: 400G, use: downlink}]}': (
        '  super-spine: {platform: eos, asic: tomahawk5, ports: [{name: "Ethernet{1..64}/1", speed: 400G, use: downlink}]}'
    ),
    "spine_super_spine: 300": "spine_super_spine: 40",  # Tomahawk 5 lookup rows cover 5 m and 40 m
}


def build(hosts: int, where: Path):  # type: ignore[no-untyped-def]
    lay = plan_scale.generate(hosts, where)
    text = (where / "fabric.yaml").read_text(encoding="utf-8")
    for old, new in MIXED.items():
        assert old in text, old
        text = text.replace(old, new)
    text = text.replace(
        "defaults:\n  switch: {platform: sonic, asic: spectrum4, hwsku: ACS-SN5600}",
        "defaults:\n  switch: {platform: sonic, asic: spectrum4}",
    )
    (where / "fabric.yaml").write_text(text, encoding="utf-8")
    return lay, build_fabric_state(load_intent(where))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=1250)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--record", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="xoff-render-bench-") as tmp:
        lay, state = build(args.hosts, Path(tmp))
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
    all_files = render_fabric(state)  # the public entry point, once, to cross-check the counts
    public_s = time.perf_counter() - t0
    assert len(all_files) == sum(c[1] for c in counts.values())
    best, base = min(totals), min(baselines)
    lines = [
        "# render_scale: every file of the 10,000-GPU reference fabric",
        "",
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code: `{plan_scale._git_rev()}`",
        f"- command: `python bench/render_scale.py --hosts {args.hosts} --runs {args.runs}`",
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
        f"`render_fabric` (public entry point, one run): {public_s:.2f} s.",
        f"Target: the whole fabric under {TARGET_S:.0f} s: **{'met' if best < TARGET_S else 'NOT met'}** ({best:.2f} s).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.record:
        measured.record(args.record, text)  # names the commit it measured (bench/README.md, Freshness)


if __name__ == "__main__":
    main()
