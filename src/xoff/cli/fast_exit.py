"""Leave a finished command without freeing, object by object, what it built.

At 100,000 GPUs the intent, the plan and the check results are millions of small objects (1.7 GiB): freeing them
when ``check`` returns, then the interpreter's own teardown, took 0.64 s of a 10.5 s ``xoff check``. The process is
ending, and the kernel takes its memory back whole. So a command hands what it built to ``keep`` (else it is freed as the command's frame unwinds, before
``leave``), and once the command has returned: the ``atexit`` handlers run
(temporary directories, multiprocessing's children, logging), both streams are flushed, and the process exits
with the command's status. Only when no other thread runs: a thread left would be cut short, so then Python exits
as usual.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

_KEPT: list[object] = []


def keep(built: object) -> None:
    """Hold ``built`` to the end of the process (freed by the kernel after ``leave``, or by Python's own exit)."""
    _KEPT.append(built)


def leave(code: object) -> NoReturn:
    """Exit with ``code`` as ``sys.exit`` reads it (None: 0, an int, anything else printed and 1)."""
    if threading.active_count() > 1:
        raise SystemExit(code)
    status = _status(code)
    atexit._run_exitfuncs()  # what the interpreter runs at exit, before its teardown
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: what was written is all there is
            stream.flush()
    os._exit(status)


def _status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
