"""The EOS emulator asks bgpd for its running-config on bgpd's vty socket, as vtysh asks it (each command
NUL-terminated, each answer ending in three NULs and the status byte), and falls back to vtysh when the
socket does not answer that way."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from xoff.lab.emulators.eos.apply import bgpd_running_config

CONFIG = "router bgp 65101\n neighbor FABRIC peer-group\nexit\n"


def _serve(path: Path, answers: dict[bytes, tuple[bytes, int]]) -> threading.Thread:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def run() -> None:
        conn, _ = listener.accept()
        with conn, listener:
            buf = b""
            while True:
                data = conn.recv(4096)
                if not data:
                    return
                buf += data
                while b"\0" in buf:
                    command, buf = buf.split(b"\0", 1)
                    out, status = answers.get(command, (b"% Unknown command\n", 1))
                    for part in (out[:5], out[5:], b"\0\0\0", bytes([status])):  # split writes: read to the end
                        conn.sendall(part)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_enable_then_the_command(tmp_path: Path) -> None:
    thread = _serve(tmp_path / "bgpd.vty", {b"enable": (b"", 0), b"show running-config": (CONFIG.encode(), 0)})
    assert bgpd_running_config(tmp_path) == CONFIG
    thread.join(10)


def test_a_refusal_or_no_socket_is_no_answer(tmp_path: Path) -> None:
    assert bgpd_running_config(tmp_path) is None  # no bgpd.vty
    thread = _serve(tmp_path / "bgpd.vty", {b"enable": (b"", 0)})  # the show command fails (status 1)
    assert bgpd_running_config(tmp_path) is None
    thread.join(10)
