"""The lab's shim server serves its hosts' NIC tool calls from inside their namespaces: a call whose
client has no interpreter to fall back to still answers, as the interpreter does through the wrapper,
and the server runs in a host's namespace (so a lab's namespaces hold all of its processes)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.lab import daemons, netns, processes
from xoff.lab.lab import resolve, up
from xoff.lab.observe import run_in
from xoff.lab.teardown import down

pytestmark = pytest.mark.lab
MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
SRC = str(ROOT / "src")  # what the wrappers put on PYTHONPATH


@pytest.fixture
def labs_root() -> Iterator[Path]:
    """A labs directory of this test's own (under /run: FRR, running as user frr, must reach it)."""
    root = Path(f"/run/xoff/test-{os.getpid()}-shims")
    root.mkdir(parents=True, exist_ok=True, mode=0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_hosts_tool_calls_go_through_the_labs_shim_server(labs_root: Path) -> None:
    name = f"t{os.getpid()}-shims"
    up(MINIMAL, name, remap_addresses=True, root=labs_root)
    try:
        state = resolve(name, labs_root)
        server = state.processes["lab/shim-server"]
        assert processes.alive(server)
        host_ns = {d.netns for d in state.devices.values() if d.kind == "host"}
        inside = {ns for ns, pids in netns.pids_by_namespace(sorted(host_ns)).items() if server.pid in pids}
        assert len(inside) == 1
        paths = daemons.shim_server(state.dir)
        assert paths is not None
        sock, client = paths
        wrapper = run_in(state, "gpu1", ["mlnx_qos", "-i", "eth0"])
        assert wrapper.returncode == 0 and "trust state" in wrapper.stdout, wrapper.stderr
        # as the wrapper calls it (its PYTHONPATH, no other interpreter settings), with no interpreter to fall back to
        unset = [arg for k in os.environ if k.startswith("PYTHON") for arg in ("-u", k)]
        as_wrapper = ["env", *unset, f"PYTHONPATH={SRC}", str(client), str(sock)]
        direct = run_in(state, "gpu1", [*as_wrapper, "mlnx_qos", str(labs_root / "no-python"), "-i", "eth0"])
        assert (direct.returncode, direct.stdout, direct.stderr) == (0, wrapper.stdout, wrapper.stderr)
        listed = run_in(state, "gpu1", [*as_wrapper, "lsmod", "/no/python"])
        assert listed.returncode == 0 and listed.stdout.startswith("Module "), listed.stderr
    finally:
        down(name, labs_root)
