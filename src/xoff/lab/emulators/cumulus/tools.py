"""The Linux tools a Cumulus switch runs natively, passed through to the lab device's real daemons:
``vtysh`` (FRR is Cumulus's routing suite) and ``lldpctl`` (lldpd is its LLDP agent).

Both print the real tools' own output, since they are the real tools: vtysh on the device's FRR (its vty
sockets), lldpcli on the device's lldpd (its control socket). Without a lab (unit tests) they fail the
way the tools do when their daemon is not running. Port names need no mapping: a Cumulus port's Linux
name is its NVUE name (``swp1``).
"""

from __future__ import annotations

import subprocess

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.cumulus.apply import vtysh as vtysh_base
from xoff.lab.emulators.lldpctl import LldpctlUsageError, parse_args

VTYSH_USAGE = "Usage : vtysh [OPTION...]\n"
VTYSH_NO_DAEMONS = "Exiting: failed to connect to any daemons.\n"
LLDP_SOCKET = "lldpd.sock"  # <state_dir>/../lldpd/lldpd.sock: the lab's per-device lldpd (xoff.lab.daemons)
LLDPD_DOWN = "lldpctl: unable to connect to lldpd daemon\n"


def vtysh(ctx: EmulatorContext, args: list[str]) -> tuple[str, int]:
    """``vtysh -c CMD [-c CMD ...]``: FRR's answers, in order (output, exit status)."""
    commands = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-c"]
    if not commands or len(commands) * 2 != len(args):
        return VTYSH_USAGE, 1
    base = vtysh_base(ctx)
    if base is None:
        return VTYSH_NO_DAEMONS, 1
    argv = list(base)
    for command in commands:
        argv += ["-c", command]
    try:
        proc = ctx.run_in_netns(argv, check=False)
    except (OSError, subprocess.SubprocessError):
        return VTYSH_NO_DAEMONS, 1
    return proc.stdout + proc.stderr, proc.returncode


def lldpctl(ctx: EmulatorContext, args: list[str]) -> tuple[str, int]:
    """``lldpctl [-f FORMAT] [INTERFACE ...]`` = ``lldpcli show neighbors`` on the device's lldpd."""
    try:
        options, ports = parse_args(args)
    except LldpctlUsageError as exc:
        return str(exc), 1
    socket = ctx.state_dir.parent / "lldpd" / LLDP_SOCKET
    if ctx.netns is None or not socket.exists():
        return LLDPD_DOWN, 1
    argv = ["lldpcli", "-u", str(socket), *options, "show", "neighbors"]
    if ports:
        argv += ["ports", ",".join(ports)]
    try:
        proc = ctx.run_in_netns(argv, check=False)
    except (OSError, subprocess.SubprocessError):
        return LLDPD_DOWN, 1
    return (proc.stdout, 0) if proc.returncode == 0 else (LLDPD_DOWN, 1)
