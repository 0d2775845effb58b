"""netmiko's ANSI escape stripping, skipped for text that has no escape character.

With ``ansi_escape_codes`` on (netmiko's ``arista_eos`` and ``linux`` drivers turn it on at login), every chunk
netmiko reads goes through ``BaseConnection.strip_ansi_escape_codes``: about 35 regular-expression passes, ~14% of
the controller's CPU in ``bench/push_scale.py``'s 64-switch push. Every code it removes starts with ESC
(``chr(27)``), so a chunk without one comes back unchanged; here such a chunk is returned at once and any other goes
through netmiko's own function. Drivers that strip their own way (Huawei, Zyxel, ...) override the method and are
not touched.
"""

from __future__ import annotations

from netmiko import BaseConnection

ESC = "\x1b"  # the first character of every code netmiko's base strip removes

_netmiko_strip = BaseConnection.strip_ansi_escape_codes


def _strip(self: BaseConnection, string_buffer: str) -> str:
    if ESC not in string_buffer:
        return string_buffer
    return str(_netmiko_strip(self, string_buffer))


def install() -> None:
    """Make netmiko's base strip take the fast path for text without ESC (once; idempotent)."""
    BaseConnection.strip_ansi_escape_codes = _strip  # type: ignore[method-assign]
