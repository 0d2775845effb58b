"""netmiko's disconnect, in an order that leaves paramiko's transport thread nothing to race.

netmiko ends a session by typing ``exit`` and at once closing the channel and the client. The device
answers ``exit`` by ending the session (exit status, EOF, channel close); paramiko's transport thread
answers that close with its own, while the caller's thread is closing the socket under it: the thread's
write then fails and paramiko logs ``Socket exception: Broken pipe (32)`` (or ``Bad file descriptor``),
about one session in a hundred in ``bench/push_scale.py`` (paramiko issue #520 is the same race).

Here, after netmiko's ``exit``, the session waits (at most ``SESSION_END_WAIT_S``) for the device to end it (its
EOF or its close), closes the channel from this thread if the device has not (so its close needs no answer
from the transport thread), shuts the socket down so the
transport thread reads its end and stops by itself, joins it, and only then lets netmiko close what is
left. A device that does not end the session is closed as before, after the wait. What is sent to the
device is unchanged.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from typing import Any

from netmiko import BaseConnection

SESSION_END_WAIT_S = 1.0  # longest wait for the device to end the session after netmiko's exit
JOIN_S = 1.0  # longest wait for paramiko's transport thread to stop once the socket is shut


def _await_end(chan: Any, transport: Any) -> None:
    """Read (and drop) what the session still prints until the device's EOF or close, the transport's end, or the
    deadline."""
    deadline = time.monotonic() + SESSION_END_WAIT_S
    while not chan.eof_received and not chan.closed and transport.is_active():
        left = deadline - time.monotonic()
        if left <= 0:
            return
        select.select([chan], [], [], min(left, 0.05))
        while chan.recv_ready():
            chan.recv(65536)


def _paramiko_cleanup(self: Any) -> None:
    chan, client = self.remote_conn, self.remote_conn_pre
    transport = client.get_transport() if client is not None else None
    if chan is not None and transport is not None and transport.is_active():
        with contextlib.suppress(Exception):  # a session that broke meanwhile is closed below all the same
            _await_end(chan, transport)
            chan.close()
            transport.sock.shutdown(socket.SHUT_RDWR)
            transport.join(JOIN_S)
    _netmiko_cleanup(self)


_netmiko_cleanup = BaseConnection.paramiko_cleanup


def install() -> None:
    """Make every netmiko SSH session of this process close this way (once; idempotent)."""
    BaseConnection.paramiko_cleanup = _paramiko_cleanup  # type: ignore[method-assign]
