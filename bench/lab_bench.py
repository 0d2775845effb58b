"""What the lab benchmarks share: the head of their generated intents and the lab's set-up around a run.

The intent text is brace-escaped (``{{`` ``}}``) like ``fabric_text``'s: each benchmark fills its template with
``str.format``. ``fabric_text.py`` itself stays as it is: ``watch_scale.md`` measures it (bench/README.md, Freshness).
"""

from __future__ import annotations

import os
import platform
import subprocess
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from fabric_text import qos_policies
from xoff.lab.lab import resolve
from xoff.lab.observe import bgp_sessions

ROOT = Path(__file__).resolve().parents[1]

_HEAD = """\
fabric: {{name: <name>, site: bench}}
networks:
  management: {{prefix: 198.19.128.0/22, gateway: 198.19.128.1}}
  compute:
    kind: roce
    qos_policy: rdma
    p2p_prefix: <p2p>
    loopback_prefix: 198.18.255.0/24
    underlay: {{asn_plan: {{<asn_plan>}}}}
"""

ONE_NIC_PROFILE = """\
host_profiles:
  one-nic:
    gpus: 1
    nic_model: connectx7
    nics: [{{netdev: eth0, rdma: mlx5_0, network: compute, rail: 0, gpu: 0, speed: 400G}}]
"""

_SONIC = """\
defaults:
  switch: {{platform: sonic, asic: spectrum4}}
roles:
"""
_PORTS = {  # 64 x 400G: every port down, or half down and half up
    "down": """\
  <role>: {{ports: [{{name: "Ethernet{{0..504..8}}", speed: 400G, use: downlink}}]}}
""",
    "split": """\
  <role>:
    ports:
      - {{name: "Ethernet{{0..248..8}}", speed: 400G, use: downlink}}
      - {{name: "Ethernet{{256..504..8}}", speed: 400G, use: uplink}}
""",
}


def intent_head(name: str, p2p_prefix: str, asn_plan: str, *, watchdog: bool = False) -> str:
    """``fabric:``, ``networks:`` (a RoCE compute network in 198.18.0.0/15) and the shared QoS policy, as template
    text. ``name`` goes in as it is, so it may hold the caller's own fields (``bench-{switches}``); ``asn_plan`` is
    the body of the YAML flow mapping (``spine: 65100, leaf: 65101``)."""
    head = _HEAD.replace("<name>", name).replace("<p2p>", p2p_prefix).replace("<asn_plan>", asn_plan)
    return head + qos_policies(watchdog=watchdog)


def sonic_roles(*roles: tuple[str, str]) -> str:
    """``defaults:`` (SONiC on Spectrum-4) and ``roles:``, in the order given: (role, ``"down"`` for 64 x 400G
    downlinks or ``"split"`` for 32 down and 32 up)."""
    return _SONIC + "".join(_PORTS[ports].replace("<role>", role) for role, ports in roles)


def private_lab_dir(prefix: str) -> Path:
    """A fresh work directory in /tmp whose ``labs`` is made ``XOFF_LAB_DIR``, so the run touches no other lab; the
    run's own files go beside ``labs``. Short (FRR's socket paths) and world-traversable (FRR runs as user frr)."""
    work = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    work.chmod(0o755)
    os.environ["XOFF_LAB_DIR"] = str(work / "labs")
    return work


def wait_bgp(lab: str, timeout_s: float, poll_s: float = 0.1) -> tuple[float, int]:
    """Seconds until every BGP session of the lab's switches is Established, and how many sessions there are."""
    state = resolve(lab)
    switches = [d for d, r in state.devices.items() if r.kind == "switch"]
    t0 = time.perf_counter()
    while True:
        sessions = [s for d in switches for s in bgp_sessions(state, d)]
        if sessions and all(s.state == "Established" for s in sessions):
            return time.perf_counter() - t0, len(sessions)
        if time.perf_counter() - t0 > timeout_s:
            raise SystemExit(f"{lab}: BGP not all Established after {timeout_s:.0f} s")
        time.sleep(poll_s)


def run_lines(command: str) -> list[str]:
    """A report's date, short commit, command and machine lines."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT, check=False
    )
    return [
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code: `{commit.stdout.strip() or '?'}`",
        f"- command: `{command}`",
        f"- machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
    ]
