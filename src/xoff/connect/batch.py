"""Several commands in one SSH exec channel, each with its own output, error output and exit status.

A host collector asks for a dozen commands. One exec channel each costs a channel open, a fork of the
login shell and a round trip per command; on a host that is busy (or on a lab host, where the NIC
tools are Python stand-ins) that is most of the collect. ``script`` joins the commands into one POSIX
``sh`` script that frames each command's stdout and stderr with a marker line carrying a nonce (so no
output can forge one) and the command's exit status; ``split`` takes the two streams apart again.

Each command runs in its own subshell with stdin from /dev/null: an ``exit`` or a ``cd`` in one
command does not reach the next, and none can eat the script.

``run_batch`` is the one way xoff runs a batch, whatever carries the script: an SSH exec channel
(``session.ExecSession``) or a provider's local runner (the lab's subnet manager host, see
``sources.SubnetManagerHost``). Each call draws a new nonce.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Ran:
    """One command's result: what ``ssh host CMD`` would have given for it alone."""

    status: int
    stdout: str
    stderr: str


# runs one POSIX sh script (its text) within a timeout in seconds; what it printed and its exit status
ScriptRunner = Callable[[str, float], "Ran"]


def new_marker() -> str:
    return f"XOFF-BATCH-{secrets.token_hex(8)}"


def script(commands: list[str], marker: str) -> str:
    """The script: per command, a begin line on both streams, the command, an end line with its status."""
    parts = [f"m='{marker}'"]
    for i, command in enumerate(commands):
        parts += [
            f"printf '%s {i} begin\\n' \"$m\"; printf '%s {i} begin\\n' \"$m\" >&2",
            # the command on lines of its own: a trailing comment in it cannot swallow the ")"
            f"(\n{command}\n) </dev/null",
            f'printf \'\\n%s {i} end %s\\n\' "$m" "$?"; printf \'\\n%s {i} end\\n\' "$m" >&2',
        ]
    return "\n".join(parts) + "\n"


def _framed(text: str, marker: str, i: int, start: int) -> tuple[str, str, int] | None:
    """Command ``i``'s part of ``text`` from ``start``: (body, rest of the end line, next start)."""
    begin = f"{marker} {i} begin\n"
    at = text.find(begin, start)
    if at < 0:
        return None
    body_start = at + len(begin)
    end = f"\n{marker} {i} end"
    stop = text.find(end, body_start)
    if stop < 0:
        return None
    line_end = text.find("\n", stop + len(end))
    if line_end < 0:
        return None
    return text[body_start:stop], text[stop + len(end) : line_end], line_end + 1


def split(stdout: str, stderr: str, marker: str, count: int) -> list[Ran | None]:
    """Each command's result, in order; None for a command whose end never came (the channel closed or
    the script was cut short), and for every command after it."""
    out: list[Ran | None] = []
    at_out = at_err = 0
    for i in range(count):
        framed = _framed(stdout, marker, i, at_out)
        if framed is None or not framed[1].strip().isdigit():
            break
        body, status, at_out = framed
        err = _framed(stderr, marker, i, at_err)
        err_body = ""
        if err is not None:
            err_body, _, at_err = err
        out.append(Ran(int(status), body, err_body))
    return out + [None] * (count - len(out))


def run_batch(run_script: ScriptRunner, commands: list[str], timeout: float) -> tuple[list[Ran | None], Ran]:
    """Every command in one script run by ``run_script``, framed with a fresh nonce: each command's
    result (None: its end never came, see ``split``) and the run of the whole script."""
    marker = new_marker()
    ran = run_script(script(commands, marker), timeout)
    return split(ran.stdout, ran.stderr, marker, len(commands)), ran
