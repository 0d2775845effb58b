"""netmiko's unmodified ``arista_eos`` driver against the emulator over real SSH (127.0.0.1)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from netmiko import BaseConnection, ConnectHandler

from tests.support.eos_cli_helpers import rendered
from tests.support.eos_ssh_harness import PASSWORD, USERNAME, Server, eos_ssh_server
from xoff.connect import orderly_close
from xoff.lab.emulators.base import EmulatorContext


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    state = tmp_path / "state"
    state.mkdir()
    (state / "startup-config").write_text(rendered("lab-mini", "spine2"), encoding="utf-8")
    with eos_ssh_server(EmulatorContext(device="spine2", state_dir=state, netns=None), tmp_path) as srv:
        yield srv


@pytest.fixture
def conn(server: Server) -> Iterator[BaseConnection]:
    c = ConnectHandler(
        device_type="arista_eos", host=server.host, port=server.port, username=USERNAME, password=PASSWORD
    )
    try:
        yield c
    finally:
        c.disconnect()


def _running(server: Server) -> str:
    return (server.ctx.state_dir / "running-config").read_text(encoding="utf-8")


def test_show_commands(conn: BaseConnection) -> None:
    assert conn.find_prompt() == "spine2>"
    version = conn.send_command("show version", use_textfsm=True)
    assert isinstance(version, list) and version[0]["model"] == "cEOSLab" and version[0]["image"] == "4.32.2F"
    conn.enable()
    assert conn.find_prompt() == "spine2#"
    status = conn.send_command("show interfaces status", use_textfsm=True)
    assert isinstance(status, list)
    assert [(r["port"], r["status"]) for r in status][:3] == [
        ("Et1/1", "connected"),
        ("Et2/1", "connected"),
        ("Et3/1", "disabled"),
    ]
    bgp = conn.send_command("show running-config | section router bgp")
    assert str(bgp).splitlines()[0] == "router bgp 65100"


def test_config_set_and_save(conn: BaseConnection, server: Server) -> None:
    conn.enable()
    out = conn.send_config_set(["interface Ethernet3/1", "description netmiko was here", "mtu 9000"])
    assert "% " not in out
    assert conn.find_prompt() == "spine2#"
    assert "interface Ethernet3/1\n   description netmiko was here\n   shutdown\n   mtu 9000\n" in _running(server)
    startup = server.ctx.state_dir / "startup-config"
    assert "netmiko was here" not in startup.read_text(encoding="utf-8")
    assert "Copy completed successfully." in conn.save_config()
    assert "netmiko was here" in startup.read_text(encoding="utf-8")


def test_commit_through_a_config_session(conn: BaseConnection, server: Server) -> None:
    """netmiko has no session support of its own: ``config_mode_command`` opens one, ``commit`` ends it."""
    conn.enable()
    out = conn.send_config_set(
        ["interface Ethernet1/1", "mtu 9000", "show session-config diffs", "commit"],
        config_mode_command="configure session netmiko1",
    )
    assert "spine2(config-s-netmik-if-Et1/1)#" in out
    assert "+   mtu 9000" in out
    assert conn.find_prompt() == "spine2#"
    assert "interface Ethernet1/1\n   description leaf1:Ethernet40\n   mtu 9000\n" in _running(server)
    sessions = conn.send_command("show configuration sessions")
    assert "netmiko1" in sessions and "completed" in sessions


def test_invalid_lines_raise_with_error_pattern(conn: BaseConnection, server: Server) -> None:
    from netmiko.exceptions import ConfigInvalidException

    conn.enable()
    before = _running(server)
    with pytest.raises(ConfigInvalidException, match="Invalid input"):
        conn.send_config_set(["interface Ethernet1/1", "speed 7g"], error_pattern=r"% Invalid input")
    assert _running(server) == before


def test_disconnect_lets_the_device_end_the_session_first(server: Server, caplog: pytest.LogCaptureFixture) -> None:
    """xoff's orderly close (``connect.orderly_close``): after netmiko's ``exit`` the device's EOF is read and
    paramiko's transport thread has stopped before the socket closes, so no ``Socket exception`` is logged."""
    orderly_close.install()
    caplog.set_level(logging.DEBUG, logger="paramiko.transport")
    for _ in range(8):
        c = ConnectHandler(
            device_type="arista_eos", host=server.host, port=server.port, username=USERNAME, password=PASSWORD
        )
        assert c.find_prompt() == "spine2>"
        chan, transport = c.remote_conn, c.remote_conn_pre.get_transport()
        c.disconnect()
        assert chan.closed
        assert not transport.is_alive(), "the transport thread stopped before the socket was closed"
    records = [r for r in caplog.records if r.name == "paramiko.transport"]
    assert not [r.getMessage() for r in records if r.levelno >= logging.ERROR]
    assert sum("EOF in transport thread" in r.getMessage() for r in records) == 8


def _no_prompt_search(conn: BaseConnection, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> str:
        raise AssertionError("find_prompt called: netmiko's ~0.3 s of sleeps per command")

    monkeypatch.setattr(conn, "find_prompt", refuse)


def test_push_backup_reads_to_the_end_of_the_config_without_looking_for_the_prompt(
    conn: BaseConnection, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The push's backup reads ``show running-config`` to its ``end`` line and the prompt after it, so netmiko
    does not look for the prompt first; the text is what netmiko's default read gives."""
    from xoff.connect.session import NetmikoSession
    from xoff.platforms.eos.apply import Strategy

    conn.enable()
    default = conn.send_command("show running-config")
    _no_prompt_search(conn, monkeypatch)
    backup = Strategy().backup(NetmikoSession(conn))
    assert backup == default
    assert backup.rstrip().endswith("\nend") and "router bgp 65100" in backup


def test_push_backup_reads_past_a_new_hostname_and_fails_fast_when_refused(
    conn: BaseConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit that renames the switch changes the prompt: the backup (the push's verify) still ends at it.
    Unprivileged, EOS refuses the command: an ApplyError naming the refusal at once, not a read timeout."""
    from xoff.connect.session import NetmikoSession
    from xoff.contracts.apply import ApplyError
    from xoff.platforms.eos.apply import Strategy

    _no_prompt_search(conn, monkeypatch)
    session = NetmikoSession(conn)
    with pytest.raises(ApplyError, match=r"show running-config: % Invalid input \(privileged mode required\)"):
        Strategy().backup(session)
    conn.enable()
    conn.send_command("configure", expect_string=r"\(config\)#")
    conn.send_command("hostname spine2-renamed", expect_string=r"\(config\)#")
    conn.send_command("end", expect_string=r"spine2-renamed#")
    assert "\nhostname spine2-renamed\n" in Strategy().backup(session)


def test_a_login_with_xoffs_options_sleeps_netmikos_fast_cli_delays(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """xoff opens sessions with netmiko's default ``fast_cli`` (its delays at 0.1x): the prompt search at login
    sleeps ~0.15 s in all instead of ~0.6 s (most of a CLI device's login). Counted as the sleeps netmiko asks
    for, not as wall time."""
    import time
    import types

    import asyncssh
    import netmiko.base_connection as netmiko_base

    from xoff.connect.credentials import Credentials
    from xoff.connect.session import ConnectSpec, open_session
    from xoff.connect.targets import Target

    asked: list[float] = []

    def sleep(seconds: float) -> None:
        asked.append(seconds)
        time.sleep(seconds)

    clock = types.SimpleNamespace(**{n: getattr(time, n) for n in dir(time) if not n.startswith("_")})
    clock.sleep = sleep
    monkeypatch.setattr(netmiko_base, "time", clock)
    private = (tmp_path / "ssh_host_ed25519_key").read_text(encoding="utf-8")
    kind, key = asyncssh.import_private_key(private).export_public_key("openssh").decode().split()[:2]
    known = tmp_path / "known_hosts"
    known.write_text(f"[{server.host}]:{server.port} {kind} {key}\n", encoding="utf-8")
    target = Target("spine2", "eos", "switch", "spine", None, server.host, server.port)
    session = open_session(ConnectSpec(target, Credentials(USERNAME, PASSWORD), known, 20.0, enable=True))
    try:
        assert "cEOSLab" in session.send_command("show version")
    finally:
        session.disconnect()
    assert asked and sum(asked) < 0.35, asked
