"""Host push benchmark: one Linux GPU host with 8 ConnectX NICs, pushed from factory and again with
nothing to change, against a trivial SSH command to the same host.

The fabric (generated here, addresses in 198.18.0.0/15): one EOS leaf and one host ``gpu1`` with
eight 400G NICs (``eth0``-``eth7``, ``mlx5_0``-``mlx5_7``) cabled to it. In the lab the host is a
network namespace with OpenSSH and the NIC tool shims (``mlnx_qos``, ``cma_roce_*``) at factory state.

Each run, per source tree (``--tree LABEL=SRC``: e.g. a checkout before and after a change; the
trees alternate run by run so the machine's load falls on all alike), in a child process that
imports that tree's xoff (the lab's shims are that tree's too):

- a fresh lab (``lab up``);
- baseline: an SSH login as push opens it (netmiko, host key checked) and ``true`` on an exec
  channel, then logout; median of three;
- first push: ``gpu1`` from factory to intent (Nornir engine, as ``xoff push --limit gpu1``);
- no-change push: the same push again (0 changes);
- lab down.

Reported per push: wall time of the device flow (connect to done), the apply step, the SSH exec
round trips it made (exec channels opened), the ratio to the baseline measured in the same run, and
the load average beside each figure. Targets (issue 14), on an idle machine: first push <= 5 s,
no-change push <= 2 s.

Runs as root (namespaces).

    PYTHONPATH=src .venv/bin/python bench/host_push.py --tree before=/tmp/xoff-before/src --tree after=src \
        --runs 3 --record bench/results/host_push.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured  # the results' commit line (bench/README.md, Freshness)
from fabric_text import qos_policies  # the benchmarks' shared intent text, beside them

ROOT = Path(__file__).resolve().parents[1]
HOST = "gpu1"
NICS = 8
FIRST_TARGET_S = 5.0
AGAIN_TARGET_S = 2.0

FABRIC = (
    """\
fabric: {{name: {name}, site: bench}}
networks:
  management: {{prefix: 198.19.128.0/22, gateway: 198.19.128.1}}
  compute:
    kind: roce
    qos_policy: rdma
    p2p_prefix: 198.18.0.0/22
    loopback_prefix: 198.18.255.0/24
    underlay: {{asn_plan: {{leaf: 65101}}}}
"""
    + qos_policies()
    + """\
defaults:
  switch: {{platform: eos, asic: tomahawk5}}
roles:
  leaf: {{ports: [{{name: "Ethernet{{1..{nics}}}/1", speed: 400G, use: downlink}}]}}
switches:
  - {{name: leaf1, role: leaf}}
host_profiles:
  eight-nic:
    gpus: 8
    gpu_model: H100
    nic_model: connectx7
    nics:
      - {{netdev: "eth{{0..{last}}}", rdma: "mlx5_{{0..{last}}}", network: compute, rail: 0, gpu: 0, speed: 400G}}
hosts:
  - {{name: {host}, profile: eight-nic}}
links:
{links}
"""
)


def generate(where: Path, name: str) -> Path:
    links = "\n".join(f'  - {{a: "{HOST}:eth{i}", b: "leaf1:Ethernet{i + 1}/1"}}' for i in range(NICS))
    path = where / "fabric.yaml"
    text = FABRIC.format(name=name, nics=NICS, last=NICS - 1, host=HOST, links=links)
    path.write_text(text, encoding="utf-8")
    return path


# --- the child: one run against the tree on its PYTHONPATH -----------------------------------------


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _baseline(lab: str) -> float:
    """An SSH login as push opens it, ``true`` on an exec channel, logout (seconds)."""
    from netmiko import ConnectHandler  # noqa: PLC0415 - the child imports the tree under test

    from xoff.connect.credentials import load_credentials  # noqa: PLC0415
    from xoff.connect.options import connect_handler_args  # noqa: PLC0415
    from xoff.connect.session import NetmikoSession  # noqa: PLC0415
    from xoff.connect.targets import build_targets, select  # noqa: PLC0415
    from xoff.lab.provider import from_lab  # noqa: PLC0415

    conn = from_lab(lab)
    target = select(build_targets(conn.fabric), [HOST])[0]
    creds = load_credentials(conn.secrets_file).for_device(target.platform, target.kind)
    t0 = time.perf_counter()
    session = NetmikoSession(ConnectHandler(**connect_handler_args(target, creds, conn.known_hosts, 60.0)))
    status, _, _ = session.exec_command("true", timeout=60.0)
    session.conn.disconnect()
    if status != 0:
        raise SystemExit(f"baseline: `true` on {HOST} exited {status}")
    return time.perf_counter() - t0


def _push(lab: str, work: Path) -> dict[str, Any]:
    """Push ``gpu1`` once (Nornir), counting the exec round trips; the device's figures."""
    from xoff.connect.credentials import load_credentials  # noqa: PLC0415
    from xoff.connect.session import NetmikoSession  # noqa: PLC0415
    from xoff.connect.targets import build_targets, select  # noqa: PLC0415
    from xoff.lab.provider import from_lab  # noqa: PLC0415
    from xoff.push.job import PushJob, PushOptions, engine  # noqa: PLC0415
    from xoff.push.model import PushEvent  # noqa: PLC0415
    from xoff.render import render_fabric  # noqa: PLC0415

    conn = from_lab(lab)
    targets = select(build_targets(conn.fabric), [HOST])
    desired: dict[str, dict[str, str]] = {}
    for f in render_fabric(conn.fabric, [HOST]):
        desired.setdefault(f.device, {})[f.name] = f.content
    job = PushJob(
        conn.fabric.fabric,
        f"hb{time.time_ns()}",
        targets,
        desired,
        load_credentials(conn.secrets_file),
        conn.known_hosts,
    )
    steps: dict[str, float] = {}
    started: dict[str, float] = {}

    def on_event(event: PushEvent) -> None:
        step = str(getattr(event.step, "value", event.step))
        if event.status == "start":
            started[step] = event.elapsed_s
        elif step in started:
            steps[step] = round(event.elapsed_s - started.pop(step), 3)

    trips = {"n": 0}
    original = NetmikoSession.exec_command

    def counted(self: Any, command: str, stdin: str = "", timeout: float | None = None) -> tuple[int, str, str]:
        trips["n"] += 1
        return original(self, command, stdin, timeout)

    NetmikoSession.exec_command = counted  # type: ignore[method-assign]
    try:
        summary = engine("nornir")(job, PushOptions(workers=1, backup_dir=work / "backups"), on_event)
    finally:
        NetmikoSession.exec_command = original  # type: ignore[method-assign]
    result = summary.results[0]
    return {
        "outcome": result.outcome.value,
        "error": result.error,
        "changes": result.changes,
        "device_s": result.elapsed_s,
        "steps": steps,
        "round_trips": trips["n"],
    }


def child(label: str) -> None:
    from xoff.lab.lab import LabError, up  # noqa: PLC0415
    from xoff.lab.teardown import down  # noqa: PLC0415

    work = Path(tempfile.mkdtemp(prefix="xoff-host-bench-"))
    work.chmod(0o755)  # FRR (user frr) must traverse the lab directory
    os.environ["XOFF_LAB_DIR"] = str(work / "labs")
    lab = f"hb{os.getpid()}"  # unique per run: never another run's lab or namespaces
    out: dict[str, Any] = {"tree": label}
    try:
        up(generate(work, f"hostbench{os.getpid()}"), lab, remap_addresses=True)
        base = [_baseline(lab) for _ in range(3)]
        out["baseline_s"] = statistics.median(base)
        out["load_baseline"] = _load()
        out["first"] = _push(lab, work)
        out["load_first"] = _load()
        out["again"] = _push(lab, work)
        out["load_again"] = _load()
    finally:
        try:
            down(lab)
        except LabError as exc:
            print(f"lab down: {exc}", file=sys.stderr)
        import shutil  # noqa: PLC0415

        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(out))


# --- the parent: alternate the trees, report -------------------------------------------------------


def run_child(label: str, src: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", label]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"{label}: bench child failed ({done.returncode}):\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    for push in ("first", "again"):
        if result[push]["outcome"] not in ("changed", "unchanged"):
            raise SystemExit(f"{label}: {push} push {result[push]['outcome']}: {result[push]['error']}")
    return result


def _commit(src: Path) -> str:
    """The tree's commit: ``git describe``, or a ``COMMIT`` file beside ``src`` (an exported tree)."""
    done = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=src, capture_output=True, text=True, check=False
    )
    marker = src.resolve().parent / "COMMIT"
    if not done.stdout.strip() and marker.is_file():
        return marker.read_text(encoding="utf-8").strip()
    return done.stdout.strip() or "(not a git checkout)"


def _step(p: dict[str, Any], name: str) -> str:
    value = p["steps"].get(name)
    return f"{value:.2f}" if value is not None else "-"


def _row(r: dict[str, Any], push: str) -> str:
    p = r[push]
    return (
        f"| {r['tree']} | {push} | {p['changes']} | {p['device_s']:.2f} | {_step(p, 'connect')} | "
        f"{_step(p, 'backup')} | {_step(p, 'apply')} | {_step(p, 'verify')} | {p['round_trips']} | "
        f"{r['baseline_s']:.2f} | {p['device_s'] / r['baseline_s']:.1f} | {r[f'load_{push}']:.2f} |"
    )


def _verdict(results: list[dict[str, Any]], label: str) -> str:
    mine = [r for r in results if r["tree"] == label]
    first = statistics.median(r["first"]["device_s"] for r in mine)
    again = statistics.median(r["again"]["device_s"] for r in mine)
    load = statistics.median(r["load_first"] for r in mine)

    def met(value: float, target: float) -> str:
        return "met" if value <= target else "**not met**"

    return (
        f"- `{label}`: first push median {first:.2f} s (target <= {FIRST_TARGET_S:.0f} s: {met(first, FIRST_TARGET_S)}), "
        f"no-change push median {again:.2f} s (target <= {AGAIN_TARGET_S:.0f} s: {met(again, AGAIN_TARGET_S)}), "
        f"at a load average of about {load:.1f} on {os.cpu_count()} CPUs"
    )


def report(results: list[dict[str, Any]], trees: dict[str, Path], runs: int) -> str:
    lines = [
        f"# host_push: a Linux host with {NICS} NICs, first push and no-change push",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; "
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        *(f"- tree `{label}`: `{src}` at `{_commit(src)}`" for label, src in trees.items()),
        f"- command: `python bench/host_push.py {' '.join(f'--tree {k}=...' for k in trees)} --runs {runs}`",
        "",
        "| tree | push | changes | device s | connect s | read s | apply s | verify s | SSH exec round trips "
        "| baseline s | ratio | load avg |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines += [_row(r, "first"), _row(r, "again")]
    lines += [
        "",
        "*device s*: the device flow from connect to done; *connect*, *read* (the backup), *apply*, *verify*: its "
        "steps; *SSH exec round trips*: exec channels the strategy opened; *baseline*: an SSH login as push opens it plus `true` on an exec channel, median of 3, "
        "measured in the same run; *ratio*: device s / baseline; *load avg*: the 1-minute load average just after.",
        "",
        "Targets (issue 14, idle machine): first push <= 5 s, no-change push <= 2 s.",
        "",
        *(_verdict(results, label) for label in trees),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", default=[], help="LABEL=SRC (default: this checkout's src)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--record", type=Path, help="also write the Markdown report here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    trees = dict(t.split("=", 1) for t in args.tree) if args.tree else {"this": str(ROOT / "src")}
    paths = {label: Path(src) for label, src in trees.items()}
    results: list[dict[str, Any]] = []
    for i in range(args.runs):
        for label, src in paths.items():
            r = run_child(label, src)
            results.append(r)
            print(
                f"run {i + 1} {label}: first {r['first']['device_s']:.2f} s ({r['first']['changes']} changes, "
                f"{r['first']['round_trips']} round trips), again {r['again']['device_s']:.2f} s, "
                f"baseline {r['baseline_s']:.2f} s, load {r['load_first']:.2f}",
                file=sys.stderr,
                flush=True,
            )
    text = report(results, paths, args.runs)
    print(text)
    if args.record:
        measured.record(args.record, text)  # names the commit it measured (bench/README.md, Freshness)


if __name__ == "__main__":
    main()
