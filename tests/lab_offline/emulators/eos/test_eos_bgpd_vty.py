"""The EOS emulator speaks to FRR on the daemons' vty sockets, as vtysh does (each command NUL-terminated,
each answer ending in three NULs and the status byte): it asks bgpd for its running-config, and types a
commit's configuration lines into bgpd and staticd, each line to the daemon vtysh routes it to (a daemon's
lines in one write); vtysh itself when a socket does not answer that way."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from xoff.lab.emulators import frr_vty
from xoff.lab.emulators.eos.apply import bgpd_running_config

CONFIG = "router bgp 65101\n neighbor FABRIC peer-group\nexit\n"


def _serve(path: Path, answers: dict[bytes, tuple[bytes, int]], heard: list[str] | None = None) -> threading.Thread:
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
                    if heard is not None:
                        heard.append(command.decode())
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


OK = (b"", 0)
LINES = [
    "no ip route 198.18.9.0/24 198.18.0.3",
    "ip route 198.18.8.0/24 198.18.0.3",
    "router bgp 65100",
    "no bgp ebgp-requires-policy",
    "address-family ipv4 unicast",
    "network 198.18.255.2/32",
    "exit-address-family",
    "exit",
]


def _daemons(
    tmp_path: Path, bgpd: dict[bytes, tuple[bytes, int]]
) -> tuple[list[str], list[str], list[threading.Thread]]:
    said_bgpd: list[str] = []
    said_staticd: list[str] = []
    threads = [
        _serve(tmp_path / "bgpd.vty", bgpd, said_bgpd),
        _serve(
            tmp_path / "staticd.vty",
            dict.fromkeys([b"enable", b"configure terminal", *(ln.encode() for ln in LINES[:2])], OK),
            said_staticd,
        ),
    ]
    return said_bgpd, said_staticd, threads


def test_each_line_goes_to_its_daemon_in_configuration_mode(tmp_path: Path) -> None:
    known = dict.fromkeys([b"enable", b"configure terminal", *(ln.encode() for ln in LINES[2:])], OK)
    said_bgpd, said_staticd, threads = _daemons(tmp_path, known)
    assert frr_vty.configure(tmp_path, LINES) == []
    for t in threads:
        t.join(10)
    assert said_staticd == ["enable", "configure terminal", *LINES[:2]]
    assert said_bgpd == ["enable", "configure terminal", *LINES[2:]]


def test_every_line_is_typed_and_each_warning_or_error_reported(tmp_path: Path) -> None:
    known = dict.fromkeys([b"enable", b"configure terminal", *(ln.encode() for ln in LINES[2:])], OK)
    known[b"no bgp ebgp-requires-policy"] = (b"% a warning\n", 1)
    known[b"network 198.18.255.2/32"] = (b"% Malformed\n", 13)  # CMD_WARNING_CONFIG_FAILED
    said_bgpd, said_staticd, threads = _daemons(tmp_path, known)
    assert frr_vty.configure(tmp_path, LINES) == [
        "% Error: bgpd: no bgp ebgp-requires-policy: % a warning",
        "% Error: bgpd: network 198.18.255.2/32: % Malformed",
    ]
    for t in threads:
        t.join(10)
    # the daemon reads them in one write and runs each: the lines after a refused one still reach it
    assert said_bgpd == ["enable", "configure terminal", *LINES[2:]]
    assert said_staticd == ["enable", "configure terminal", *LINES[:2]]


def test_answers_split_anywhere_are_read_in_order(tmp_path: Path) -> None:
    """Each answer is its output, three NULs and the status; several answers may come in one read, or one in
    several: each command gets its own."""
    thread = _serve(
        tmp_path / "bgpd.vty",
        {b"enable": OK, b"show running-config": (CONFIG.encode(), 0), b"show version": (b"FRR 8.4\n", 0)},
    )
    with frr_vty.opened(tmp_path, "bgpd") as vty:
        assert vty.enabled(["show running-config", "show bogus", "show version"]) == [
            (CONFIG, 0),
            ("% Unknown command\n", 1),
            ("FRR 8.4\n", 0),
        ]
    thread.join(10)


def test_no_socket_or_an_unknown_line_is_left_to_vtysh(tmp_path: Path) -> None:
    assert frr_vty.configure(tmp_path, LINES) is None  # no daemon listening: nothing typed
    assert frr_vty.route(["interface Ethernet1_1"]) is None  # a line this router does not place
    assert frr_vty.route(["router bgp 1", "address-family ipv4 unicast", "exit", "exit", "ip route 10.0.0.0/8 lo"]) == [
        ("bgpd", "router bgp 1"),
        ("bgpd", "address-family ipv4 unicast"),
        ("bgpd", "exit"),  # the address family's own
        ("bgpd", "exit"),  # router bgp's
        ("staticd", "ip route 10.0.0.0/8 lo"),
    ]
