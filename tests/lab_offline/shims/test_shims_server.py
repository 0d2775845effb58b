"""The lab's shim server (xoff.lab.shims.server) and client: a tool call through them gives what the
interpreter the wrapper starts gives (stdout, stderr, exit status, the files it writes), the server
really runs it (the client's own interpreter path may not even exist), and without a server, or for a
call the server does not take, the client runs the interpreter itself."""

from __future__ import annotations

import os
import shutil
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.shim_host import Result, ShimHost
from xoff.lab.shims import client, install
from xoff.lab.shims.workers import PER_KEY

SRC = str(Path(__file__).resolve().parents[3] / "src")
PT_INTERP = 3  # an ELF program header naming the dynamic loader
CALLS = [
    ("lsmod",),
    ("lsmod", "extra"),
    ("mlnx_qos", "-i", "eth0"),
    ("mlnx_qos", "-i", "eth0", "--trust", "dscp"),
    ("mlnx_qos", "-i", "eth0", "--pfc", "0,0,0,1,0,0,0,0"),
    ("mlnx_qos", "-i", "eth0"),
    ("mlnx_qos", "--bogus"),
    ("mlnx_qos", "-i", "nosuch0"),
    ("cma_roce_mode", "-d", "mlx5_0", "-p", "1"),
    ("cma_roce_mode", "-d", "mlx5_0", "-p", "1", "-m", "1"),
    ("cma_roce_tos", "-d", "mlx5_0", "-p", "1", "-t", "106"),
    ("cma_roce_tos", "-d", "mlx5_0", "-p", "1"),
    ("cma_roce_tos", "-x"),
    ("show_gids",),
    ("lspci", "-vvv"),
    ("lspci", "--nope"),
    ("nvidia-smi", "topo", "-m"),
    ("modprobe", "-r", "nvidia_peermem"),
    ("lsmod",),
    ("modprobe", "nosuchmodule"),
    ("ethtool", "-S", "nosuch0"),
    ("ethtool", "-x"),
]


def _wait_for(path: Path, proc: subprocess.Popen[bytes], limit_s: float = 60.0) -> None:
    deadline = time.monotonic() + limit_s
    while not path.exists():
        assert proc.poll() is None, f"the shim server ended ({proc.returncode})"
        assert time.monotonic() < deadline, "the shim server did not listen in time"
        time.sleep(0.02)


def _dynamically_linked(program: Path) -> bool:
    """Whether the ELF file names a program interpreter (``PT_INTERP``: the dynamic loader runs first)."""
    data = program.read_bytes()
    assert data[:5] == b"\x7fELF\x02", "a 64-bit ELF file"
    phoff, phentsize, phnum = struct.unpack_from("<Q", data, 0x20)[0], *struct.unpack_from("<HH", data, 0x36)
    return any(struct.unpack_from("<I", data, phoff + i * phentsize)[0] == PT_INTERP for i in range(phnum))


@pytest.fixture(params=["musl", "libc"])
def server(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, Path]]:
    """A running shim server (ended by its PID) and a built client: (socket, client). Each test runs with the
    client as the lab builds it where musl-gcc is installed (static) and where it is not (gcc, the system libc)."""
    which = shutil.which
    if request.param == "musl" and which("musl-gcc") is None:
        pytest.skip("musl-gcc is not installed (Debian: musl-tools): the lab builds the client with gcc")
    if request.param == "libc":
        monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "musl-gcc" else which(name, *a, **k))
    built = client.build(tmp_path / "client")
    if built is None:
        pytest.skip("no C compiler: the lab's wrappers run the interpreter per call")
    assert _dynamically_linked(built) == (request.param == "libc")
    sock = tmp_path / "shims.sock"
    env = {**os.environ, "PYTHONPATH": SRC}
    with (tmp_path / "server.log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-S", "-m", "xoff.lab.shims.server", "--socket", str(sock)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for(sock, proc)
        yield sock, built
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _hosts(tmp_path: Path, server: tuple[Path, Path]) -> tuple[ShimHost, ShimHost]:
    plain, served = ShimHost(tmp_path / "plain"), ShimHost(tmp_path / "served")
    install(served.bin, served.root, served.device, server=server)
    return plain, served


def test_a_call_through_the_server_gives_what_the_interpreter_gives(tmp_path: Path, server: tuple[Path, Path]) -> None:
    plain, served = _hosts(tmp_path, server)
    assert (served.bin / "mlnx_qos").read_bytes() == server[1].read_bytes()  # the client itself, as the tool
    for call in CALLS:
        alone, through = plain.run(*call), served.run(*call)
        here = str(tmp_path / "served"), str(tmp_path / "plain")  # messages that print the wrapper's own path
        through = Result(through.rc, through.stdout.replace(*here), through.stderr.replace(*here))
        assert through == alone, (call, str(alone), str(through))
    # what the calls wrote: the same state (but the counters' seeding time), the same files, the same modes
    untimed = [{k: v for k, v in h.state().items() if k != "nic_counters"} for h in (served, plain)]
    assert untimed[0] == untimed[1]
    for f in sorted(p.relative_to(plain.root) for p in plain.root.rglob("*") if p.is_file() and p.name != "state.json"):
        mine, theirs = plain.root / f, served.root / f
        assert (theirs.read_bytes(), theirs.stat().st_mode) == (mine.read_bytes(), mine.stat().st_mode), f


def test_the_server_runs_the_call(tmp_path: Path, server: tuple[Path, Path]) -> None:
    """The client's interpreter does not exist: only the server can have given the answer."""
    sock, built = server
    _, served = _hosts(tmp_path, server)
    env = {**served.env(), "XOFF_HOST_ROOT": str(served.root), "PYTHONPATH": SRC}
    argv = [str(built), str(sock), "cma_roce_tos", str(tmp_path / "no-python"), "-d", "mlx5_0", "-p", "1"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "0\n", "")
    wrong = subprocess.run([*argv[:4], "-z"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert wrong.stderr == "cma_roce_tos: illegal option -- z\n"  # the script's getopts, stderr kept apart


def test_a_call_the_server_does_not_take_runs_in_the_clients_interpreter(
    tmp_path: Path, server: tuple[Path, Path]
) -> None:
    sock, built = server
    _, served = _hosts(tmp_path, server)
    env = {**served.env(), "XOFF_HOST_ROOT": str(served.root), "PYTHONPATH": SRC, "PYTHONWARNINGS": "error"}
    missing = str(tmp_path / "no-python")
    done = subprocess.run(
        [str(built), str(sock), "lsmod", missing], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 127 and f"{missing}: No such file or directory" in done.stderr  # the client's own try
    via_wrapper = subprocess.run(
        ["lsmod"], env={**served.env(), "PYTHONWARNINGS": "error"}, capture_output=True, text=True, check=False
    )
    assert via_wrapper.returncode == 0 and via_wrapper.stdout.startswith("Module ")


def test_without_a_server_the_wrapper_runs_the_interpreter(tmp_path: Path) -> None:
    built = client.build(tmp_path / "client")
    if built is None:
        pytest.skip("no C compiler")
    sock = tmp_path / "gone.sock"
    plain, served = ShimHost(tmp_path / "plain"), ShimHost(tmp_path / "served")
    install(served.bin, served.root, served.device, server=(sock, built))
    assert served.run("lsmod") == plain.run("lsmod")  # no socket: the wrapper's last line
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(sock))  # a socket file nobody listens on (a server that died)
    stale.close()
    assert served.run("mlnx_qos", "-i", "eth0") == plain.run("mlnx_qos", "-i", "eth0")
    assert isinstance(served.run("lsmod"), Result)


def _children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="ascii").split()]


def _server_pid(sock: Path) -> int:
    """The server listening on ``sock`` (this test's own: its command line names the socket)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"xoff.lab.shims.server" in argv and str(sock).encode() in argv:
                return int(entry.name)
    raise AssertionError(f"no server on {sock}")


def test_calls_from_one_hosts_namespaces_reuse_one_worker(tmp_path: Path, server: tuple[Path, Path]) -> None:
    """A worker per caller's namespaces takes call after call: one child of the server after many calls, each
    answered as a new interpreter answers it (the first test holds the answers equal), state carried only by
    the host's files (a change one call makes is what the next call reads)."""
    plain, served = _hosts(tmp_path, server)
    for _ in range(3):
        assert served.run("cma_roce_tos", "-d", "mlx5_0", "-p", "1") == plain.run(
            "cma_roce_tos", "-d", "mlx5_0", "-p", "1"
        )
    workers = _children(_server_pid(server[0]))
    assert len(workers) == 1, workers
    assert served.run("cma_roce_tos", "-d", "mlx5_0", "-p", "1", "-t", "106").rc == 0
    assert served.run("cma_roce_tos", "-d", "mlx5_0", "-p", "1").stdout == "106\n"  # the same worker, the new state
    assert _children(_server_pid(server[0])) == workers


def test_the_server_ends_when_its_lab_directory_is_gone(tmp_path: Path) -> None:
    """No ``lab down``: the lab's directory (with the socket) is deleted; the server and its workers end by
    themselves (it looks every second)."""
    built = client.build(tmp_path / "client")
    if built is None:
        pytest.skip("no C compiler")
    lab = tmp_path / "lab"
    lab.mkdir()
    sock = lab / "shims.sock"
    with (tmp_path / "server.log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-S", "-m", "xoff.lab.shims.server", "--socket", str(sock)],
            env={**os.environ, "PYTHONPATH": SRC},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for(sock, proc)
        served = ShimHost(tmp_path / "served")
        install(served.bin, served.root, served.device, server=(sock, built))
        assert served.run("lsmod").rc == 0
        workers = _children(proc.pid)
        assert len(workers) == 1
        sock.unlink()
        lab.rmdir()
        assert proc.wait(timeout=60) == 0
        deadline = time.monotonic() + 60
        while any(Path(f"/proc/{w}").exists() for w in workers):  # ends with the server (PR_SET_PDEATHSIG)
            assert time.monotonic() < deadline, "a worker outlived its server"
            time.sleep(0.05)
        assert "the lab is gone" in (tmp_path / "server.log").read_text(encoding="utf-8")
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)


def test_calls_at_once_are_all_answered_by_workers_or_forked_children(
    tmp_path: Path, server: tuple[Path, Path]
) -> None:
    """More calls at once than a host's workers (``PER_KEY``): the rest go to forked children; every answer is
    the interpreter's, and no more workers stay than a host may have."""
    plain, served = _hosts(tmp_path, server)
    call = ("mlnx_qos", "-i", "eth0")
    want = plain.run(*call)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: served.run(*call), range(24)))
    assert all(g == want for g in got), [str(g) for g in got if g != want][:1]
    deadline = time.monotonic() + 30
    while len(_children(_server_pid(server[0]))) > PER_KEY:  # forked children end after their call
        assert time.monotonic() < deadline, _children(_server_pid(server[0]))
        time.sleep(0.05)
