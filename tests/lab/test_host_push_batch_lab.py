"""The host push's scripts against real iproute2 and the NIC tool shims (issue 14): lab-mini gpu1 at
factory in a namespace this test creates, read once, changed by the change script computed from that
read, read again: nothing differs and no prerequisite fails; read once more, nothing to write. Every NIC
tool call is counted (a logging wrapper in front of each shim): the change costs about one call per NIC
and knob group, not one per value, and a drift of one value costs one call.

Addresses live only inside the namespace (lab-mini's 198.18.0.0/15 rails); it is deleted afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.support.rail_netns import rail_namespace
from tests.support.shim_host import ShimHost, fabric
from xoff.platforms.linux.apply import change_script, verify_problems, verify_script
from xoff.platforms.linux.observe import SNAPSHOT_SCRIPT, dumps, parse_snapshot
from xoff.platforms.linux.render import render
from xoff.platforms.linux.writes import MARK

pytestmark = pytest.mark.lab
TOOLS = ("mlnx_qos", "cma_roce_mode", "cma_roce_tos", "lspci")


class CountedHost:
    """gpu1's shims behind wrappers that log each call; scripts run as a lab host's SSH session runs them."""

    def __init__(self, tmp: Path, netns: str) -> None:
        self.host = ShimHost(tmp / "gpu1")
        self.netns = netns
        self.log = tmp / "calls.log"
        self.log.write_text("", encoding="utf-8")
        self.bin = tmp / "counted"
        self.bin.mkdir()
        for tool in TOOLS:
            wrapper = self.bin / tool
            wrapper.write_text(f'#!/bin/sh\necho "{tool} $*" >>{self.log}\nexec {self.host.bin / tool} "$@"\n')
            wrapper.chmod(0o755)

    def bash(self, script: str) -> tuple[int, str, str]:
        env = {**self.host.env(), "XOFF_HOST_ROOT": str(self.host.root)}
        env["PATH"] = f"{self.bin}:{env['PATH']}"
        cmd = ["ip", "netns", "exec", self.netns, "env", "-i", *(f"{k}={v}" for k, v in env.items()), "bash", "-s"]
        done = subprocess.run(cmd, input=script, capture_output=True, text=True, timeout=300, check=False)
        return done.returncode, done.stdout, done.stderr

    def calls(self) -> list[str]:
        lines = self.log.read_text(encoding="utf-8").splitlines()
        self.log.write_text("", encoding="utf-8")
        return lines

    def read(self) -> str:
        status, out, err = self.bash(SNAPSHOT_SCRIPT)
        assert status == 0, err
        return dumps(parse_snapshot(out))


def test_change_script_converges_in_a_call_per_nic_and_a_drift_costs_one(tmp_path: Path) -> None:
    state = fabric("lab-mini")
    desired = render(state.devices["gpu1"], state)
    with rail_namespace(f"xofftest-hostbatch-{os.getpid()}", ["eth0", "eth1", "eth2"]) as netns:
        host = CountedHost(tmp_path, netns)
        backup = host.read()
        assert Counter(c.split()[0] for c in host.calls()) == {"mlnx_qos": 3, "cma_roce_mode": 3, "cma_roce_tos": 3}

        script = change_script(backup, desired)
        status, out, err = host.bash(script)
        assert (status, out, err) == (0, "xoff-host-apply: done\n", "")
        calls = host.calls()
        # per NIC: cable length + PFC + trust in one call, the DSCP map in one; the ToS (the mode is right)
        assert Counter(c.split()[0] for c in calls) == {"mlnx_qos": 6, "cma_roce_tos": 3}, calls
        assert "mlnx_qos -i eth2 --cable_len 5 --pfc 0,0,0,0,1,0,0,0 --trust dscp" in calls

        status, out, err = host.bash(verify_script(desired))
        assert verify_problems(status, out, err, desired) == []
        assert [c.split()[0] for c in host.calls()].count("lspci") == 1

        assert change_script(host.read(), desired) == ""  # the second push: one read, nothing to write
        host.calls()

        host.host.ok("mlnx_qos", "-i", "eth1", "--pfc", "0,0,0,0,0,0,0,0")  # drift made with the tool
        script = change_script(host.read(), desired)
        host.calls()
        assert [ln.strip() for ln in script.split(MARK)[1].splitlines() if ln.startswith("\t")] == [
            "mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0 >/dev/null"
        ]
        assert host.bash(script)[0] == 0
        assert host.calls() == ["mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0"]
        assert json.loads(host.read())["qos"]["eth1"]["pfc"] == "0,0,0,1,0,0,0,0"


def test_a_failing_step_stops_the_script_with_its_line(tmp_path: Path) -> None:
    state = fabric("lab-mini")
    desired = render(state.devices["gpu1"], state)
    with rail_namespace(f"xofftest-hostbatchf-{os.getpid()}", ["eth0", "eth1", "eth2"]) as netns:
        host = CountedHost(tmp_path, netns)
        blocker = host.host.root / "etc" / "xoff"
        blocker.parent.mkdir(parents=True, exist_ok=True)
        blocker.write_text("not a directory\n", encoding="utf-8")
        status, _, err = host.bash(change_script(host.read(), desired))
        assert status == 3, err
        assert err.splitlines()[-1] == "xoff-host-apply: failed: could not change /etc/xoff/nccl.env", err
