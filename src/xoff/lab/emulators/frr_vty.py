"""A show command asked straight on the FRR daemon's vty socket, as vtysh asks it, without starting vtysh.

vtysh builds every daemon's command tree at start (~10-30 ms of CPU per run); the emulators run it two or
three times per switch per collect. For a command that exactly one daemon answers, vtysh's output is that
daemon's answer byte for byte: vtysh connects to the daemon's ``<daemon>.vty`` socket, sends ``enable``,
then the command, each NUL-terminated, and prints what comes back before the ``\\0\\0\\0<status>`` trailer.
``ask`` does the same for the commands in ``SINGLE_DAEMON``; anything else, or any failure (no socket, a
non-zero status), is None and the caller runs vtysh as before, so errors read as vtysh says them.
"""

from __future__ import annotations

import socket
from pathlib import Path

VTY_TIMEOUT_S = 10.0
# commands vtysh sends to one daemon only (FRR's vtysh command tables: BGP shows are bgpd's, the RIB's zebra's)
SINGLE_DAEMON = {
    "show bgp summary json": "bgpd",
    "show ip bgp summary json": "bgpd",
    "show ip bgp json": "bgpd",
    "show ip route json": "zebra",
}


def _command(vty: socket.socket, command: str) -> tuple[str, int]:
    vty.sendall(command.encode() + b"\0")
    answer = b""
    while len(answer) < 4 or answer[-4:-1] != b"\0\0\0":
        chunk = vty.recv(1 << 20)
        if not chunk:
            raise OSError(f"the daemon closed its vty during {command!r}")
        answer += chunk
    return answer[:-4].decode("utf-8", errors="replace"), answer[-1]


def ask(vty_dir: Path, command: str) -> str | None:
    """The daemon's answer to ``command`` (what ``vtysh -c COMMAND`` prints), or None: not a command one
    daemon answers, or the daemon did not answer it with success (the caller runs vtysh)."""
    daemon = SINGLE_DAEMON.get(command)
    if daemon is None:
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as vty:
            vty.settimeout(VTY_TIMEOUT_S)
            vty.connect(str(vty_dir / f"{daemon}.vty"))
            if _command(vty, "enable")[1] != 0:
                return None
            text, status = _command(vty, command)
    except OSError:
        return None
    return text if status == 0 else None
