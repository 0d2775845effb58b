"""Watch benchmark: the counters of a 64-switch, 56-host lab of three NOSes read every 10 s the way ``xoff watch``
reads them, SSH polling against gNMI, with the controller's CPU per switch per round per NOS, projected to 1,000
switches.

The lab (generated here): 8 spines and 56 leaves, every leaf cabled to every spine, one single-NIC host per leaf.
By default spines 1-4 run Cumulus Linux (NVUE, ``swp1-64``), spines 5-6 Arista EOS (``Ethernet1/1-64/1``) and the
other two spines and every leaf SONiC (``Ethernet0-504``), all 400G, the PFC watchdog on. Before the first round
every switch's ``counters.json`` (the emulators' counter state, in each NOS's own terms) is seeded on EVERY
port of the intent with counters that rise from the seed on (``{"total", "per_second", "since"}``: PFC pause
frames both ways on the lossless priority, its queue's packets and bytes (and ECN marks where the NOS counts
them), FEC corrected codewords) and gauges (pre-FEC BER, each lane's receive power, the module's temperature), so
every read parses non-zero values and the totals move between rounds (the report counts the series that moved).

Each device is read through the watch package's own sources, the ones ``xoff watch --lab`` builds
(``xoff.api.watch``): ``SshCounterSource`` (each platform's ``watch.READER``: its counter, watchdog, FEC and optics
commands in one exec-channel batch per device, sessions kept across rounds; hosts: ``xoff.watch.host_readings``'s
ethtool, RDMA hw counters and NVML commands), and for ``--source gnmi`` ``SplitSource(GnmiCounterSource, ssh)``:
SONiC and Cumulus switches over gNMI (one Get / one STREAM subscription per switch per round, channels kept), EOS
and hosts over SSH as before. Both modes run in one process, one after the other, on the same lab.

A round reads each NOS's switches, then the hosts, each group one ``source.read(group)`` (16 reader threads, as
``xoff watch``'s default), then waits for the next 10 s tick; reading the groups one after the other (rather than
all devices in one call as ``xoff watch`` does) is what lets the CPU be told apart per NOS. The controller's CPU
is ``getrusage(RUSAGE_SELF)`` user + system (every thread of this process, SSH transport threads included) around
each group; the first round of each mode (logins, channels) is reported on its own and left out of the steady
state. The baseline is the SSH mode, measured in the same run.

Projection to 1,000 switches: steady-state CPU seconds per switch per round of each NOS, times 1,000, over the
interval = cores busy (linear: each switch is a separate request whose cost does not depend on the others;
logins are once per watcher start). ``--leaves`` smaller runs a smaller lab (the report says the size).

Runs as root (namespaces). ``python bench/watch_scale.py [--rounds 3] [--interval 10] [--leaves 56]
[--cumulus 4] [--eos 2] [--record FILE]``. Not part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from xoff.connect.credentials import load_credentials
from xoff.desired.models import FabricState
from xoff.lab import daemons
from xoff.lab.lab import up
from xoff.lab.provider import from_lab
from xoff.lab.teardown import down
from xoff.platforms.registry import get_platform
from xoff.watch.gnmi_source import GnmiCounterSource, targets_for
from xoff.watch.sample import CounterSource, Sample
from xoff.watch.split_source import SplitSource
from xoff.watch.ssh_source import SshCounterSource

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measured  # the results' commit line (bench/README.md, Freshness)
from fabric_text import qos_policies  # the benchmarks' shared intent text, beside this file

WORKERS = 16  # xoff watch's default --workers
TIMEOUT_S = 60.0  # xoff watch --timeout (default 20 s): a loaded 2-CPU lab answers a 193-command Cumulus batch slowly
PROJECT_TO = 1000
NOSES = ("sonic", "cumulus", "eos")
LOSSLESS = 3  # the shared policy's lossless priority (and its queue)
SPINE_PORTS = {"cumulus": "swp{1..64}", "eos": "Ethernet{1..64}/1"}  # SONiC: the role's Ethernet{0..504..8}

FABRIC = (
    """\
fabric: {{name: watch-{switches}, site: bench}}
networks:
  management: {{prefix: 198.19.128.0/22, gateway: 198.19.128.1}}
  compute:
    kind: roce
    qos_policy: rdma
    p2p_prefix: 198.18.0.0/21
    loopback_prefix: 198.18.255.0/24
    underlay: {{asn_plan: {{spine: 65100, leaf: 65101}}}}
"""
    + qos_policies(watchdog=True)
    + """\
defaults:
  switch: {{platform: sonic, asic: spectrum4}}
roles:
  spine: {{ports: [{{name: "Ethernet{{0..504..8}}", speed: 400G, use: downlink}}]}}
  leaf:
    ports:
      - {{name: "Ethernet{{0..248..8}}", speed: 400G, use: downlink}}
      - {{name: "Ethernet{{256..504..8}}", speed: 400G, use: uplink}}
switches:
{spines}
  - {{name: "leaf{{01..{leaves:02d}}}", role: leaf}}
cabling:
  - {{kind: leaf_spine, leaves: "leaf{{01..{leaves:02d}}}", spines: "spine{{1..{n_spines}}}"}}
host_profiles:
  one-nic:
    gpus: 1
    nic_model: connectx7
    nics: [{{netdev: eth0, rdma: mlx5_0, network: compute, rail: 0, gpu: 0, speed: 400G}}]
hosts:
  - {{name: "gpu{{01..{leaves:02d}}}", profile: one-nic}}
links:
{links}
"""
)
ASIC = {"sonic": "spectrum4", "cumulus": "spectrum4", "eos": "tomahawk5"}


def spine_nos(spines: int, cumulus: int, eos: int) -> list[str]:
    """Each spine's NOS, spine1 first: Cumulus, then EOS, then SONiC."""
    return (["cumulus"] * cumulus + ["eos"] * eos + ["sonic"] * spines)[:spines]


def generate(where: Path, spines: int, leaves: int, cumulus: int, eos: int) -> Path:
    rows = []
    for i, nos in enumerate(spine_nos(spines, cumulus, eos), 1):
        if nos == "sonic":
            rows.append(f"  - {{name: spine{i}, role: spine}}")
        else:
            rows.append(
                f"  - {{name: spine{i}, role: spine, platform: {nos}, asic: {ASIC[nos]}, "
                f'ports: [{{name: "{SPINE_PORTS[nos]}", speed: 400G, use: downlink}}]}}'
            )
    links = "\n".join(f'  - {{a: "gpu{h:02d}:eth0", b: "leaf{h:02d}:Ethernet0"}}' for h in range(1, leaves + 1))
    text = FABRIC.format(switches=spines + leaves, spines="\n".join(rows), leaves=leaves, n_spines=spines, links=links)
    path = where / "fabric.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# --- moving counters on every port, in each emulator's terms ------------------------------------------------------


def rising(per_second: float, total: int = 0, since: float = 0.0) -> dict[str, float]:
    return {"total": total, "per_second": per_second, "since": since}


def _sonic(ports: list[str], since: float) -> dict[str, Any]:
    pfc, queue, wd, fec, optics = {}, {}, {}, {}, {}
    for i, p in enumerate(ports):
        lossless = [0] * 8
        pfc[p] = {
            "rx": [*lossless[:LOSSLESS], rising(800 + i, 0, since), *lossless[LOSSLESS + 1 :]],
            "tx": [*lossless[:LOSSLESS], rising(50 + i, 0, since), *lossless[LOSSLESS + 1 :]],
        }
        queue[p] = {
            f"UC{LOSSLESS}": {
                "packets": rising(1e6, 0, since),
                "bytes": rising(4.096e9, 0, since),
                "drop_packets": 0,
                "drop_bytes": 0,
            }
        }
        wd[f"{p}:{LOSSLESS}"] = {"status": "operational", "storm_detected": 0, "storm_restored": 0}
        fec[p] = {
            "corr": rising(1000 + i, 0, since),
            "uncorr": 0,
            "symbol_err": rising(2000, 0, since),
            "pre_ber": {"value": 1e-8},
            "post_ber": {"value": 0.0},
        }
        optics[p] = {"rx_power": [{"value": -1.0}] * 8, "temperature": {"value": 45.0}}
    return {"pfc": pfc, "queue": queue, "pfcwd": wd, "fec": fec, "optics": optics}


def _cumulus(ports: list[str], since: float) -> dict[str, Any]:
    tc = str(LOSSLESS)
    pfc, queues, wd, fec, optics = {}, {}, {}, {}, {}
    for i, p in enumerate(ports):
        pfc[p] = {
            tc: {
                "rx-pause-frames": rising(800 + i, 0, since),
                "rx-pause-duration": rising(2000, 0, since),
                "tx-pause-frames": rising(50 + i, 0, since),
                "tx-pause-duration": rising(100, 0, since),
            }
        }
        queues[p] = {
            tc: {
                "tx-frames": rising(1e6, 0, since),
                "tx-bytes": rising(4.096e9, 0, since),
                "tx-uc-buffer-discards": 0,
                "wred-discards": 0,
                "ecn-marked-frames": rising(200, 0, since),
            }
        }
        wd[p] = {tc: {"deadlock-count": 0, "status": "OK"}}
        fec[p] = {"rs-num-corr-err-bin1": rising(1000 + i, 0, since), "effective-errors": 0, "raw-ber": {"value": 1e-8}}
        optics[p] = {"rx-power": [{"value": -1.0}] * 8, "temperature": {"value": 45.0}}
    return {"pfc": pfc, "queues": queues, "watchdog": wd, "fec": fec, "optics": optics}


def _eos(ports: list[str], since: float) -> dict[str, Any]:
    tc = str(LOSSLESS)
    pfc, queues, wd, ecn, fec, optics = {}, {}, {}, {}, {}, {}
    for i, p in enumerate(ports):
        pfc[p] = {tc: {"rxFrames": rising(800 + i, 0, since), "txFrames": rising(50 + i, 0, since)}}
        queues[p] = {
            tc: {
                "enqueuedPackets": rising(1e6, 0, since),
                "enqueuedBytes": rising(4.096e9, 0, since),
                "droppedPackets": 0,
                "droppedBytes": 0,
            }
        }
        wd[p] = {tc: {"stuckCount": 0, "recoveryCount": 0}}
        ecn[p] = {tc: {"ecnMarked": rising(200, 0, since)}}
        fec[p] = {
            "correctedCodewords": rising(1000 + i, 0, since),
            "uncorrectedCodewords": 0,
            "preFecBer": {"value": 1e-8},
        }
        optics[p] = {"rxPower": [{"value": -1.0}] * 8, "temperature": {"value": 45.0}}
    return {"pfc": pfc, "queues": queues, "watchdog": wd, "ecn": ecn, "fec": fec, "optics": optics}


SEEDS = {"sonic": _sonic, "cumulus": _cumulus, "eos": _eos}


def seed(lab_dir: Path, fabric: FabricState, switches: Sequence[str]) -> None:
    since = time.time()
    for name in switches:
        device = fabric.devices[name]
        ports = [p for p, i in device.interfaces.items() if i.kind == "ethernet"]
        path = daemons.state_dir(lab_dir, name) / "counters.json"
        path.write_text(json.dumps(SEEDS[device.platform](ports, since)), encoding="utf-8")


# --- the rounds ------------------------------------------------------------------------------------------------


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


@dataclass
class Phase:
    cpu_s: float
    wall_s: float
    errors: int
    values: int  # readings with a value
    moved: int = 0  # of those, series whose value changed since the previous round


@dataclass
class Mode:
    name: str
    first: dict[str, Phase] = field(default_factory=dict)  # group -> round 1 (logins, channels)
    rounds: list[dict[str, Phase]] = field(default_factory=list)  # steady state: group -> phase
    wall_s: float = 0.0
    overran: int = 0
    said: set[str] = field(default_factory=set)


Series = dict[tuple[str, str, tuple[tuple[str, str], ...]], float]


def read_group(source: CounterSource, names: list[str], last: Series, mode: Mode) -> Phase:
    c0, t0 = cpu(), time.perf_counter()
    samples: list[Sample] = source.read(names)
    phase = Phase(cpu() - c0, time.perf_counter() - t0, 0, 0)
    for s in samples:
        if s.error is not None:
            phase.errors += 1
            if s.device not in mode.said:  # said once per device and mode on stderr
                mode.said.add(s.device)
                print(f"watch_scale: {mode.name}: {s.device}: {s.error[:300]}", file=sys.stderr, flush=True)
        for r in s.readings:
            if r.value is None:
                continue
            phase.values += 1
            key = (s.device, r.metric, r.labels)
            phase.moved += key in last and last[key] != r.value
            last[key] = r.value
    return phase


def source_for(mode: str, lab: str) -> tuple[CounterSource, SshCounterSource, GnmiCounterSource | None]:
    """The source ``xoff watch --lab LAB --source MODE`` builds (``xoff.api.watch._device_source``)."""
    conn = from_lab(lab)
    creds = load_credentials(conn.secrets_file)
    ssh = SshCounterSource(conn.fabric, creds, known_hosts=conn.known_hosts, timeout_s=TIMEOUT_S, workers=WORKERS)
    if mode == "ssh":
        return ssh, ssh, None
    targets = targets_for(conn.fabric, creds)
    gnmi = GnmiCounterSource(targets, timeout=TIMEOUT_S, workers=WORKERS)
    return SplitSource(gnmi, set(targets), ssh), ssh, gnmi


def run_mode(name: str, lab: str, groups: dict[str, list[str]], rounds: int, interval: float) -> Mode:
    mode = Mode(name)
    source, ssh, gnmi = source_for(name, lab)
    last: Series = {}
    try:
        tick = start = time.perf_counter()
        for r in range(rounds + 1):
            t0 = time.perf_counter()
            got = {g: read_group(source, names, last, mode) for g, names in groups.items() if names}
            if r == 0:
                mode.first = got
                tick = start = time.perf_counter()  # the steady state starts after the first round
                continue
            mode.rounds.append(got)
            mode.overran += time.perf_counter() - t0 > interval
            tick = max(tick + interval, time.perf_counter())  # a round that overran starts the next at once
            time.sleep(max(0.0, tick - time.perf_counter()))
        mode.wall_s = tick - start
    finally:
        ssh.close()
        if gnmi is not None:
            gnmi.close()
    return mode


# --- the report ------------------------------------------------------------------------------------------------

BEFORE = """\
## Before: commit 5ccab49 (2026-12-02 15:33 UTC), SONiC only, fixed counters, the bench's own loop

64 SONiC switches with fixed totals (nothing moved between rounds), read by the bench's own loop (SONiC parsers
on `show pfc counters`, `show queue counters`, `show pfcwd stats`; no FEC or optics), 56 hosts read with one
`mlnx_qos` each; load average 17 to 29 during that run (other sessions' labs beside it).

| mode | round 1 CPU / wall s (logins) | switch CPU s / round | host CPU s / round | switch wall s (median) | host wall s (median) | rounds over the interval | controller CPU share | switch CPU ms / switch / round | errors |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| ssh | 10.00 / 18.21 | 14.552 | 1.656 | 45.54 | 30.45 | 3 | 0.171 | 227.37 | 62 |
| gnmi | 1.20 / 22.74 | 5.802 | 0.536 | 57.70 | 2.49 | 2 | 0.025 | 90.65 | 10 |

Projected then: 22.74 cores (SSH) and 9.07 cores (gNMI) at 1,000 switches every 10 s.
"""


def _commands(fabric: FabricState, names: list[str]) -> int:
    """SSH commands one read of the first of ``names`` runs (the platform's watch reader)."""
    device = fabric.devices[names[0]]
    if device.kind == "host":
        from xoff.watch.host_readings import host_commands  # noqa: PLC0415

        return len(host_commands(device))
    record = get_platform(device.platform).watch
    assert record is not None
    return len(record.load().commands(device))


def report(
    modes: dict[str, Mode],
    args: argparse.Namespace,
    groups: dict[str, list[str]],
    fabric: FabricState,
    up_s: float,
    load_start: tuple[float, ...],
) -> str:
    rows, per_switch = [], {}
    for m in modes.values():
        for g, names in groups.items():
            if not names:
                continue
            steady = [r[g] for r in m.rounds]
            cpu_round = statistics.mean(p.cpu_s for p in steady)
            per = cpu_round / len(names)
            per_switch[(m.name, g)] = per
            way = "gNMI" if m.name == "gnmi" and g in ("sonic", "cumulus") else "SSH"
            requests = "1 request" if way == "gNMI" else f"{_commands(fabric, names)} commands"
            last = steady[-1]
            rows.append(
                f"| {m.name} | {g} ({way}) | {len(names)} | {requests} | {m.first[g].cpu_s:.2f} / "
                f"{m.first[g].wall_s:.2f} | {cpu_round:.3f} | {1000 * per:.1f} | "
                f"{statistics.median(p.wall_s for p in steady):.2f} | {sum(p.errors for p in steady)} | "
                f"{last.values} | {last.moved} |"
            )
    totals = []
    for m in modes.values():
        spent = sum(p.cpu_s for r in m.rounds for p in r.values())
        totals.append(f"| {m.name} | {spent / m.wall_s:.3f} | {m.overran} of {len(m.rounds)} | {m.wall_s:.1f} |")
    switches = {g: n for g, n in groups.items() if g != "host" and n}
    ratios = [
        f"| {g} | {1000 * per_switch[('ssh', g)]:.1f} | {1000 * per_switch[('gnmi', g)]:.1f} | "
        f"{per_switch[('gnmi', g)] / per_switch[('ssh', g)]:.2f} |"
        for g in switches
        if ("ssh", g) in per_switch and ("gnmi", g) in per_switch
    ]
    projection = []
    for mode_name in modes:
        cells = [f"{per_switch[(mode_name, g)] * PROJECT_TO / args.interval:.2f}" for g in switches]
        spent = sum(per_switch[(mode_name, g)] * len(n) for g, n in switches.items())
        mix = spent / sum(len(n) for n in switches.values())
        projection.append(f"| {mode_name} | {' | '.join(cells)} | {mix * PROJECT_TO / args.interval:.2f} |")
    load_end = os.getloadavg()
    mix_text = ", ".join(f"{len(n)} {g}" for g, n in groups.items() if n)
    lines = [
        f"# watch_scale: counters of a {sum(len(n) for g, n in switches.items())}-switch, {len(groups['host'])}-host "
        f"lab every {args.interval:g} s, as xoff watch reads them: SSH against gNMI",
        "",
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- command: `python bench/watch_scale.py --rounds {args.rounds} --interval {args.interval:g} "
        f"--spines {args.spines} --leaves {args.leaves} --cumulus {args.cumulus} --eos {args.eos}`",
        f"- machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        f"- load average (1, 5, 15 min): at the start {', '.join(f'{x:.1f}' for x in load_start)}; at the end "
        f"{', '.join(f'{x:.1f}' for x in load_end)}",
        f"- devices: {mix_text}; every port of the intent seeded with rising counters (PFC both ways, the lossless "
        "queue, ECN where counted, FEC) and gauges (BER, receive power per lane, temperature)",
        f"- lab up (not timed below): {up_s:.1f} s; {WORKERS} reader threads; read timeout {TIMEOUT_S:g} s per "
        f"device; {args.rounds} steady-state rounds per mode after a first round (logins)",
        "- hosts: their counters are the lab's shims at rest (not seeded here), so their values do not move",
        "",
        "| mode | group (read over) | devices | per device per round | round 1 CPU / wall s | CPU s / round | "
        "CPU ms / device / round | wall s (median) | errors | values read (last round) | values moved since "
        "the round before |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "| mode | controller CPU share (steady state) | rounds over the interval | steady-state wall s |",
        "|---|---:|---:|---:|",
        *totals,
        "",
        "gNMI / SSH, controller CPU per switch per round (baseline: SSH, same run; EOS is SSH in both modes):",
        "",
        "| NOS | SSH ms | gNMI ms | ratio |",
        "|---|---:|---:|---:|",
        *ratios,
        "",
        f"Projected to {PROJECT_TO:,} switches read every {args.interval:g} s: cores busy = CPU per switch per round "
        f"x {PROJECT_TO:,} / interval (linear; hosts and logins left out); *this mix*: the lab's switches' mix.",
        "",
        f"| mode | {' | '.join(f'all {g}' for g in switches)} | this mix |",
        f"|---|{'---:|' * (len(switches) + 1)}",
        *projection,
        "",
        "*CPU*: user + system CPU of the controller process (all its threads) around each group's read; the lab's",
        "servers (SSH emulators, gNMI servers) run in other processes on the same machine and are not counted;",
        "on a 2-CPU machine they compete with the controller for the cores, so wall times are pessimistic. gNMI",
        "reads the QoS counters only (SONiC's COUNTERS_DB Get, Cumulus' QoS subscription): FEC and optics are",
        "read over SSH alone, hence fewer values in the gNMI rows.",
        "",
        BEFORE,
    ]
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--interval", type=float, default=10.0)
    ap.add_argument("--spines", type=int, default=8)
    ap.add_argument("--leaves", type=int, default=56)
    ap.add_argument("--cumulus", type=int, default=4, help="spines running Cumulus Linux (spine1 on)")
    ap.add_argument("--eos", type=int, default=2, help="spines running EOS (after the Cumulus ones)")
    ap.add_argument("--modes", default="ssh,gnmi")
    ap.add_argument("--record", type=Path)
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("watch_scale: needs root (network namespaces)")
    load_start = os.getloadavg()
    print(f"watch_scale: load average at the start {load_start}", file=sys.stderr, flush=True)
    lab = f"w{os.getpid() % 100000}-watch"
    root = Path(tempfile.mkdtemp(prefix="xw", dir="/tmp"))
    root.chmod(0o755)
    os.environ["XOFF_LAB_DIR"] = str(root)
    try:
        intent = generate(root, args.spines, args.leaves, args.cumulus, args.eos)
        t0 = time.perf_counter()
        up(intent, lab, remap_addresses=True)
        up_s = time.perf_counter() - t0
        conn = from_lab(lab)
        fabric = conn.fabric
        groups: dict[str, list[str]] = {nos: [] for nos in NOSES}
        groups["host"] = []
        for n, d in sorted(fabric.devices.items()):
            groups["host" if d.kind == "host" else d.platform].append(n)
        seed(conn.lab_dir, fabric, [n for g in NOSES for n in groups[g]])
        modes = {}
        for name in args.modes.split(","):
            print(f"watch_scale: {name} ...", file=sys.stderr, flush=True)
            modes[name] = run_mode(name, lab, groups, args.rounds, args.interval)
        text = report(modes, args, groups, fabric, up_s, load_start)
        print(text)
        if args.record:
            measured.record(args.record, text)
    finally:
        down(lab)


if __name__ == "__main__":
    main()
