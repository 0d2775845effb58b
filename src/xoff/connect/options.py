"""The one netmiko option builder: how every SSH session to a device is opened, push and collect alike.

Host keys are always checked: paramiko's RejectPolicy (``ssh_strict``) against the given known_hosts
file only (``alt_host_keys`` + ``alt_key_file``; the user's own ``~/.ssh/known_hosts``, ``~/.ssh/config``
and the SSH agent are not consulted, so a lab's settings and a site's never mix, and a session opened
by push is opened exactly as one opened by collect). The options come in two parts:
``connection_options`` (no secret: safe to export in an inventory file) and ``credential_options``;
``connect_handler_args`` joins them into netmiko ``ConnectHandler`` keywords. The Nornir inventory
(``nornir_inventory``) and the collector's direct sessions (``session.open_session``) both build from
here, so the same target gets the same options whichever engine opens it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xoff.connect.credentials import Credentials
from xoff.connect.pace import Timeouts
from xoff.connect.targets import Target
from xoff.platforms.record import Transport
from xoff.platforms.registry import get_platform


def _transport(platform: str) -> Transport:
    """The platform's transport settings: the one place they are looked up (its record in the registry)."""
    transport = get_platform(platform).transport
    if transport is None:
        raise KeyError(f"platform {platform!r} is not reached over SSH")
    return transport


def connection_options(
    target: Target, known_hosts: Path | None, timeout_s: float | None, *, factor: float = 1.0
) -> dict[str, Any]:
    """ConnectHandler arguments for one target, without credentials (and without host and port).

    ``timeout_s`` fixes every SSH operation (netmiko's ``read_timeout_override``); without it the
    connection setup waits ``pace.CONNECT_S * factor`` and each read is scaled by the session's pace
    (``session.NetmikoSession``, see ``connect.pace``)."""
    timeouts = Timeouts(timeout_s, factor)
    transport = _transport(target.platform)
    options: dict[str, Any] = {
        "device_type": transport.netmiko_device_type,
        "ssh_strict": True,  # paramiko RejectPolicy: an unknown or changed host key refuses the connection
        "system_host_keys": False,
        "allow_agent": False,
        "ssh_config_file": None,  # not the user's ~/.ssh/config (Nornir passes its path unless told so)
        "conn_timeout": timeouts.connect_s,
        "auth_timeout": timeouts.connect_s,
        "banner_timeout": timeouts.connect_s,
        # fast_cli: netmiko's default (True), its fixed delays at 0.1x: the login's prompt search sleeps ~0.15 s,
        # not ~0.7 s; reads end on patterns and their timeouts follow the device's pace (connect.pace)
    }
    if factor != 1.0:  # a slow device's knob stretches netmiko's own delays too (netmiko's advice for slow devices)
        options.update(netmiko_delays(factor))
    if known_hosts is not None:
        options["alt_host_keys"] = True
        options["alt_key_file"] = str(known_hosts)
    if timeout_s is not None:
        options["read_timeout_override"] = timeout_s  # every command: a device answering slower fails
    options.update(transport.netmiko_options)
    return options


def netmiko_delays(factor: float) -> dict[str, Any]:
    """netmiko's fixed delays (``clear_buffer``, the prompt search) at ``factor`` times its ``fast_cli`` default
    (``global_delay_factor`` 0.1). netmiko turns a ``global_delay_factor`` of exactly 1 with ``fast_cli`` back into
    0.1, so at 1 ``fast_cli`` goes off, which reads the same delays."""
    delay = round(0.1 * factor, 4)
    return {"global_delay_factor": delay, "fast_cli": delay != 1.0}


def credential_options(creds: Credentials | None) -> dict[str, Any]:
    """The login: user name, password (also the enable secret), private key."""
    if creds is None:
        return {}
    options: dict[str, Any] = {
        "username": creds.username,
        "password": creds.password or None,
        "use_keys": creds.key_file is not None,
    }
    if creds.password:
        options["secret"] = creds.password
    if creds.key_file is not None:
        options["key_file"] = str(creds.key_file)
    return options


def connect_handler_args(
    target: Target, creds: Credentials | None, known_hosts: Path | None, timeout_s: float | None
) -> dict[str, Any]:
    """Every ``netmiko.ConnectHandler`` keyword for ``target``."""
    return {
        "host": target.address,
        "port": target.port,
        **connection_options(target, known_hosts, timeout_s),
        **credential_options(creds),
    }
