"""Scale benchmark: load, check and plan a rail-optimised RoCE fabric of 10,000 GPUs (--gpus: up to 100,000+).

Reference fabric (default --hosts 1250; above 1280 hosts the 128 x 400G shape below): HGX hosts with 8 GPUs and 8 x 400G ConnectX-7 rail NICs;
32 hosts per scalable unit (SU) on 8 rail leaves (one rail_optimized generator per SU); a clos3 of
4 SUs per pod with 32 spines each, and 32 super-spine planes of (leaves per pod) super-spines, so
every leaf and spine runs 32 x 400G down and 32 x 400G up (non-blocking). All switches are SONiC
SN5600 (Spectrum-4, 64 x 400G). Above 1280 hosts the radix is 128 x 400G (Mellanox-SN5600-O128): 64 hosts
per SU, 8 SUs and 64 spines per pod, 64 super-spine planes of 64 (100,000 GPUs: 25 pods, 7,296 switches, 304,800
links). The intent is written as YAML files (one per SU) into a directory.

Each phase runs in fresh processes, so peak RSS is that phase's: yaml (PyYAML CSafeLoader only,
the baseline), load (load_intent), plan (+ build_fabric_state + the pre-change catalog: `xoff check`),
json (load + build_fabric_state + model_dump_json).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import math
import os
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
from string import Template
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured  # the results' commit line (bench/README.md, Freshness)

RAILS, HOSTS_PER_RACK = 8, 4
# The switch radix decides the shape: 64 x 400G (ACS-SN5600) up to MAX_64 hosts, 128 x 400G (Mellanox-SN5600-O128,
# the SN5600's 64 x 800G cages split in two) above: a leaf or spine runs half its ports down and half up.
SHAPES = {
    64: {"hosts_per_su": 32, "sus_per_pod": 4, "spines_per_pod": 32, "hwsku": "ACS-SN5600", "step": 8},
    128: {"hosts_per_su": 64, "sus_per_pod": 8, "spines_per_pod": 64, "hwsku": "Mellanox-SN5600-O128", "step": 4},
}
MAX_64 = 1280  # 40 full SUs: one more host adds an 11th pod and its links outgrow one /16 of /31s
PHASES = {
    "yaml": "YAML parse only (CSafeLoader)",
    "load": "load_intent",
    "plan": "load_intent + build_fabric_state + the pre-change catalog (= xoff check; deadlock.cbd baseline only, no failure sweep)",
}
PHASES["json"] = "load_intent + build_fabric_state + model_dump_json (no checks)"
TARGET_S, TARGET_MIB = 10.0, 2048.0
HEADER = (
    "| phase | best s | median s | GC s | process s | peak RSS MiB | after imports MiB | time / yaml | RSS / yaml |"
)
# RFC 2544 benchmarking space, 198.18.0.0/15: disjoint p2p, management and loopback pools, as long as the
# fabric fits them (pools()); a larger fabric's pools are sized from it.
P2P, MGMT, LOOPBACKS, BMC_FIRST = "198.18.0.0/16", "198.19.0.0/18", "198.19.64.0/20", IPv4Address("198.19.32.1")

FABRIC = Template("""\
fabric: {name: ref-10k, site: bench, description: "$gpus GPUs, rail-optimised RoCE"}
networks:
  management: {prefix: $mgmt, gateway: 198.19.0.1}
  compute: {kind: roce, qos_policy: rdma, p2p_prefix: $p2p, loopback_prefix: $loopbacks,
            underlay: {asn_plan: {super_spine: 65000, spine: 65001, leaf: 4200000001}}}
qos_policies:
  rdma:
    trust: dscp
    classes:
      roce: {dscp: [26], priority: 3, lossless: true, scheduler: {type: dwrr, weight: 50},
             ecn: {min_threshold: 150000, max_threshold: 1500000, probability: 100}}
      cnp: {dscp: [48], priority: 6, scheduler: {type: strict}}
      bulk: {priority: 0, scheduler: {type: dwrr, weight: 50}}
    default_class: bulk
    cnp_class: cnp
    # static means the table: the 30 m host cables take the SN5600 table's 40 m row (nearest longer)
    buffers: {model: static, cable_rounding: up}
    cable_lengths: {host_leaf: 30, leaf_spine: 40, spine_super_spine: 300}
defaults:
  switch: {platform: sonic, asic: spectrum4, hwsku: $hwsku}
roles:
  leaf:  # $half x 400G down, $half x 400G up
    ports: &halves
      - {name: "Ethernet{0..$last_down..$step}", speed: 400G, use: downlink}
      - {name: "Ethernet{$first_up..$last_up..$step}", speed: 400G, use: uplink}
  spine: {ports: *halves}
  super-spine: {ports: [{name: "Ethernet{0..$last_up..$step}", speed: 400G, use: downlink}]}
switches:
  - {name: "$leaves", role: leaf}
  - {name: "$spines", role: spine}
  - {name: "$supers", role: super-spine}
host_profiles:
  hgx-h100: {gpus: 8, gpu_model: H100, nic_model: connectx7, nics: [
    {netdev: "rail{0..7}", rdma: "mlx5_{0..7}", network: compute, rail: 0, gpu: 0, speed: 400G}]}
cabling:
  - {kind: clos3, pods: $pods, leaves: "$leaves", spines: "$spines", super_spines: "$supers"}
""")


def _rng(prefix: str, first: int, last: int, width: int) -> str:
    """A brace pattern zero-padded to ``width`` (leaf{001..008}); one name when first == last."""
    return f"{prefix}{first:0{width}d}" if first == last else f"{prefix}{{{first:0{width}d}..{last:0{width}d}}}"


def layout(hosts: int, radix: int | None = None) -> dict[str, int]:
    """The fabric's shape for ``hosts`` hosts: radix 64 up to MAX_64 hosts, else 128 (or as given)."""
    radix = radix or (64 if hosts <= MAX_64 else 128)
    shape = SHAPES[radix]
    sus = math.ceil(hosts / shape["hosts_per_su"])
    sus_per_pod = min(shape["sus_per_pod"], sus)
    pods = math.ceil(sus / sus_per_pod)
    per_pod = sus_per_pod * RAILS  # leaves per pod = spine downlinks = spine uplinks = plane size
    spines_per_pod = shape["spines_per_pod"]
    lay = {"hosts": hosts, "radix": radix, "sus": sus, "pods": pods, "leaves_per_pod": per_pod}
    lay |= {"leaves": pods * per_pod, "spines": pods * spines_per_pod, "super_spines": spines_per_pod * per_pod}
    lay |= {"spines_per_pod": spines_per_pod, "hosts_per_su": shape["hosts_per_su"]}
    lay["links"] = hosts * RAILS + lay["leaves"] * spines_per_pod + lay["spines"] * per_pod
    if pods > radix:
        sys.exit(f"--hosts {hosts}: {pods} pods, but a super-spine has {radix} ports (one per pod)")
    return lay


def pools(lay: dict[str, int]) -> dict[str, str]:
    """Address pools: the reference ones when the fabric fits them, else sized from it.

    Sized: management 198.19.0.0/16 (devices from the bottom, BMCs from 198.19.128.1), loopbacks a prefix of
    198.18.0.0/16 holding every switch, and the /31s a prefix of 10.0.0.0/8 (RFC 1918) holding 2 x links addresses:
    100,000 GPUs have ~300,000 links, 600,000 addresses, more than the whole of 198.18.0.0/15 (131,072).
    """
    switches = lay["leaves"] + lay["spines"] + lay["super_spines"]
    p2p_len = 32 - (2 * lay["links"] - 1).bit_length()
    if p2p_len >= 16 and switches < 4096 and switches + lay["hosts"] < 8190:
        return {"p2p": P2P, "mgmt": MGMT, "loopbacks": LOOPBACKS, "bmc_first": str(BMC_FIRST)}
    if switches + lay["hosts"] >= 32766 or lay["hosts"] >= 32766 or switches >= 65534:
        sys.exit(f"--hosts {lay['hosts']}: more devices than 198.19.0.0/16 holds as management addresses")
    loopbacks = f"198.18.0.0/{32 - switches.bit_length()}"
    return {"p2p": f"10.0.0.0/{p2p_len}", "mgmt": "198.19.0.0/16", "loopbacks": loopbacks, "bmc_first": "198.19.128.1"}


def generate(hosts: int, out: Path, radix: int | None = None) -> dict[str, int]:
    """Write the reference intent under ``out`` (fabric.yaml and su/suNNN.yaml); return its layout."""
    lay = layout(hosts, radix)
    pool, step = pools(lay), SHAPES[lay["radix"]]["step"]
    w = {k: len(str(lay[k])) for k in ("hosts", "leaves", "spines", "super_spines")}
    leaves = _rng("leaf", 1, lay["leaves"], w["leaves"])
    spines = _rng("spine", 1, lay["spines"], w["spines"])
    supers = _rng("super", 1, lay["super_spines"], w["super_spines"])
    values = {"gpus": hosts * 8, "mgmt": pool["mgmt"], "p2p": pool["p2p"], "loopbacks": pool["loopbacks"]}
    values |= {"pods": lay["pods"], "hwsku": SHAPES[lay["radix"]]["hwsku"], "half": lay["radix"] // 2, "step": step}
    values |= {"last_down": (lay["radix"] // 2 - 1) * step, "first_up": lay["radix"] // 2 * step}
    values |= {"last_up": (lay["radix"] - 1) * step}
    text = FABRIC.substitute(values, leaves=leaves, spines=spines, supers=supers)
    (out / "fabric.yaml").write_text(text, encoding="utf-8")
    (out / "su").mkdir(exist_ok=True)
    per_su, bmc_first = lay["hosts_per_su"], IPv4Address(pool["bmc_first"])
    for su in range(lay["sus"]):
        first, last = su * per_su + 1, min((su + 1) * per_su, hosts)
        lines = [f"# SU {su + 1}: one rack entry per {HOSTS_PER_RACK} hosts", "hosts:"]
        for h in range(first, last + 1, HOSTS_PER_RACK):
            name = _rng("gpu", h, min(h + HOSTS_PER_RACK - 1, last), w["hosts"])
            lines.append(f'  - {{name: "{name}", profile: hgx-h100, unit: {su + 1}, bmc: {bmc_first + h - 1}}}')
        rail_leaves = _rng("leaf", su * RAILS + 1, (su + 1) * RAILS, w["leaves"])
        lines += ["cabling:", f'  - {{kind: rail_optimized, hosts: "{_rng("gpu", first, last, w["hosts"])}",']
        lines.append(f'     leaves: "{rail_leaves}"}}')
        (out / "su" / f"su{su + 1:03d}.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lay


def hosts_of(args: argparse.Namespace) -> int:
    """--gpus (8 per host) or --hosts."""
    if args.gpus is None:
        return int(args.hosts)
    if args.gpus % RAILS or args.gpus <= 0:
        sys.exit(f"--gpus {args.gpus}: a positive multiple of {RAILS} (8 GPUs per host)")
    return int(args.gpus) // RAILS


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def child(phase: str, intent: Path, profile: bool) -> dict[str, Any]:
    """Run one phase in this fresh process; imports happen before the clock starts."""
    pauses: list[float] = []  # cyclic-GC pauses: -start, +stop
    gc.callbacks.append(lambda ph, _: pauses.append(time.perf_counter() * (1 if ph == "stop" else -1)))
    files = sorted(p for p in intent.rglob("*") if p.suffix in (".yaml", ".yml"))
    if phase != "yaml":
        from xoff.desired import build_fabric_state  # noqa: PLC0415 - keep xoff out of the yaml baseline
        from xoff.errors import InputError  # noqa: PLC0415
        from xoff.gcpause import for_batch_run  # noqa: PLC0415
        from xoff.intent import load_intent  # noqa: PLC0415
        from xoff.validate.run import pre_change_results  # noqa: PLC0415

        for_batch_run()  # as the CLI's main() does
    loaded: Any = None
    json_bytes, prof = 0, cProfile.Profile() if profile else None
    pauses.clear()
    rss0, t0 = _maxrss_mib(), time.perf_counter()
    if prof is not None:
        prof.enable()
    if phase == "yaml":
        for f in files:
            yaml.load(f.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    else:
        try:
            loaded = load_intent(intent)
            state = build_fabric_state(loaded) if phase in ("plan", "json") else None
            if state is not None and phase == "plan":
                pre_change_results(state)  # what `xoff check` runs: validators/pre-change.yaml
            json_bytes = len(state.model_dump_json()) if state is not None and phase == "json" else 0
        except InputError as exc:
            sys.exit(f"{phase}: the intent did not load:\n{exc.render()}")
    seconds, gc_s = time.perf_counter() - t0, sum(pauses[: len(pauses) // 2 * 2])
    if prof is not None:
        prof.disable()
        for key in ("cumulative", "tottime"):
            pstats.Stats(prof, stream=sys.stderr).sort_stats(key).print_stats(15)
    out: dict[str, Any] = {"seconds": seconds, "gc_s": gc_s, "rss_mib": _maxrss_mib(), "import_rss_mib": rss0}
    out |= {"files": len(files), "yaml_bytes": sum(f.stat().st_size for f in files), "json_bytes": json_bytes}
    if loaded is not None:
        roles = [sw.role for sw in loaded.switches.values()]
        out |= {"switches": {r: roles.count(r) for r in dict.fromkeys(roles)}, "links": len(loaded.links)}
        out |= {"hosts": len(loaded.hosts), "gpus": sum(h.profile.gpus for h in loaded.hosts.values())}
    return out


def measure(phase: str, intent: Path, runs: int, timeout: float) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    walls: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        cmd = [sys.executable, __file__, "--child", phase, str(intent)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            sys.exit(f"phase {phase} took over {timeout:g} s and was killed; find the hotspot with --profile")
        walls.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            sys.exit(f"phase {phase} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    secs = sorted(results, key=lambda r: float(r["seconds"]))
    med = secs[(len(secs) - 1) // 2]  # the lower median run, so its GC share belongs to it
    stats = {"best": secs[0]["seconds"], "median": statistics.median(r["seconds"] for r in results)}
    return med | stats | {"process": statistics.median(walls), "rss_mib": max(r["rss_mib"] for r in results)}


def report(res: dict[str, dict[str, Any]], lay: dict[str, int], runs: int, profile: str) -> str:
    base, plan = res["yaml"], res.get("plan")
    rows = [HEADER, "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for ph, r in res.items():
        rows.append(
            f"| {ph}: {PHASES[ph]} | {r['best']:.3f} | {r['median']:.3f} | {r['gc_s']:.2f} | {r['process']:.2f}"
            f" | {r['rss_mib']:.0f} | {r['import_rss_mib']:.0f} | {r['median'] / base['median']:.0f}x"
            f" | {r['rss_mib'] / base['rss_mib']:.1f}x |"
        )
    facts = next((r for r in res.values() if "links" in r), {})
    sw = facts.get("switches", {})
    info = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
    cpu = next((ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")), "unknown")
    verdict = "not measured (run phase plan)"
    if plan is not None:
        t_ok, m_ok = plan["process"] < TARGET_S, plan["rss_mib"] < TARGET_MIB
        verdict = (
            f"under {TARGET_S:.0f} s **{'met' if t_ok else 'NOT met'}** ({plan['process']:.2f} s whole process,"
            f" {plan['median']:.2f} s in load + plan); under 2 GiB peak RSS **{'met' if m_ok else 'NOT met'}**"
            f" ({plan['rss_mib']:.0f} MiB)"
        )
    lines = [
        f"# plan_scale: load, check and plan a {lay['hosts'] * RAILS:,}-GPU fabric",
        "",
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- machine: {len(os.sched_getaffinity(0))} CPUs ({cpu}), Python {platform.python_version()}",
        f"- code: `git describe --always --dirty` = {_git_rev()}",
        f"- command: `python bench/plan_scale.py --gpus {lay['hosts'] * RAILS} --runs {runs}{' --profile' * bool(profile)}`",
        f"- fabric: {facts.get('hosts')} hosts, {facts.get('gpus')} GPUs, {sum(sw.values())} switches"
        f" ({', '.join(f'{v} {k}' for k, v in sw.items())}), {facts.get('links')} links;"
        f" {lay['sus']} SUs, {lay['pods']} pods, {lay['spines_per_pod']} super-spine planes,"
        f" radix {lay['radix']} x 400G ({SHAPES[lay['radix']]['hwsku']}); pools {pools(lay)}",
        f"- intent: {base['files']} YAML files, {base['yaml_bytes'] / 1024:.0f} KiB"
        + (f"; plan JSON {res['json']['json_bytes'] / 2**20:.0f} MiB" if "json" in res else ""),
        "",
        f"Times are the phase alone (imports excluded), over {runs} fresh processes per phase. `GC s`: cyclic"
        " garbage-collector pauses inside the median run. `process s`: median wall time of the whole child"
        " (interpreter start, imports, phase). Peak RSS is the maximum over the runs.",
        "",
        *rows,
        "",
        f"Target for load + check + plan (phase `plan`): {verdict}.",
        "",
    ]
    if profile:
        lines += ["## cProfile of phase plan (one run; GC pauses are charged to whatever allocated)", ""]
        lines += ["```", profile.strip(), "```", ""]
    return "\n".join(lines)


def _git_rev() -> str:
    cmd = ["git", "-C", str(Path(__file__).parent), "describe", "--always", "--dirty"]
    return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip() or "unknown"


def _profile(intent: Path, timeout: float) -> str:
    cmd = [sys.executable, __file__, "--profile", "--child", "plan", str(intent)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    text = proc.stderr
    for root in sorted({*sys.path, str(Path(__file__).parents[1] / "src")}, key=len, reverse=True):
        text = text.replace(root + "/", "") if root else text  # site-packages/, src/, stdlib
    return "\n".join(line.rstrip() for line in text.splitlines())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=1250, help="GPU hosts, 8 GPUs each (default 1250 = 10,000 GPUs)")
    ap.add_argument("--gpus", type=int, help="GPUs (a multiple of 8; overrides --hosts), up to 100,000 and beyond")
    ap.add_argument("--radix", type=int, choices=sorted(SHAPES), help="switch radix (default: 64 up to 1280 hosts)")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per phase (default 3)")
    ap.add_argument("--record", type=Path, help="also write the results as Markdown to this file")
    ap.add_argument("--keep", type=Path, help="write the intent into this directory and keep it")
    ap.add_argument("--phases", default=",".join(PHASES), help="comma-separated subset (yaml always runs)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds before a phase's process is killed")
    ap.add_argument("--profile", action="store_true", help="add a cProfile of phase plan (top 15 cum/tottime)")
    ap.add_argument("--child", nargs=2, metavar=("PHASE", "DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), args.profile)))
        return
    intent = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="xoff-bench-"))
    tmp = None if args.keep else intent
    intent.mkdir(parents=True, exist_ok=True)
    try:
        lay = generate(hosts_of(args), intent, args.radix)
        print(f"intent in {intent}: {lay}", file=sys.stderr)
        phases = ["yaml", *(p for p in args.phases.split(",") if p in PHASES and p != "yaml")]
        res = {p: measure(p, intent, args.runs, args.timeout) for p in phases}
        text = report(res, lay, args.runs, _profile(intent, args.timeout) if args.profile else "")
        print(text)
        if args.record:
            measured.record(args.record, text)  # names the commit it measured (bench/README.md, Freshness)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
