"""FRR's vty protocol on a daemon's unix socket (``<vty_dir>/<daemon>.vty``), spoken as vtysh speaks it.

Each command goes out NUL-terminated; the daemon answers with the command's output, three NULs and the
command's status byte (FRR's ``CMD_SUCCESS`` 0, ``CMD_WARNING`` 1, errors above). A new connection starts
in the view node, so ``enable`` comes first, then ``configure terminal`` for configuration lines.

vtysh itself costs ~30 ms of CPU per run (it builds every daemon's command tree at start); the lab's
emulators run it at every commit, so the lines it would send are sent here directly, each to the daemon
vtysh sends it to: vtysh routes a configuration line by the daemons that define the command, and
``configure terminal`` goes to every daemon it talks to. Only the lines the emulators write are routed
here (static routes to staticd, a ``router bgp`` block to bgpd); anything else is left to vtysh.
Show commands that exactly one daemon answers (``SINGLE_DAEMON``) are asked the same way: vtysh's output for
them is that daemon's answer byte for byte.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

TIMEOUT_S = 10.0
CMD_SUCCESS, CMD_WARNING = 0, 1
_STATICD = ("ip route ", "no ip route ", "ipv6 route ", "no ipv6 route ")  # staticd's config-node commands
_BGPD = ("router bgp ", "no router bgp ")
# show commands vtysh sends to one daemon only (FRR's vtysh command tables: BGP shows are bgpd's, the RIB's zebra's)
SINGLE_DAEMON = {
    "show bgp summary json": "bgpd",
    "show ip bgp summary json": "bgpd",
    "show ip bgp json": "bgpd",
    "show ip route json": "zebra",
}


class Vty:
    """One connection to one daemon's vty socket, already ``enable``d."""

    def __init__(self, sock: socket.socket, daemon: str) -> None:
        self.sock = sock
        self.daemon = daemon

    def command(self, line: str) -> tuple[str, int]:
        """Send one line; its output and FRR's status."""
        self.sock.sendall(line.encode() + b"\0")
        answer = b""
        while len(answer) < 4 or answer[-4:-1] != b"\0\0\0":
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError(f"{self.daemon} closed its vty during {line!r}")
            answer += chunk
        return answer[:-4].decode("utf-8", errors="replace"), answer[-1]


@contextmanager
def connected(vty_dir: Path, daemon: str) -> Iterator[Vty]:
    """A daemon's vty in the enable node; OSError when there is no socket or ``enable`` is refused."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT_S)
        sock.connect(str(vty_dir / f"{daemon}.vty"))
        vty = Vty(sock, daemon)
        if vty.command("enable")[1] != CMD_SUCCESS:
            raise OSError(f"{daemon} refused enable")
        yield vty


def show(vty_dir: Path, daemon: str, command: str) -> str | None:
    """One exec command's output from one daemon, or None when the socket fails or the command does."""
    try:
        with connected(vty_dir, daemon) as vty:
            text, status = vty.command(command)
    except OSError:
        return None
    return text if status == CMD_SUCCESS else None


def ask(vty_dir: Path, command: str) -> str | None:
    """What ``vtysh -c COMMAND`` prints, for a command in ``SINGLE_DAEMON``; None for any other command or
    when the daemon does not answer it with success (the caller runs vtysh, so errors read as vtysh says them)."""
    daemon = SINGLE_DAEMON.get(command)
    return None if daemon is None else show(vty_dir, daemon, command)


def route(lines: list[str]) -> list[tuple[str, str]] | None:
    """Each configuration line (typed after ``configure terminal``) with the daemon vtysh sends it to, or
    None when a line is not one this router knows (the caller lets vtysh route it). Inside ``router bgp``
    every line is bgpd's, up to the ``exit`` that leaves it (an address family's own exit stays inside)."""
    out: list[tuple[str, str]] = []
    in_bgp = in_af = False
    for line in lines:
        if in_bgp:
            out.append(("bgpd", line))
            if line.startswith("address-family "):
                in_af = True
            elif line == "exit-address-family" or (line == "exit" and in_af):
                in_af = False
            elif line == "exit":
                in_bgp = False
        elif line.startswith(_STATICD):
            out.append(("staticd", line))
        elif line.startswith(_BGPD):
            out.append(("bgpd", line))
            in_bgp = line.startswith("router bgp ")
        else:
            return None
    return out


def configure(vty_dir: Path, lines: list[str]) -> list[str] | None:
    """Type configuration lines into the daemons as vtysh would (``configure terminal`` in each, then every
    line to its daemon, stopping at the first error as ``vtysh -c`` does; a warning is reported and the
    lines go on). The errors, each with the daemon's own words; None when a line cannot be routed here or
    a daemon's socket fails before any line was typed: nothing was changed, and vtysh should do it."""
    routed = route(lines)
    if routed is None:
        return None
    errors: list[str] = []
    with ExitStack() as stack:
        vtys: dict[str, Vty] = {}
        try:
            for daemon in dict.fromkeys(d for d, _ in routed):
                vtys[daemon] = vty = stack.enter_context(connected(vty_dir, daemon))
                if vty.command("configure terminal")[1] != CMD_SUCCESS:
                    return None
        except OSError:
            return None
        for daemon, line in routed:
            try:
                text, status = vtys[daemon].command(line)
            except OSError as exc:
                errors.append(f"% Error: {daemon}: {line}: {exc}")
                break
            if status != CMD_SUCCESS:
                errors.append(f"% Error: {daemon}: {line}: {text.strip() or f'status {status}'}")
                if status != CMD_WARNING:
                    break
    return errors
