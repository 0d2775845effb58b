"""Prove an frr.conf with the real FRR (Debian's frr 8.4), without running any routing daemon.

Two dry runs, because neither alone is enough (measured on FRR 8.4.4):

1. ``vtysh --dryrun -f FILE``: the integrated-config shell parses every line against the grammar of
   all daemons, in its node (``router bgp``, ``address-family``, ``route-map``, ...). It rejects
   unknown commands and out-of-range numbers (``maximum-paths 999``) and exits non-zero, but it
   does not execute anything, so a well-formed but invalid value passes.
2. ``bgpd --dryrun -f FILE``: the real BGP daemon executes every line, including the northbound
   validation (a prefix-list ``ge`` shorter than the prefix, ...), then exits. It exits 0 even when
   lines fail, so its log is read: every "... on config line N: ..." message is a failure, except
   lines that belong to vtysh rather than bgpd (``VTYSH_ONLY``), which bgpd rightly does not know.
3. Static routes (``ip route``) belong to staticd, not bgpd: when the file has any, ``staticd
   --dryrun -f FILE`` executes them too, and its failures on those lines count (staticd in turn
   does not know the BGP lines; those are bgpd's).

Both run in a private temporary directory (config dir, vty socket dir, pid file), with no zebra
connection (-Z), no kernel routes (-n), no BGP listener (-p 0) and no privilege drop (-S): no
system FRR service, /etc/frr or /var/run/frr is read or touched, and nothing keeps running.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

VTYSH = "vtysh"
BGPD = "/usr/lib/frr/bgpd"
STATICD = "/usr/lib/frr/staticd"
STATIC_ROUTE = "ip route "  # the lines staticd owns
TIMEOUT_S = 30.0
# no zebra, no kernel routes, no privilege drop, no BGP listener; log to stdout, where we read it
_BGPD_ISOLATED = ("-Z", "-n", "-S", "-p", "0", "--log", "stdout")
# Lines of an integrated frr.conf that bgpd does not own (and so reports as unknown).
VTYSH_ONLY = frozenset({"service integrated-vtysh-config"})
# the L3 VNI block (``vrf NAME`` / ``vni N`` / ``exit-vrf``) is zebra's: bgpd without zebra (-Z) knows no VRF node
ZEBRA_VNI = re.compile(r"^(vrf \S+|vni \d+|exit-vrf)$")
_BGPD_LINE = re.compile(
    r"(?P<what>No such command|Command returned [^\n]*?) on config line (?P<line>\d+): (?P<text>.*)$"
)
_BGPD_NB_ERROR = re.compile(r"error processing configuration change: .*? message: (?P<msg>.*)$")
_VTYSH_LINE = re.compile(r"^line (?P<line>\d+): (?P<msg>.*)$")
# -Z (no zebra) makes bgpd log this once per 'network' statement: noise, not a config problem.
_NOISE = "zclient_send_message() failed"


class FrrNotInstalledError(RuntimeError):
    """The FRR binaries are missing: install Debian's ``frr`` package (``make system-deps``)."""


@dataclass(frozen=True)
class FrrCheck:
    ok: bool
    problems: tuple[str, ...] = ()
    output: str = ""
    seconds: float = 0.0

    def report(self) -> str:
        return "\n".join(self.problems) + ("\n--- FRR output ---\n" + self.output if self.output else "")


def frr_binaries() -> tuple[str, str]:
    """(vtysh, bgpd) paths, or FrrNotInstalledError saying how to get them."""
    vtysh = shutil.which(VTYSH)
    missing = [name for name, found in ((VTYSH, vtysh is not None), (BGPD, Path(BGPD).is_file())) if not found]
    if vtysh is None or missing:
        raise FrrNotInstalledError(
            f"FRR not installed ({', '.join(missing)} missing): apt-get install frr (Debian 12 ships FRR 8.4)"
        )
    return vtysh, BGPD


def check_frr_conf(text: str) -> FrrCheck:
    """Run both dry runs on ``text``; ``ok`` only if FRR accepted every line."""
    vtysh, bgpd = frr_binaries()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="xoff-frr-") as tmp:
        work = Path(tmp)
        conf = work / "frr.conf"
        conf.write_text(text, encoding="utf-8")
        (work / "vtysh.conf").write_text("", encoding="utf-8")  # vtysh reads it from --config_dir
        grammar = _run([vtysh, "--config_dir", tmp, "--dryrun", "-f", str(conf)])
        daemon = _run(
            [bgpd, "--dryrun", "-f", str(conf), *_BGPD_ISOLATED, "--vty_socket", tmp, "-i", str(work / "bgpd.pid")]
        )
        static = None
        if any(line.startswith(STATIC_ROUTE) for line in text.splitlines()):
            static = _run(
                [
                    STATICD,
                    "--dryrun",
                    "-f",
                    str(conf),
                    "--log",
                    "stdout",
                    "--vty_socket",
                    tmp,
                    "-i",
                    str(work / "s.pid"),
                ]
            )
    problems = _vtysh_problems(grammar) + _bgpd_problems(daemon)
    output = f"$ vtysh --dryrun (exit {grammar.returncode})\n{grammar.stdout}{grammar.stderr}"
    output += f"$ bgpd --dryrun (exit {daemon.returncode})\n" + _without_noise(daemon.stdout + daemon.stderr)
    if static is not None:
        problems += _staticd_problems(static)
        output += f"$ staticd --dryrun (exit {static.returncode})\n{static.stdout}{static.stderr}"
    return FrrCheck(ok=not problems, problems=tuple(problems), output=output, seconds=time.perf_counter() - start)


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    # run() waits for the child; on timeout it kills that child (by its own PID) before raising
    return subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


def _without_noise(text: str) -> str:
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if _NOISE not in line]
    dropped = len(lines) - len(kept)
    return "".join(kept) + (f"({dropped} '{_NOISE}' lines from running without zebra left out)\n" if dropped else "")


def _vtysh_problems(proc: subprocess.CompletedProcess[str]) -> list[str]:
    found = [
        f"vtysh: line {m['line']}: {m['msg']}"
        for m in map(_VTYSH_LINE.match, (proc.stdout + proc.stderr).splitlines())
        if m is not None
    ]
    if proc.returncode != 0 and not found:
        found.append(f"vtysh --dryrun exited {proc.returncode}")
    return found


def _bgpd_problems(proc: subprocess.CompletedProcess[str]) -> list[str]:
    found: list[str] = []
    for raw in (proc.stdout + proc.stderr).splitlines():
        m = _BGPD_LINE.search(raw)
        if m is None:
            continue
        if m["what"] == "No such command" and (
            m["text"].strip() in VTYSH_ONLY or m["text"].startswith(STATIC_ROUTE) or ZEBRA_VNI.match(m["text"].strip())
        ):
            continue
        problem = f"bgpd: line {m['line']}: {m['what']}: {m['text']}"
        if problem not in found:  # bgpd logs each one twice (log target and console)
            found.append(problem)
    for raw in (proc.stdout + proc.stderr).splitlines():
        nb = _BGPD_NB_ERROR.search(raw)
        if nb is not None and f"bgpd: {nb['msg']}" not in found:  # the validation error behind a failed line
            found.append(f"bgpd: {nb['msg']}")
    if proc.returncode != 0:
        found.append(f"bgpd --dryrun exited {proc.returncode}")
    return found


def _staticd_problems(proc: subprocess.CompletedProcess[str]) -> list[str]:
    found: list[str] = []
    for raw in (proc.stdout + proc.stderr).splitlines():
        m = _BGPD_LINE.search(raw)
        if m is not None and m["text"].startswith(STATIC_ROUTE):
            problem = f"staticd: line {m['line']}: {m['what']}: {m['text']}"
            if problem not in found:
                found.append(problem)
    if proc.returncode != 0:
        found.append(f"staticd --dryrun exited {proc.returncode}")
    return found
