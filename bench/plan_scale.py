"""Scale benchmark: load, check and plan a 10,000-GPU rail-optimised RoCE fabric.

The reference fabric (default ``--hosts 1250``): HGX hosts with 8 GPUs and 8 x 400G ConnectX-7 rail
NICs, 32 hosts per scalable unit (SU) on 8 rail leaves; 4 SUs per pod with 32 spines each; one
super-spine plane per spine of a pod, 32 super-spines per plane (non-blocking: 32 down/32 up on
every leaf and spine). All switches are SONiC SN5600 (Spectrum-4, 64 x 400G). The intent is
written as YAML files (one per SU, like rack files) into a temporary directory, so parsing is timed.

Each phase runs in a fresh process (peak RSS is per phase): yaml (PyYAML CSafeLoader only, the
baseline), load (load_intent), plan (+ build_fabric_state), json (+ model_dump_json).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import platform
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any

import yaml

RAILS, HOSTS_PER_SU, SUS_PER_POD, SPINES_PER_POD, HOSTS_PER_RACK = 8, 32, 4, 32, 4
PHASES = {
    "yaml": "YAML parse only (CSafeLoader, baseline)",
    "load": "load_intent (parse, validate, resolve, check)",
    "plan": "load_intent + build_fabric_state",
    "json": "load + plan + model_dump_json",
}
TARGET_S, TARGET_MIB = 10.0, 2048.0
P2P, MGMT, LOOPBACKS, BMC_FIRST = "198.18.0.0/16", "198.19.0.0/18", "198.19.64.0/20", IPv4Address("198.19.32.1")


def _rng(prefix: str, first: int, last: int, width: int) -> str:
    """A brace pattern zero-padded to ``width``: leaf{001..008}; a single name when first == last."""
    if first == last:
        return f"{prefix}{first:0{width}d}"
    return f"{prefix}{{{first:0{width}d}..{last:0{width}d}}}"


def layout(hosts: int) -> dict[str, int]:
    sus = math.ceil(hosts / HOSTS_PER_SU)
    sus_per_pod = min(SUS_PER_POD, sus)
    pods = math.ceil(sus / sus_per_pod)
    per_pod = sus_per_pod * RAILS  # leaves per pod = spine downlinks = plane size (1:1 at the spine)
    lay = {"hosts": hosts, "sus": sus, "pods": pods, "leaves_per_pod": per_pod, "leaves": pods * per_pod}
    lay |= {"spines": pods * SPINES_PER_POD, "super_spines": SPINES_PER_POD * per_pod}
    lay["links"] = hosts * RAILS + lay["leaves"] * SPINES_PER_POD + lay["spines"] * per_pod
    if pods > 64 or lay["links"] > 32768:
        sys.exit(f"--hosts {hosts}: {lay['links']} links or {pods} pods exceed the {P2P} / 64-port plan")
    return lay


def generate(hosts: int, out: Path) -> dict[str, int]:
    """Write the reference intent under ``out``; return its layout."""
    lay = layout(hosts)
    n = {k: len(str(lay[k])) for k in ("hosts", "leaves", "spines", "super_spines")}

    def gpus(a: int, b: int) -> str:
        return _rng("gpu", a, b, n["hosts"])

    def leaves(a: int, b: int) -> str:
        return _rng("leaf", a, b, n["leaves"])

    port = {"speed": "400G"}
    halves = [{"name": "Ethernet{0..248..8}", **port, "use": "downlink"}]
    halves.append({"name": "Ethernet{256..504..8}", **port, "use": "uplink"})
    files: dict[str, dict[str, Any]] = {
        "fabric.yaml": {
            "fabric": {"name": "ref-10k", "site": "bench", "description": f"{hosts * 8} GPUs, rail-optimised"},
            "networks": {
                "management": {"prefix": MGMT, "gateway": "198.19.0.1"},
                "compute": {
                    "kind": "roce",
                    "qos_policy": "rdma",
                    "p2p_prefix": P2P,
                    "loopback_prefix": LOOPBACKS,
                    "underlay": {"asn_plan": {"super_spine": 65000, "spine": 65001, "leaf": 4200000001}},
                },
            },
        },
        "qos.yaml": {
            "qos_policies": {
                "rdma": {
                    "trust": "dscp",
                    "classes": {
                        "roce": {
                            "dscp": [26],
                            "priority": 3,
                            "lossless": True,
                            "ecn": {"min_threshold": 150000, "max_threshold": 1500000, "probability": 100},
                            "scheduler": {"type": "dwrr", "weight": 50},
                        },
                        "cnp": {"dscp": [48], "priority": 6, "scheduler": {"type": "strict"}},
                        "bulk": {"priority": 0, "scheduler": {"type": "dwrr", "weight": 50}},
                    },
                    "default_class": "bulk",
                    "cnp_class": "cnp",
                    "buffers": {"model": "static"},
                    "cable_lengths": {"host_leaf": 30, "leaf_spine": 40, "spine_super_spine": 300},
                }
            }
        },
        "switches.yaml": {
            "defaults": {"switch": {"platform": "sonic", "asic": "spectrum4", "hwsku": "ACS-SN5600"}},
            "roles": {
                "leaf": {"ports": halves},
                "spine": {"ports": halves},
                "super-spine": {"ports": [{"name": "Ethernet{0..504..8}", **port, "use": "downlink"}]},
            },
            "switches": [
                {"name": leaves(1, lay["leaves"]), "role": "leaf"},
                {"name": _rng("spine", 1, lay["spines"], n["spines"]), "role": "spine"},
                {"name": _rng("super", 1, lay["super_spines"], n["super_spines"]), "role": "super-spine"},
            ],
        },
        "hosts.yaml": {
            "host_profiles": {
                "hgx-h100": {
                    "gpus": 8,
                    "gpu_model": "H100",
                    "nic_model": "connectx7",
                    "nics": [
                        {"netdev": "rail{0..7}", "rdma": "mlx5_{0..7}", "network": "compute", "rail": 0, "gpu": 0}
                        | port
                    ],
                }
            }
        },
        "cabling.yaml": {
            "cabling": [
                {
                    "kind": "clos3",
                    "pods": lay["pods"],
                    "leaves": leaves(1, lay["leaves"]),
                    "spines": _rng("spine", 1, lay["spines"], n["spines"]),
                    "super_spines": _rng("super", 1, lay["super_spines"], n["super_spines"]),
                }
            ]
        },
    }
    for su in range(lay["sus"]):
        first, last = su * HOSTS_PER_SU + 1, min((su + 1) * HOSTS_PER_SU, hosts)
        racks = [
            {"name": gpus(h, min(h + HOSTS_PER_RACK - 1, last)), "profile": "hgx-h100", "unit": su + 1}
            | {"bmc": str(BMC_FIRST + h - 1)}
            for h in range(first, last + 1, HOSTS_PER_RACK)
        ]
        rail = {
            "kind": "rail_optimized",
            "hosts": gpus(first, last),
            "leaves": leaves(su * RAILS + 1, (su + 1) * RAILS),
        }
        files[f"su/su{su + 1:03d}.yaml"] = {"hosts": racks, "cabling": [rail]}
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(yaml.safe_dump(data, sort_keys=False, width=200), encoding="utf-8")
    return lay


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def child(phase: str, intent: Path, profile: bool) -> dict[str, Any]:
    """Run one phase in this (fresh) process; imports happen before the clock starts."""
    info: dict[str, Any] = {}
    if phase == "yaml":
        files = sorted(p for p in intent.rglob("*") if p.suffix in (".yaml", ".yml"))
        info |= {"files": len(files), "yaml_bytes": sum(f.stat().st_size for f in files)}
        rss0, t0 = _maxrss_mib(), time.perf_counter()
        for f in files:
            yaml.load(f.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        return {"seconds": time.perf_counter() - t0, "rss_mib": _maxrss_mib(), "import_rss_mib": rss0, **info}
    from xoff.desired import build_fabric_state  # noqa: PLC0415 - keep xoff out of the yaml baseline
    from xoff.errors import InputError  # noqa: PLC0415
    from xoff.intent import load_intent  # noqa: PLC0415

    prof = cProfile.Profile() if profile else None
    rss0, t0 = _maxrss_mib(), time.perf_counter()
    if prof is not None:
        prof.enable()
    try:
        loaded = load_intent(intent)
        state = build_fabric_state(loaded) if phase in ("plan", "json") else None
        if state is not None and phase == "json":
            info["json_bytes"] = len(state.model_dump_json())
    except InputError as exc:
        sys.exit(f"{phase}: the intent did not load:\n{exc.render()}")
    seconds = time.perf_counter() - t0
    if prof is not None:
        prof.disable()
        for key in ("cumulative", "tottime"):
            pstats.Stats(prof, stream=sys.stderr).sort_stats(key).print_stats(15)
    roles: dict[str, int] = {}
    for sw in loaded.switches.values():
        roles[sw.role] = roles.get(sw.role, 0) + 1
    info |= {"switches": roles, "hosts": len(loaded.hosts), "links": len(loaded.links)}
    info["gpus"] = sum(h.profile.gpus for h in loaded.hosts.values())
    return {"seconds": seconds, "rss_mib": _maxrss_mib(), "import_rss_mib": rss0, **info}


def measure(phase: str, intent: Path, runs: int, timeout: float) -> dict[str, Any]:
    results, walls = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        cmd = [sys.executable, __file__, "--child", phase, str(intent)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        walls.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            sys.exit(f"phase {phase} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    secs = [r["seconds"] for r in results]
    summary = results[-1] | {"best": min(secs), "median": statistics.median(secs), "process": statistics.median(walls)}
    return summary | {"rss_mib": max(r["rss_mib"] for r in results)}


def report(res: dict[str, dict[str, Any]], lay: dict[str, int], runs: int) -> str:
    base = res["yaml"]
    rows = [
        "| phase | best s | median s | process s | peak RSS MiB | RSS after imports MiB | time / yaml | RSS / yaml |"
    ]
    rows.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for ph, r in res.items():
        rows.append(
            f"| {ph}: {PHASES[ph]} | {r['best']:.3f} | {r['median']:.3f} | {r['process']:.2f} | {r['rss_mib']:.0f} |"
            f" {r['import_rss_mib']:.0f} | {r['median'] / base['median']:.0f}x | {r['rss_mib'] / base['rss_mib']:.1f}x |"
        )
    plan = res.get("plan", base)
    sw = plan.get("switches", {})
    ok_t, ok_m = plan["process"] < TARGET_S, plan["rss_mib"] < TARGET_MIB
    cpu = next((ln.split(":", 1)[1].strip() for ln in _cpuinfo() if ln.startswith("model name")), "unknown")
    return "\n".join(
        [
            "# plan_scale: load, check and plan a 10,000-GPU fabric",
            "",
            f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
            f"- machine: {_nproc()} CPUs, {cpu}, Python {platform.python_version()} ({platform.machine()})",
            f"- command: `python bench/plan_scale.py --hosts {lay['hosts']} --runs {runs}`",
            f"- fabric: {plan.get('hosts')} hosts, {plan.get('gpus')} GPUs, {sum(sw.values())} switches"
            f" ({', '.join(f'{v} {k}' for k, v in sw.items())}), {plan.get('links')} links;"
            f" {lay['sus']} SUs, {lay['pods']} pods, {lay['super_spines'] // lay['leaves_per_pod']} planes",
            f"- intent: {base['files']} YAML files, {base['yaml_bytes'] / 1024:.0f} KiB;"
            f" plan JSON {res['json']['json_bytes'] / 2**20:.0f} MiB"
            if "json" in res
            else "",
            "",
            f"Times are the phase alone (imports excluded), over {runs} fresh processes;"
            " `process s` is the median wall time of the whole child process (interpreter, imports, phase).",
            "",
            *rows,
            "",
            f"Target: load + check + plan (phase `plan`, whole process) under {TARGET_S:.0f} s:"
            f" **{'met' if ok_t else 'NOT met'}** ({plan['process']:.2f} s);"
            f" under 2 GiB peak RSS: **{'met' if ok_m else 'NOT met'}** ({plan['rss_mib']:.0f} MiB).",
            "",
        ]
    )


def _cpuinfo() -> list[str]:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


def _nproc() -> int:
    import os  # noqa: PLC0415

    return len(os.sched_getaffinity(0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=1250, help="GPU hosts, 8 GPUs each (default 1250 = 10,000 GPUs)")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per phase (default 3)")
    ap.add_argument("--record", type=Path, help="write the results as Markdown to this file")
    ap.add_argument("--keep", type=Path, help="write the intent to this directory and keep it")
    ap.add_argument("--phases", default=",".join(PHASES), help="comma-separated subset of " + ",".join(PHASES))
    ap.add_argument("--timeout", type=float, default=300, help="seconds before a phase's process is killed")
    ap.add_argument("--profile", action="store_true", help="cProfile phase plan once; print top 15 to stderr")
    ap.add_argument("--child", nargs=2, metavar=("PHASE", "DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), args.profile)))
        return
    tmp = None if args.keep else tempfile.mkdtemp(prefix="xoff-bench-")
    intent = args.keep or Path(str(tmp))
    intent.mkdir(parents=True, exist_ok=True)
    try:
        lay = generate(args.hosts, intent)
        print(f"intent in {intent}: {lay}", file=sys.stderr)
        if args.profile:
            cmd = [sys.executable, __file__, "--profile", "--child", "plan", str(intent)]
            subprocess.run(cmd, check=True, timeout=args.timeout)
            return
        phases = ["yaml", *(p for p in args.phases.split(",") if p != "yaml")]
        res = {p: measure(p, intent, args.runs, args.timeout) for p in phases}
        text = report(res, lay, args.runs)
        print(text)
        if args.record:
            args.record.parent.mkdir(parents=True, exist_ok=True)
            args.record.write_text(text, encoding="utf-8")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
