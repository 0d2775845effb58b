"""The program's edge: how the ``xoff`` console script and ``python -m xoff`` leave once a command is done.

At 100,000 GPUs what ``xoff check`` built (the intent, the plan, the results: millions of small objects, 1.7 GiB)
took ~0.6 s to free object by object as the command returned and the interpreter tore down, of a 10.5 s command.
The process is ending and the kernel takes its memory back whole, so :func:`leave_after` runs ``main()``, takes the
status from its ``SystemExit``, runs the exit hooks (``threading``'s, then ``atexit``'s: temporary directories,
multiprocessing's children, logging), flushes both streams and ends the process with that status, without the teardown.

A command hands what it built to :func:`keep`, or it would be freed as the command's frames unwind, before the edge.
``keep`` holds anything only while ``leave_after`` runs (armed per context): ``main()`` called in process (tests,
a program embedding the CLI) keeps nothing and still ends in ``SystemExit``. With another thread alive, or under a
profiler or tracer (which writes its output after the program returns), the edge steps aside and Python exits as
usual: the status is the same, only slower.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import traceback
from collections.abc import Callable
from contextvars import ContextVar
from typing import NoReturn

from xoff.exitcodes import status_of_exit

# what the running command built, held to the process's end; None: no edge armed (nothing is kept)
_KEPT: ContextVar[list[object] | None] = ContextVar("xoff_cli_kept", default=None)

# what Python's own exit gives when it cannot flush the standard streams (Py_RunMain)
FLUSH_FAILED = 120


def keep(built: object) -> None:
    """Hold ``built`` until the process ends, when :func:`leave_after` armed this; otherwise do nothing."""
    kept = _KEPT.get()
    if kept is not None:
        kept.append(built)


def leave_after(command: Callable[[], object]) -> NoReturn:
    """Run ``command`` (``xoff.cli.main``) and end the process with its status, without freeing what it kept."""
    kept: list[object] = []
    armed = _KEPT.set(kept)
    try:
        command()
        code: object = None
    except SystemExit as done:
        code = done.code
    # a thread would be cut short (Python's own exit joins it first); a profiler or tracer (``python -m cProfile
    # -m xoff``, a debugger) writes its findings after the program returns: step aside for either
    if threading.active_count() > 1 or sys.getprofile() is not None or sys.gettrace() is not None:
        _KEPT.reset(armed)
        raise SystemExit(code)
    status = status_of_exit(code)
    # what the interpreter runs at exit before its teardown, in its order: threading's exit hooks (executors'),
    # then the atexit handlers
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    if not _flushed():
        status = FLUSH_FAILED
    os._exit(status)  # `kept` (this frame's) is never freed: the kernel takes the memory back


def _flushed() -> bool:
    """Flush stdout and stderr as the interpreter does at exit: a stream gone or closed is skipped, one that fails
    (its reader gone) is said on stderr in Python's words."""
    ok = True
    for stream in (sys.stdout, sys.stderr):
        if stream is None or getattr(stream, "closed", False):
            continue
        try:
            stream.flush()
        except (OSError, ValueError) as exc:
            ok = False
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write(f"Exception ignored in: {stream!r}\n{''.join(traceback.format_exception_only(exc))}")
                sys.stderr.flush()
    return ok
