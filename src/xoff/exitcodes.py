"""The exit status of every ``xoff`` command, defined once.

- ``OK``: the job ran and found nothing that blocks (warnings allowed);
- ``FINDINGS``: checks found problems; deadlock risk with ``--fail-on-risk``; push: some device failed
  (left untouched, or rolled back and verified);
- ``BAD_INPUT``: bad input or usage, or another push holds the fabric's lock: nothing was done;
- ``ROLLBACK_FAILED``: push: a rollback failed or did not verify (a person must look);
- ``NOT_COLLECTED``: some device (or the InfiniBand fabric) could not be read;
- ``INTERRUPTED``: Ctrl-C (128 + SIGINT, as shells report it).
"""

from __future__ import annotations

import sys
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1
    BAD_INPUT = 2
    ROLLBACK_FAILED = 3
    NOT_COLLECTED = 4
    INTERRUPTED = 130


def status_of_exit(code: object) -> int:
    """The status the interpreter exits with for ``sys.exit(code)``: None 0, an int modulo 256, anything else
    printed on stderr and 1 (for code that ends a process itself: the CLI's edge, the lab's shim workers)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
