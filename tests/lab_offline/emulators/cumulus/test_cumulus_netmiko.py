"""netmiko's unmodified ``cumulus_linux`` driver against the emulator, served by the lab's own switch SSH
server (``xoff.lab.sshd.serve``) on 127.0.0.1: no namespace, no root."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest
from cumulus_emu import rendered, set_lines
from netmiko import BaseConnection, ConnectHandler

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.sshd import Listener, serve

USER, PASSWORD = "admin", "xoff-lab-cumulus"


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    key = tmp_path / "hostkey"
    key.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key("openssh"))
    ctx = EmulatorContext(device="sleaf1", state_dir=tmp_path / "state", netns=None)
    listener = Listener("sleaf1", "cumulus", None, "127.0.0.1", 0, key, ctx)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    acceptors = asyncio.run_coroutine_threadsafe(serve([listener], USER, PASSWORD), loop).result(10)
    try:
        yield acceptors[0].sockets[0].getsockname()[1]
    finally:

        async def stop() -> None:
            for acceptor in acceptors:
                acceptor.close()
                await acceptor.wait_closed()

        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture
def conn(port: int) -> Iterator[BaseConnection]:
    c = ConnectHandler(device_type="cumulus_linux", host="127.0.0.1", port=port, username=USER, password=PASSWORD)
    try:
        yield c
    finally:
        c.disconnect()


def test_push_rendered_commands_and_read_back(conn: BaseConnection) -> None:
    assert conn.find_prompt() == "cumulus@cumulus:mgmt:~$"
    lines = set_lines(rendered()["nvue-commands.txt"])
    out = conn.send_config_set(lines, enter_config_mode=False, exit_config_mode=False, error_pattern=r"^Error:")
    assert "Error" not in out
    assert "applied [rev_id: 2]" in conn.save_config(cmd="nv config apply -y")
    shown = str(conn.send_command("nv config show -o commands")).splitlines()
    assert sorted(shown) == sorted(lines)


def test_refused_line_raises_with_error_pattern(conn: BaseConnection) -> None:
    from netmiko.exceptions import ConfigInvalidException

    with pytest.raises(ConfigInvalidException, match="nv set interface swp1 link mtu 1"):
        conn.send_config_set(
            ["nv set interface swp1 link mtu 1"],
            enter_config_mode=False,
            exit_config_mode=False,
            error_pattern=r"Error: Invalid value",
        )
    assert conn.send_command("nv config diff") == ""
