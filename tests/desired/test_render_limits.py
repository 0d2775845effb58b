"""What a platform cannot render is refused when the plan is built: one located line, exit 2, never a traceback.

Each case edits one field of lab-mini (spine2 is EOS, sleaf1 is Cumulus) into something the intent allows but the
switch's platform has no command for (its record's ``render_limits``); the plan must name that field's place.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.eos_cli_helpers import as_eos_shows, make_cli
from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.platforms.limits import RenderLimits
from xoff.render import render_fabric

LAB_MINI = ROOT / "inventory" / "lab-mini"
EOS_PORTS = 'ports: [{name: "Ethernet{1..4}/1", speed: 400G, use: downlink}]}'
SWP_PORTS = 'ports: [{name: "swp{1..8}", speed: 100G, use: downlink}]}'
ROCE = "        dscp: [26]\n        priority: 3\n"

# (case, file, text, replacement, the one problem's "file:line: path", what its message says)
REFUSED = [
    (
        "eos-queue-not-tc",  # Juniper Apstra's DCQCN configlet: DSCP 26 -> no-loss queue 4, PFC priority 3
        "qos.yaml",
        ROCE,
        ROCE + "        queue: 4\n",
        "qos.yaml:10: qos_policies.rdma.classes.roce.queue",
        "Arista EOS (spine2): queue 4 differs from traffic class 3",
    ),
    (
        "eos-lossless-priority-not-tc",
        "qos.yaml",
        ROCE,
        ROCE + "        traffic_class: 4\n",
        "qos.yaml:10: qos_policies.rdma.classes.roce.traffic_class",
        "lossless priority 3 is in traffic class 4",
    ),
    (
        "eos-watchdog-forward",
        "qos.yaml",
        "action: drop}",
        "action: forward}",
        "qos.yaml:22: qos_policies.rdma.pfc_watchdog.action",
        "PFC watchdog action 'forward' has no equivalent on this platform (allowed: drop)",
    ),
    (
        "eos-watchdog-5ms-step",
        "qos.yaml",
        "detection_ms: 200",
        "detection_ms: 205",
        "qos.yaml:22: qos_policies.rdma.pfc_watchdog.detection_ms",
        "205 ms cannot be written on this platform (allowed: a multiple of 10 ms)",
    ),
    (
        "eos-speed-1g",
        "devices.yaml",
        EOS_PORTS,
        EOS_PORTS[:-2] + ', {name: "Ethernet9/1", speed: 1G}]}',
        "devices.yaml:19: switches[1].ports",
        "port Ethernet9/1 speed 1G has no keyword on this platform",
    ),
    (
        "cumulus-pfc-cable-0m",
        "cabling.yaml",
        '{a: "gpu3:eth2", b: "sleaf1:swp3", length: 10}',
        '{a: "gpu3:eth2", b: "sleaf1:swp3", length: 0}',
        "cabling.yaml:9: links[2].length",
        "NVIDIA Cumulus Linux (NVUE) (sleaf1): port swp3 has PFC on a 0 m cable (allowed: at least 1 m)",
    ),
    (
        "cumulus-whole-and-broken-out",
        "devices.yaml",
        SWP_PORTS,
        SWP_PORTS[:-2] + ', {name: "swp1s1", speed: 25G}]}',
        "devices.yaml:22: switches[3].ports",
        "swp1 is used whole and broken out at the same time",
    ),
    (
        "cumulus-nine-sub-ports",
        "devices.yaml",
        SWP_PORTS,
        SWP_PORTS[:-2] + ', {name: "swp9s{0..8}", speed: 25G}]}',
        "devices.yaml:22: switches[3].ports",
        "swp9 has 9 sub-ports (allowed: at most 8)",
    ),
    (
        "cumulus-max-paths",
        "fabric.yaml",
        "      asn_plan: {leaf: 65201}\n",
        "      asn_plan: {leaf: 65201}\n      max_paths: 200\n",
        "fabric.yaml:29: networks.storage.underlay.max_paths",
        "200 ECMP paths (allowed: at most 128 on this platform)",
    ),
    (
        "linux-rdma-name-with-a-dash",
        "devices.yaml",
        "{netdev: eth2, rdma: mlx5_2",
        "{netdev: eth2, rdma: mlx5-2",
        "devices.yaml:30: host_profiles.gpu-2rail.nics",
        "(gpu1, gpu2, gpu3 and 1 more): rdma name 'mlx5-2' cannot be printed into the host's scripts",
    ),
    (
        "cumulus-two-priorities-in-one-tc",
        "qos.yaml",
        "      bulk:\n        priority: 0\n        scheduler: {type: dwrr, weight: 40}\n",
        "      bulk:\n        priority: 0\n        scheduler: {type: dwrr, weight: 40}\n"
        "      scavenger:\n        dscp: [8]\n        priority: 1\n        traffic_class: 0\n"
        "        scheduler: {type: dwrr, weight: 40}\n",
        "qos.yaml:43: qos_policies.storage.classes.scavenger.priority",
        "traffic class 0 carries priority 0 (class bulk) and 1",
    ),
    (
        "cumulus-dwrr-over-100",
        "qos.yaml",
        "scheduler: {type: dwrr, weight: 60}",
        "scheduler: {type: dwrr, weight: 90}",
        "qos.yaml:28: qos_policies.storage.classes",
        "DWRR weights add up to 130, and this platform takes them as percentages (allowed: a total of at most 100)",
    ),
]


def edited(tmp_path: Path, file: str, old: str, new: str) -> Path:
    intent = tmp_path / "intent"
    shutil.copytree(LAB_MINI, intent)
    text = (intent / file).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    (intent / file).write_text(text.replace(old, new), encoding="utf-8")
    return intent


@pytest.mark.parametrize(("case", "file", "old", "new", "where", "what"), REFUSED, ids=[c[0] for c in REFUSED])
def test_the_plan_refuses_with_one_located_line(
    tmp_path: Path, case: str, file: str, old: str, new: str, where: str, what: str
) -> None:
    intent = edited(tmp_path, file, old, new)
    with pytest.raises(InputError) as err:
        build_fabric_state(load_intent(intent))
    (line,) = err.value.render().splitlines()
    file_line, path = where.split(": ")
    assert line.startswith(f"{intent / file_line}:"), line  # then the column: the CLI case checks one
    assert f": {path}: " in line and what in line, case


def xoff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XOFF_SWITCH_USERNAME": "admin", "XOFF_SWITCH_PASSWORD": "not-used"}
    env["PYTHONPATH"] = str(ROOT / "src")
    return subprocess.run(
        [sys.executable, "-m", "xoff", *args], capture_output=True, text=True, cwd=cwd, check=False, env=env
    )


@pytest.mark.parametrize("command", ["check", "plan", "render", "push"])
def test_every_command_stops_with_the_line_and_exit_2(tmp_path: Path, command: str) -> None:
    """The Apstra-style map (priority 3 in queue 4) on lab-mini's EOS spine: nothing rendered, nothing pushed."""
    intent = edited(tmp_path, *REFUSED[0][1:4])
    extra = {
        "render": ["-o", str(tmp_path / "out")],
        "push": ["--dry-run", "--known-hosts", "/dev/null", "--backup-dir", str(tmp_path / "backups")],
    }.get(command, [])
    r = xoff(command, str(intent), *extra, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [
        f"{intent / 'qos.yaml'}:10:16: qos_policies.rdma.classes.roce.queue: Arista EOS (spine2): queue 4 differs"
        " from traffic class 3, and this platform sends traffic class N to queue N (allowed: queue 3, or leave"
        " queue out)"
    ]
    assert not (tmp_path / "out").exists() and not (tmp_path / "backups").exists()


def test_a_lossy_class_in_another_traffic_class_renders_and_eos_takes_it(tmp_path: Path) -> None:
    """Only lossless priorities must equal their traffic class on EOS: a lossy class whose priority 0 sits in
    traffic class 1 is classification only (``qos map dscp ... to traffic-class 1``), which EOS has. It used to
    fail the renderer's identity check on the whole priority -> queue map; the emulator takes the result."""
    bulk = "      bulk:\n        priority: 0\n"
    rdma_bulk = bulk + "        scheduler: {type: dwrr, weight: 50}\n"  # the compute policy's, which spine2 uses
    intent = edited(tmp_path, "qos.yaml", rdma_bulk, rdma_bulk.replace(bulk, bulk + "        traffic_class: 1\n"))
    state = build_fabric_state(load_intent(intent))
    (f,) = [f for f in render_fabric(state, devices=["spine2"]) if f.name == "running-config"]
    assert "qos map dscp 26 to traffic-class 3\n" in f.content
    assert "0 1 2 3 4 5 6 7 8 9 10 " in f.content  # the default class's DSCPs, now to traffic class 1
    cli = make_cli(tmp_path / "state", device="factory-name")
    (tmp_path / "state" / "files" / "mnt" / "flash" / "x.cfg").write_text(f.content, encoding="utf-8")
    cli.quiet("enable", "configure replace flash:x.cfg")
    assert cli.run("show running-config") == as_eos_shows(f.content, "spine2")


@pytest.mark.parametrize(
    ("limits", "summary"),
    [
        (RenderLimits(), "none"),
        (
            RenderLimits(queue_is_traffic_class=True, watchdog_actions=("drop",), port_speeds_mbps=(400_000,)),
            "queue = traffic class, watchdog action drop, port speeds 400G",
        ),
    ],
)
def test_limits_summary(limits: RenderLimits, summary: str) -> None:
    assert limits.summary() == summary
