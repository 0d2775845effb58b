"""xoff's EOS renderer against pyavd's ``get_device_config``, per device, in one process.

Devices: the four EOS spines of ``inventory/roce-pod`` (Arista 7060X6, 64 x 400G, 32 eBGP
sessions each), cycled and renamed to ``--devices`` distinct switches. For each one, pyavd gets
the AVD structured config that ``tests/platforms/eos/eos_avd.py`` builds from the same
FabricState (the one the pyavd comparison test proves equivalent), validated beforehand.

What is timed, per device:
- xoff: ``xoff.platforms.eos.render.render(device, fabric)``, i.e. FabricState -> structured
  config -> text (both steps; also shown split);
- pyavd: ``pyavd.get_device_config(validated_structured_config)``, text only. Building and
  validating AVD's structured config are not counted (validation is shown for reference).

Each side renders all devices once to warm up (template compilation, imports), then ``--repeats``
timed passes over all devices; the table gives the best and median pass divided by the device count.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "platforms" / "eos"))  # eos_avd: the AVD-side builder

import pyavd  # type: ignore[import-untyped]  # noqa: E402  (heavy import, outside every timed region)
from eos_avd import avd_structured_config, inline_service_profiles  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import measured  # noqa: E402  the results' commit line (bench/README.md, Freshness)
from xoff.desired import build_fabric_state  # noqa: E402
from xoff.desired.models import Device, FabricState  # noqa: E402
from xoff.intent import load_intent  # noqa: E402
from xoff.platforms.eos.render import render, render_structured_config  # noqa: E402
from xoff.platforms.eos.structured import build_structured_config  # noqa: E402

TARGET_RATIO = 10.0


def devices(count: int) -> tuple[FabricState, list[Device]]:
    fabric = build_fabric_state(load_intent(ROOT / "inventory" / "roce-pod"))
    spines = [d for d in fabric.devices.values() if d.platform == "eos"]
    return fabric, [spines[i % len(spines)].model_copy(update={"name": f"eos-spine{i + 1:02d}"}) for i in range(count)]


def timed(fn: Callable[[Any], object], items: list[Any], repeats: int) -> list[float]:
    """Seconds per item, one entry per pass over all items (after one warm-up pass)."""
    for item in items:
        fn(item)
    out: list[float] = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        for item in items:
            fn(item)
        out.append((time.perf_counter() - t0) / len(items))
    return out


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()


def git_describe() -> str:
    """``git describe``, marked ``-dirty`` also for untracked files (new code not yet committed)."""
    head = _git("describe", "--always") or "unknown"
    return f"{head}-dirty" if _git("status", "--porcelain") else head


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, default=50, help="switches per side (default 50)")
    ap.add_argument("--repeats", type=int, default=5, help="timed passes per side (default 5)")
    ap.add_argument("--record", type=Path, help="also write the Markdown report to this file")
    args = ap.parse_args()

    fabric, devs = devices(args.devices)
    avd_configs = [avd_structured_config(d, fabric) for d in devs]
    t0 = time.perf_counter()
    validated = []
    for sc in avd_configs:
        result = pyavd.validate_structured_config(sc)
        if list(result.validation_result.violations):
            print(f"AVD rejects the structured config of {sc['hostname']}", file=sys.stderr)
            return 1
        validated.append(result.validated_data)
    validate_s = (time.perf_counter() - t0) / len(devs)

    # Same devices, same meaning: the texts must agree before their timings mean anything.
    for d, v in zip(devs, validated, strict=True):
        if inline_service_profiles(pyavd.get_device_config(v)) != render(d, fabric)["running-config"]:
            print(f"{d.name}: xoff and pyavd outputs differ; run the comparison test", file=sys.stderr)
            return 1

    xoff_s = timed(lambda d: render(d, fabric), devs, args.repeats)
    build_s = timed(build_structured_config, devs, args.repeats)
    structured = [build_structured_config(d) for d in devs]
    template_s = timed(render_structured_config, structured, args.repeats)
    avd_s = timed(pyavd.get_device_config, validated, args.repeats)

    lines_per_device = render(devs[0], fabric)["running-config"].count("\n")
    ratio_best = min(avd_s) / min(xoff_s)
    ratio_median = statistics.median(avd_s) / statistics.median(xoff_s)
    verdict = "met" if ratio_median >= TARGET_RATIO else "NOT met"
    rows = [
        ("xoff `render` (FabricState -> text)", xoff_s),
        ("  of which: structured config", build_s),
        ("  of which: Jinja2 templates", template_s),
        ("pyavd `get_device_config` (structured config -> text)", avd_s),
    ]
    report = [
        "# EOS render: xoff vs pyavd",
        "",
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {cpu_model()}, {platform.machine()}, Python {platform.python_version()}",
        f"- versions: xoff {git_describe()}, pyavd {version('pyavd')}, Jinja2 {version('jinja2')}",
        f"- devices: {len(devs)} EOS spines (roce-pod spine5..8 cycled), 64 x 400G ports, "
        f"{len(devs[0].bgp.neighbors) if devs[0].bgp else 0} eBGP neighbours, {lines_per_device} config lines each",
        f"- passes: 1 warm-up + {args.repeats} timed, over all devices, in one process",
        "- outputs checked equal first (pyavd's after inlining its qos profile, as the comparison test does)",
        "",
        "| step | best ms/device | median ms/device |",
        "|---|---:|---:|",
        *[f"| {name} | {ms(min(s))} | {ms(statistics.median(s))} |" for name, s in rows],
        f"| (pyavd `validate_structured_config`, not in the ratio) | {ms(validate_s)} | - |",
        "",
        f"**pyavd / xoff per device: {ratio_best:.1f}x (best), {ratio_median:.1f}x (median)**; "
        f"target >= {TARGET_RATIO:.0f}x: {verdict}.",
        "",
        "Command: `.venv/bin/python bench/render_eos_vs_pyavd.py "
        f"--devices {args.devices} --repeats {args.repeats} --record bench/results/render_eos_vs_pyavd.md`",
    ]
    text = "\n".join(report) + "\n"
    print(text, end="")
    if args.record is not None:
        measured.record(args.record, text)  # names the commit it measured (bench/README.md, Freshness)
    return 0 if ratio_median >= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
