"""The lab's shim server serves its hosts' NIC tool calls from inside their namespaces: a call whose
client has no interpreter to fall back to still answers, as the interpreter does through the wrapper,
and the server runs in a host's namespace (so a lab's namespaces hold all of its processes)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.labs import labs_under_run
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
    with labs_under_run("-shims") as root:
        yield root


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


def test_the_server_ends_when_its_namespace_is_deleted(tmp_path: Path) -> None:
    """No ``lab down``: the namespace the server runs in is deleted (``ip netns del``); it ends by itself."""
    name = f"xoff-t{os.getpid()}-shimns"
    subprocess.run(["ip", "netns", "add", name], check=True)
    deleted = False
    sock = tmp_path / "shims.sock"
    try:
        argv = [sys.executable, "-S", "-m", "xoff.lab.shims.server", "--socket", str(sock), "--netns", name]
        with (tmp_path / "server.log").open("wb") as log:
            proc = subprocess.Popen(
                ["ip", "netns", "exec", name, *argv],
                env={**os.environ, "PYTHONPATH": SRC},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            deadline = time.monotonic() + 60
            while not sock.exists():
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.05)
            subprocess.run(["ip", "netns", "del", name], check=True)
            deleted = True
            assert proc.wait(timeout=60) == 0
            assert f"namespace {name} is gone" in (tmp_path / "server.log").read_text(encoding="utf-8")
        finally:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)
    finally:
        if not deleted:
            subprocess.run(["ip", "netns", "del", name], check=False)
