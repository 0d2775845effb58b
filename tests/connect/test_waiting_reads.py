"""netmiko's SSH channel reads, with ``waiting_reads`` installed: a run of empty reads waits on the channel for
the device's bytes (woken by them), the first empty read after data does not wait, and the bytes are netmiko's."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from netmiko.channel import SSHChannel

from xoff.connect import waiting_reads


class _Conn:
    """The paramiko Channel calls netmiko's SSHChannel makes, over one end of a socket pair."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.closed = False

    def fileno(self) -> int:
        return self.sock.fileno()

    def recv_ready(self) -> bool:
        try:
            return bool(self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except BlockingIOError:
            return False

    def recv(self, n: int) -> bytes:
        return self.sock.recv(n)


@pytest.fixture
def pair(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SSHChannel, socket.socket, list[float]]]:
    waiting_reads.install()
    ours, device = socket.socketpair()
    waits: list[float] = []
    real = waiting_reads.select.select

    def recording(r: list[object], w: list[object], x: list[object], timeout: float) -> object:
        waits.append(timeout)
        return real(r, w, x, timeout)

    monkeypatch.setattr(waiting_reads.select, "select", recording)
    with ours, device:
        yield SSHChannel(_Conn(ours), "utf-8"), device, waits  # type: ignore[arg-type]


def test_data_is_read_as_netmiko_reads_it(pair: tuple[SSHChannel, socket.socket, list[float]]) -> None:
    channel, device, waits = pair
    device.sendall(b"spine2#")
    assert channel.read_channel() == "spine2#"
    assert channel.read_channel() == ""  # the probe right after data: no wait
    assert waits == []


def test_a_run_of_empty_reads_waits_for_the_device(pair: tuple[SSHChannel, socket.socket, list[float]]) -> None:
    channel, _device, waits = pair
    assert channel.read_channel() == ""
    started = time.monotonic()
    assert channel.read_channel() == ""
    assert time.monotonic() - started >= 0.9 * waiting_reads.IDLE_WAIT_S
    assert waits == [waiting_reads.IDLE_WAIT_S]


def test_the_wait_ends_when_bytes_arrive(
    pair: tuple[SSHChannel, socket.socket, list[float]], monkeypatch: pytest.MonkeyPatch
) -> None:
    channel, device, _waits = pair
    monkeypatch.setattr(waiting_reads, "IDLE_WAIT_S", 60.0)
    assert channel.read_channel() == ""
    threading.Timer(0.2, device.sendall, args=(b"show version\n",)).start()
    started = time.monotonic()
    assert channel.read_channel() == "show version\n"
    assert time.monotonic() - started < 30.0, "woken by the bytes, not by the end of the wait"
