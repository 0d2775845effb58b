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

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1
    BAD_INPUT = 2
    ROLLBACK_FAILED = 3
    NOT_COLLECTED = 4
    INTERRUPTED = 130
