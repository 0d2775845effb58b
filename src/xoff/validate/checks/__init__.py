"""Built-in checks; importing this package registers them (one module per area, one line each)."""

from xoff.validate.checks import (
    buffers,
    counters,
    deadlock,
    drift,
    gpudirect,
    ib_hosts,
    infiniband,
    lossless,
    mapping,
    nic,
    running,
)

__all__ = [
    "buffers",
    "counters",
    "deadlock",
    "drift",
    "gpudirect",
    "ib_hosts",
    "infiniband",
    "lossless",
    "mapping",
    "nic",
    "running",
]
