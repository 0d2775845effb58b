"""netmiko's SSH reads wait for the device's bytes instead of polling for them.

netmiko waits for a prompt by polling: read what the channel has, sleep 10 ms (``read_until_pattern``)
or 25 ms (``send_command``), read again. Each empty read wakes the thread, takes netmiko's channel lock
and paramiko's buffer lock for nothing; with one thread per device (64 devices, a push of a few
seconds) that is thousands of empty reads a second, measured as ~15% of the controller's CPU in
``bench/push_scale.py``. netmiko has no knob for it (``fast_cli``, ``global_delay_factor`` and the
read timeouts scale the sleeps, not the polling).

Here a read that finds nothing, right after a read that found nothing too, waits on the paramiko
channel (``select`` on its ``fileno()``, paramiko's documented way to poll a channel) until bytes
arrive or ``IDLE_WAIT_S`` passes: the loop wakes when the device answers, not every 10 ms. The first
empty read after data does not wait, so netmiko's probes that expect nothing (``clear_buffer``, the
end of a timed read) take no longer than before. The bytes, their order and every timeout are netmiko's.
"""

from __future__ import annotations

import select
from typing import Any

from netmiko.channel import SSHChannel

IDLE_WAIT_S = 0.05  # longest wait in one read; netmiko's read loops and their timeouts go around it
_QUIET = "_xoff_quiet"  # set on a channel whose last read found nothing


def _read_channel(self: Any) -> str:
    conn = self.remote_conn
    if getattr(self, _QUIET, False) and conn is not None and not conn.closed and not conn.recv_ready():
        select.select([conn], [], [], IDLE_WAIT_S)
    output = str(_netmiko_read(self))
    setattr(self, _QUIET, output == "")
    return output


_netmiko_read = SSHChannel.read_channel


def install() -> None:
    """Make every netmiko SSH channel of this process read this way (once; idempotent)."""
    SSHChannel.read_channel = _read_channel  # type: ignore[method-assign]
