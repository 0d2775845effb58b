"""FRR's vty protocol on a daemon's unix socket (``<vty_dir>/<daemon>.vty``), spoken as vtysh speaks it.

Each command goes out NUL-terminated; the daemon answers with the command's output, three NULs and the
command's status byte (FRR's ``CMD_SUCCESS`` 0, ``CMD_WARNING`` 1, errors above). A new connection starts
in the view node, so ``enable`` comes first, then ``configure terminal`` for configuration lines. The daemon
runs every command of one read in turn, so the commands of one step go in one write (one round trip).

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
CMD_SUCCESS = 0
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
    """One connection to one daemon's vty socket."""

    def __init__(self, sock: socket.socket, daemon: str) -> None:
        self.sock = sock
        self.daemon = daemon

    def commands(self, lines: list[str]) -> list[tuple[str, int]]:
        """Several lines in one write, each answer in turn: the daemon runs every NUL-terminated command of
        what it reads, in order, and answers each (FRR's ``vtysh_read``). One round trip instead of one per
        line: each wait for the daemon is a wait for the CPU and the GIL again in a busy lab server."""
        self.sock.sendall(b"".join(line.encode() + b"\0" for line in lines))
        answers: list[tuple[str, int]] = []
        buf = b""
        while len(answers) < len(lines):
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError(f"{self.daemon} closed its vty during {lines[len(answers)]!r}")
            buf += chunk
            while (end := buf.find(b"\0\0\0")) >= 0 and len(buf) > end + 3:  # output, 3 NULs, the status
                answers.append((buf[:end].decode("utf-8", errors="replace"), buf[end + 3]))
                buf = buf[end + 4 :]
        return answers

    def enabled(self, lines: list[str]) -> list[tuple[str, int]]:
        """``enable`` then ``lines``, in one write; OSError when ``enable`` is refused."""
        answers = self.commands(["enable", *lines])
        if answers[0][1] != CMD_SUCCESS:
            raise OSError(f"{self.daemon} refused enable")
        return answers[1:]


@contextmanager
def opened(vty_dir: Path, daemon: str) -> Iterator[Vty]:
    """A daemon's vty, connected, in the view node (``Vty.enabled`` goes on from there); OSError when there is
    no socket."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT_S)
        sock.connect(str(vty_dir / f"{daemon}.vty"))
        yield Vty(sock, daemon)


def show(vty_dir: Path, daemon: str, command: str) -> str | None:
    """One exec command's output from one daemon, or None when the socket fails or the command does."""
    try:
        with opened(vty_dir, daemon) as vty:
            [(text, status)] = vty.enabled([command])
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
    """Type configuration lines into the daemons as vtysh would: ``configure terminal`` in each daemon, then
    every line to its daemon. The errors (warnings too), each with the daemon's own words, in the lines'
    order; None when a line cannot be routed here or a daemon's socket fails (or refuses ``enable`` or
    ``configure terminal``) before any line was typed: nothing was changed, and vtysh should do it.

    Each daemon gets its lines in one write (``Vty.commands``), so every line is typed: unlike ``vtysh -c``,
    which stops at the first error, a refused line does not keep the ones after it from the daemon (as an
    EOS commit hands the whole configuration to its agents)."""
    routed = route(lines)
    if routed is None:
        return None
    errors: list[tuple[int, str]] = []
    with ExitStack() as stack:
        vtys: dict[str, Vty] = {}
        try:
            for daemon in dict.fromkeys(d for d, _ in routed):
                vtys[daemon] = vty = stack.enter_context(opened(vty_dir, daemon))
                if vty.enabled(["configure terminal"])[0][1] != CMD_SUCCESS:
                    return None
        except OSError:
            return None
        for daemon, vty in vtys.items():
            mine = [(i, line) for i, (d, line) in enumerate(routed) if d == daemon]
            try:
                answers = vty.commands([line for _, line in mine])
            except OSError as exc:
                errors.append((mine[0][0], f"% Error: {daemon}: {exc}"))
                continue
            for (i, line), (text, status) in zip(mine, answers, strict=True):
                if status != CMD_SUCCESS:
                    errors.append((i, f"% Error: {daemon}: {line}: {text.strip() or f'status {status}'}"))
    return [e for _, e in sorted(errors)]
