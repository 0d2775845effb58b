"""The lab's InfiniBand hosts answer ``ibstat`` / ``sminfo`` over their sshd: ``lab up`` writes a wrapper of
each first on the host's PATH that runs the real infiniband-diags tool in ibsim's namespace, attached through
umad2sim at that host's HCA (the lab test that reads them over SSH: tests/lab/test_fault_suite_ib.py)."""

from __future__ import annotations

import shlex

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.lab.ibsim import HOST_DIAGS, UMAD2SIM, host_diag_wrappers, host_nodes, topology


def test_every_host_attaches_at_its_own_hca() -> None:
    fabric = build_fabric_state(load_intent(ROOT / "tests" / "fixtures" / "intents" / "ib-ring"))
    topo = topology(fabric)
    nodes = host_nodes(topo)
    assert sorted(nodes) == ["gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "sm01"]
    assert nodes["sm01"] == topo.sm_node
    assert len(set(nodes.values())) == len(nodes)  # no two hosts on one simulated HCA


def test_wrapper_runs_the_real_tool_in_ibsims_namespace() -> None:
    scripts = host_diag_wrappers("/run/netns/xl-lab-sm01", "H-0002c90400000002", "gpu3")
    assert sorted(scripts) == sorted(HOST_DIAGS) == ["ibstat", "sminfo"]
    for tool, text in scripts.items():
        assert text.startswith("#!/bin/sh\n")
        argv = shlex.split(text.splitlines()[-1])
        assert argv[:4] == ["exec", "nsenter", "--net=/run/netns/xl-lab-sm01", "--"]
        assert argv[4:7] == ["env", f"LD_PRELOAD={UMAD2SIM}", "SIM_HOST=H-0002c90400000002"]
        assert argv[7].endswith(f"/{tool}") and argv[7].startswith("/")  # the real binary, not the wrapper
        assert argv[8:] == ["$@"]
