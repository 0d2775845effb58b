"""Built-in checks; importing this package registers them (one module per area, one line each)."""

from xoff.validate.checks import (
    buffers,
    counters,
    deadlock,
    drift,
    ecn_counters,
    gpudirect,
    ib_hosts,
    infiniband,
    lossless,
    mapping,
    nic,
    nic_qos,
    pools,
    rdma,
    running,
    watermarks,
)

__all__ = [
    "buffers",
    "counters",
    "deadlock",
    "drift",
    "ecn_counters",
    "gpudirect",
    "ib_hosts",
    "infiniband",
    "lossless",
    "mapping",
    "nic",
    "nic_qos",
    "pools",
    "rdma",
    "running",
    "watermarks",
]
