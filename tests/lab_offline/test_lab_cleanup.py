"""Refusals before anything is made, and cleanup after a crash: a lab whose lab.json is lost is still
removed completely (processes found through the lab's namespaces, never by name)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path

import pytest

from tests.support.labs import labs_under_run
from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.lab import daemons, names, netns, processes
from xoff.lab import lab as lab_module
from xoff.lab.lab import LabError, resolve, up
from xoff.lab.remap import Management
from xoff.lab.state import STATE_FILE
from xoff.lab.teardown import down, down_all, leftovers_of
from xoff.lab.topology import plan

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"


@pytest.fixture(scope="module")
def minimal() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


def test_unsafe_addresses_are_refused_without_remap(minimal: FabricState) -> None:
    mgmt = Management(IPv4Network("10.9.0.0/24"), IPv4Address("10.9.0.1"))
    # minimal.yaml's devices are in 192.0.2.0/24, which is not lab-safe (machines use it): named first
    with pytest.raises(
        LabError, match=r"outside the lab-safe ranges \(198\.18\.0\.0/15, 2001:db8::/32\): 192\.0\.2\.11, .*use --remap"
    ):
        lab_module._addresses(minimal, mgmt, remap_addresses=False)


def test_a_management_prefix_in_use_on_this_machine_is_refused(
    minimal: FabricState, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = plan("t", minimal, Management(IPv4Network("192.0.2.0/24"), IPv4Address("192.0.2.1")))
    monkeypatch.setattr(lab_module, "_root_networks", lambda: [("eth0", IPv4Network("192.0.2.0/24"))])
    # bad input (exit 2 in the CLI), one line that names the way out
    with pytest.raises(lab_module.UnsafeAddressError, match=r"overlaps 192\.0\.2\.0/24 on eth0, .*use --remap"):
        lab_module._check_free(p)
    monkeypatch.setattr(lab_module, "_root_networks", lambda: [(p.bridge, IPv4Network("192.0.2.0/24"))])
    lab_module._check_free(p)  # its own bridge (a second up) is no conflict


def test_missing_tools_name_their_debian_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    def which(cmd: str, path: str | None = None) -> None:
        return None

    monkeypatch.setattr(daemons.shutil, "which", which)
    missing = daemons.missing_tools(infiniband=True)
    assert {"lldpcli (lldpd)", "ss (iproute2)", "vtysh (frr)", "sminfo (infiniband-diags)"} <= set(missing)
    assert not any("opensm" in m for m in daemons.missing_tools(infiniband=False))


@pytest.fixture
def labs_root() -> Iterator[Path]:
    """A labs directory of this test's own (under /run: FRR, running as user frr, must reach it)."""
    with labs_under_run("") as root:
        yield root


@pytest.mark.lab
def test_a_lab_whose_state_file_is_lost_is_still_removed(labs_root: Path) -> None:
    name = f"t{os.getpid()}-crash"
    up(MINIMAL, name, remap_addresses=True, root=labs_root)
    state = resolve(name, labs_root)
    records = list(state.processes.values())
    # zebra, bgpd, staticd, lldpd per switch; lldpd, sshd per host; the switches' SSH server and their gNMI
    # server; the hosts' shim server (in a host's namespace: the sweep below finds it there)
    assert len(records) == 3 * 4 + 2 * 2 + 1 + 1 + 1 and all(processes.alive(r) for r in records)
    (state.dir / STATE_FILE).unlink()  # the crash: nothing recorded any more
    report = down(name, labs_root)
    assert report.namespaces == 5
    assert not any(processes.alive(r) for r in records)  # switch SSH server included: it held sockets there
    assert leftovers_of(state) == [] and netns.names(names.namespace_prefix(name)) == []
    assert not state.dir.exists()


@pytest.mark.lab
def test_down_all_removes_every_lab_under_the_root(labs_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"t{os.getpid()}-all"
    up(MINIMAL, name, remap_addresses=True, root=labs_root)
    state = resolve(name, labs_root)
    (labs_root / "stale-dir").mkdir()  # a directory without lab.json: a crashed run's
    # Only this test's namespaces: other labs may run on this machine (the real prefix is "xl-").
    monkeypatch.setattr(names, "PREFIX", names.namespace_prefix(f"t{os.getpid()}"))
    done = down_all(labs_root)
    assert any(line.startswith(f"lab {name}:") for line in done) and f"directory {labs_root / 'stale-dir'}" in done
    assert leftovers_of(state) == [] and lab_module.labs(labs_root) == []


@pytest.mark.lab
def test_a_changed_intent_is_refused_while_its_lab_is_up(labs_root: Path, tmp_path: Path) -> None:
    name = f"t{os.getpid()}-chg"
    intent = tmp_path / "intent.yaml"
    intent.write_text(MINIMAL.read_text(encoding="utf-8"), encoding="utf-8")
    up(intent, name, remap_addresses=True, root=labs_root)
    try:
        intent.write_text(
            intent.read_text(encoding="utf-8").replace("host_mtu: 9000", "host_mtu: 4200"), encoding="utf-8"
        )
        with pytest.raises(LabError, match="the intent differs now"):
            up(intent, name, remap_addresses=True, root=labs_root)
    finally:
        down(name, labs_root)
