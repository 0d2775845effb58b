"""A git repository of an intent with four pull-request branches, each one commit off ``main``:

- ``dscp``: DSCP 26 leaves the lossless class ``roce`` (the RoCE class marks 24, 26 goes to ``bulk``);
- ``cable``: the leaf-spine cables shortened to 3 m; Spectrum-4's and Tomahawk 5's tables have no 3 m row, so
  the commit adds the site row the plan needs, sized as xoff alone (size below xon + xoff: the PG's headroom is
  short of what it must hold, ``lossless.headroom``);
- ``static``: each leaf gets a /32 static route for its own host's address up to a spine (the bounce of
  ``tests/fixtures/intents/lab-mini-static``): a cyclic buffer dependency;
- ``rack``: a rack added (leaf3 cabled to both spines after the existing cabling, hosts gpu5 and gpu6 on it).

``main`` is ``inventory/lab-mini`` with room on the spines for a third leaf, under ``intent/``; a bare ``origin``
holds every branch (so ``git fetch origin main`` and ``origin/main...HEAD`` work as in CI).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.support.paths import INVENTORY

BRANCHES = ("dscp", "cable", "static", "rack")
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "xoff test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "xoff test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "PATH": "/usr/bin:/bin:/usr/local/bin",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=_GIT_ENV, check=True)
    return done.stdout.strip()


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name}: {old!r} not found"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _base(intent: Path) -> None:
    shutil.copytree(INVENTORY / "lab-mini", intent)
    devices = intent / "devices.yaml"
    _edit(
        devices,
        '  spine:\n    ports:\n      - {name: "Ethernet{0..24..8}"',
        '  spine:\n    ports:\n      - {name: "Ethernet{0..56..8}"',
    )
    _edit(devices, "Ethernet{1..4}/1", "Ethernet{1..8}/1")


def _dscp(intent: Path) -> None:
    qos = intent / "qos.yaml"
    _edit(qos, "dscp: [26]", "dscp: [24]")
    _edit(qos, "      bulk:\n        priority: 0", "      bulk:\n        dscp: [26]\n        priority: 0")


def _cable(intent: Path) -> None:
    qos = intent / "qos.yaml"
    _edit(qos, "leaf_spine: 40", "leaf_spine: 3")
    _edit(
        qos,
        "buffers: {model: static}",
        "buffers:\n      model: static\n      headroom_rows:\n"
        "        - {speed: 400G, cable: 3m, xon: 18432, xoff: 40960, size: 40960}",
    )


def _static(intent: Path) -> None:
    devices = intent / "devices.yaml"
    _edit(
        devices,
        '  - {name: "leaf{1..2}", role: leaf, mgmt: 198.19.252.21}',
        "  - {name: leaf1, role: leaf, mgmt: 198.19.252.21, static_routes: [{prefix: 198.18.0.9/32, via: spine1}]}\n"
        "  - {name: leaf2, role: leaf, mgmt: 198.19.252.22, static_routes: [{prefix: 198.18.0.11/32, via: spine2}]}",
    )


def _rack(intent: Path) -> None:
    devices, cabling = intent / "devices.yaml", intent / "cabling.yaml"
    _edit(devices, "  - {name: sleaf1", "  - {name: leaf3, role: leaf, mgmt: 198.19.252.23}\n  - {name: sleaf1")
    _edit(
        devices,
        "\nhosts:\n",
        "  gpu-compute:\n    gpus: 2\n    gpu_model: H100\n    nic_model: connectx7\n    nics:\n"
        "      - {netdev: eth0, rdma: mlx5_0, network: compute, rail: 0, gpu: 0, speed: 400G}\n\nhosts:\n",
    )
    with devices.open("a", encoding="utf-8") as f:
        f.write('  - {name: "gpu{5..6}", profile: gpu-compute, mgmt: 198.19.252.105, bmc: 198.19.252.205, unit: 2}\n')
    _edit(
        cabling,
        '  - {kind: rail_optimized, hosts: "gpu{1..4}", leaves: [leaf1, leaf2]}\n',
        '  - {kind: rail_optimized, hosts: "gpu{1..4}", leaves: [leaf1, leaf2]}\n'
        '  - {kind: leaf_spine, leaves: leaf3, spines: "spine{1..2}"}\n'
        '  - {kind: rail_optimized, hosts: "gpu{5..6}", leaves: [leaf3]}\n',
    )


_CHANGES = {"dscp": _dscp, "cable": _cable, "static": _static, "rack": _rack}


def make_repo(root: Path) -> Path:
    """``root/work`` (a clone of ``root/origin.git``) on ``main``, with the four branches pushed; returns the clone."""
    origin, work = root / "origin.git", root / "work"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True, env=_GIT_ENV)
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True, env=_GIT_ENV)
    _base(work / "intent")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "lab-mini with room for a third leaf")
    git(work, "remote", "add", "origin", str(origin))
    for branch, change in _CHANGES.items():
        git(work, "checkout", "-q", "-b", branch, "main")
        change(work / "intent")
        git(work, "commit", "-qam", f"{branch}")
    git(work, "checkout", "-q", "main")
    git(work, "push", "-q", "origin", "main", *BRANCHES)
    git(work, "fetch", "-q", "origin")
    return work
