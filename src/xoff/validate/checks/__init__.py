"""Built-in checks; importing this package registers them (one module per area, one line each)."""

from xoff.deadlock import check as deadlock_cbd  # noqa: F401 - registers deadlock.cbd (lives with the analysis)
from xoff.validate.checks import buffers, counters, drift, gpudirect, infiniband, lossless, mapping, nic, running

__all__ = ["buffers", "counters", "drift", "gpudirect", "infiniband", "lossless", "mapping", "nic", "running"]
