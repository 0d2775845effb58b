"""ib-pod's lab: ibsim holds the InfiniBand fabric generated from the intent, the real OpenSM on the
subnet manager host routes it with the rendered files, and infiniband-diags run through ``lab exec``
on that host read back routes to every host's HCA."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.paths import ROOT
from xoff.desired.ib_guids import hca_port_guids
from xoff.desired.models import FabricState
from xoff.lab import names, netns, processes
from xoff.lab.cli import lab_app
from xoff.lab.lab import LabError, UpReport, resolve, up
from xoff.lab.state import FABRIC_FILE, LabState
from xoff.lab.teardown import down, leftovers_of

pytestmark = pytest.mark.lab
INVENTORY = ROOT / "inventory"
LAB = f"t{os.getpid()}-ib"


@pytest.fixture(scope="module")
def lab() -> Iterator[tuple[UpReport, LabState]]:
    try:
        report = up(INVENTORY / "ib-pod", LAB, remap_addresses=True)
        yield report, resolve(LAB)
    finally:
        try:
            state = resolve(LAB)
        except LabError:
            state = None
        if state is not None:
            down(LAB)
            assert leftovers_of(state) == []
        assert netns.names(names.namespace_prefix(LAB)) == []


def test_opensm_reaches_subnet_up(lab: tuple[UpReport, LabState]) -> None:
    report, state = lab
    assert state.ib is not None and state.ib.sm_host == "sm01"
    assert {"sm01/ibsim", "sm01/opensm"} <= set(report.started)  # up waited for SUBNET UP (bounded)
    assert "SUBNET UP" in Path(state.ib.opensm_log).read_text(encoding="utf-8")
    result = CliRunner().invoke(lab_app, ["status", "--name", LAB, "--format", "json"])
    ib = json.loads(result.output)["infiniband"]
    assert ib["subnet_up"] and "SMINFO_MASTER" in ib["sminfo"] and "priority 15" in ib["sminfo"]


def test_dump_fts_on_the_sm_host_routes_to_every_host(lab: tuple[UpReport, LabState]) -> None:
    _, state = lab
    fabric = FabricState.model_validate_json((state.dir / FABRIC_FILE).read_text(encoding="utf-8"))
    run = subprocess.run(
        [sys.executable, "-m", "xoff.lab.cli", "exec", "sm01", "--name", LAB, "--", "dump_fts"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    blocks = re.split(r"^Unicast lids .*$", run.stdout, flags=re.M)[1:]
    switches = [d.name for d in fabric.devices.values() if d.kind == "ib_switch"]
    assert len(blocks) == len(switches) == 6
    hcas = set(hca_port_guids(fabric).values())
    assert len(hcas) == 129
    for block in blocks:  # every switch has a route (an out port) to every host HCA's LID
        routed = set(re.findall(r"^0x[0-9a-f]{4} \d{3} : \(Channel Adapter portguid (0x[0-9a-f]{16}):", block, re.M))
        assert routed == hcas


def test_ib_processes_end_by_pid(lab: tuple[UpReport, LabState]) -> None:
    _, state = lab
    records = [state.processes["sm01/opensm"], state.processes["sm01/ibsim"]]
    assert all(processes.alive(r) for r in records)
    assert all(r.netns == state.devices["sm01"].netns for r in records)  # ibsim's sockets are sm01's namespace's


def test_every_hca_has_its_ipoib_netdev_stand_in(lab: tuple[UpReport, LabState]) -> None:
    """lab up gives each host HCA's netdev (ib0..ib7; sm01's ib0) as an ifb link at the intent's MTU, up."""
    report, state = lab
    fabric = FabricState.model_validate_json((state.dir / FABRIC_FILE).read_text(encoding="utf-8"))
    want = {
        (d.name, i.name, i.mtu)
        for d in fabric.devices.values()
        if d.kind == "host"
        for i in d.interfaces.values()
        if i.kind == "infiniband"
    }
    assert len(want) == 16 * 8 + 1 and report.created["IPoIB stand-ins"] == len(want)
    seen = set()
    for host in sorted({h for h, _, _ in want} | {"fs01", "fs02"}):  # the storage targets have no HCA
        links = json.loads(netns.ip(["-j", "-d", "link", "show"], netns=state.devices[host].netns).stdout)
        seen |= {(host, i["ifname"], i["mtu"]) for i in links if i.get("linkinfo", {}).get("info_kind") == "ifb"}
        assert all("UP" in i["flags"] for i in links if i["ifname"].startswith("ib")), (host, links)
    assert seen == want
