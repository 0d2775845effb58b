"""The Nornir inventory, built in memory from targets and credentials, and its SimpleInventory export.

In memory (``build_nornir``): one Nornir ``Host`` per target with its groups (``kind_*``,
``platform_*``, ``role_*``, ``network_*``), the credentials of its kind, and netmiko connection
options with host-key checking on: paramiko's RejectPolicy (``ssh_strict``) against the given
known_hosts file only (``alt_host_keys`` + ``alt_key_file``; the user's own ``~/.ssh/known_hosts``
is not consulted, so a lab's keys and a site's keys never mix). The Nornir object is constructed
directly (no ``InitNornir``, no config file, no plugin registered by name).

Exported (``export_nornir``): SimpleInventory ``hosts.yaml``, ``groups.yaml``, ``defaults.yaml``
with every connection option but no credential: ``defaults.yaml`` says where they come from, and
``fill_credentials`` puts them in after loading (``nr.inventory.hosts`` -> credentials).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from nornir.core import Nornir
from nornir.core.inventory import ConnectionOptions, Defaults, Group, Groups, Host, Hosts, Inventory, ParentGroups
from nornir.core.plugins.connections import ConnectionPluginRegister
from nornir.plugins.runners import ThreadedRunner

from xoff.connect.credentials import ENV, CredentialSet
from xoff.connect.targets import Target
from xoff.platforms.registry import get_platform

CONNECTION = "netmiko"  # nornir_netmiko's connection plugin name
DEFAULT_TIMEOUT_S = 20.0


def netmiko_extras(target: Target, known_hosts: Path | None, timeout_s: float | None) -> dict[str, Any]:
    """ConnectHandler arguments for one target (no credentials)."""
    transport = get_platform(target.platform).transport
    if transport is None:
        raise KeyError(f"platform {target.platform!r} is not reached over SSH")
    extras: dict[str, Any] = {
        "device_type": transport.netmiko_device_type,
        "ssh_strict": True,  # paramiko RejectPolicy: an unknown or changed host key refuses the connection
        "system_host_keys": False,
        "allow_agent": False,
        "conn_timeout": timeout_s or DEFAULT_TIMEOUT_S,
        "auth_timeout": timeout_s or DEFAULT_TIMEOUT_S,
        "banner_timeout": timeout_s or DEFAULT_TIMEOUT_S,
        "fast_cli": False,
    }
    if known_hosts is not None:
        extras["alt_host_keys"] = True
        extras["alt_key_file"] = str(known_hosts)
    if timeout_s is not None:
        extras["read_timeout_override"] = timeout_s  # every command: a device answering slower fails
    extras.update(transport.netmiko_options)
    return extras


def _credential_extras(target: Target, creds: CredentialSet) -> tuple[str | None, str | None, dict[str, Any]]:
    c = creds.for_device(target.platform, target.kind)
    if c is None:
        return None, None, {}
    extras: dict[str, Any] = {"use_keys": c.key_file is not None}
    if c.key_file is not None:
        extras["key_file"] = str(c.key_file)
    return c.username, c.password, extras


def _group_objects(targets: Iterable[Target]) -> Groups:
    names = sorted({g for t in targets for g in t.groups})
    return Groups({n: Group(name=n) for n in names})


def build_nornir(
    targets: list[Target],
    creds: CredentialSet,
    known_hosts: Path | None,
    *,
    workers: int = 20,
    timeout_s: float | None = None,
) -> Nornir:
    """A Nornir object for ``targets`` (threaded runner, ``workers`` threads)."""
    groups = _group_objects(targets)
    hosts = Hosts()
    for t in targets:
        username, password, cred_extras = _credential_extras(t, creds)
        extras = {**netmiko_extras(t, known_hosts, timeout_s), **cred_extras}
        hosts[t.name] = Host(
            name=t.name,
            hostname=t.address,
            port=t.port,
            username=username,
            password=password,
            platform=extras["device_type"],
            groups=ParentGroups([groups[g] for g in t.groups]),
            data={"xoff_platform": t.platform, "kind": t.kind, "role": t.role, "network": t.network},
            connection_options={CONNECTION: ConnectionOptions(extras=extras)},
        )
    ConnectionPluginRegister.auto_register()  # nornir_netmiko's "netmiko", from its entry point
    inventory = Inventory(hosts=hosts, groups=groups, defaults=Defaults())
    return Nornir(inventory=inventory, runner=ThreadedRunner(num_workers=max(1, workers)))


# --- export ----------------------------------------------------------------------------------------

CREDENTIALS_NOTE = {
    "switch": f"environment {ENV['switch', 'username']} / {ENV['switch', 'password']}, or an xoff secrets file",
    "host": f"environment {ENV['host', 'username']} / {ENV['host', 'key']}, or an xoff secrets file",
    "fill_with": "xoff.connect.nornir_inventory.fill_credentials(nr, load_credentials(secrets_file))",
}


def simple_inventory(targets: list[Target], known_hosts: Path | None) -> dict[str, dict[str, Any]]:
    """The three SimpleInventory documents: hosts, groups, defaults (no credential in any)."""
    hosts: dict[str, Any] = {}
    for t in targets:
        extras = netmiko_extras(t, known_hosts, None)
        hosts[t.name] = {
            "hostname": t.address,
            "port": t.port,
            "platform": extras["device_type"],
            "groups": list(t.groups),
            "data": {"xoff_platform": t.platform, "kind": t.kind, "role": t.role, "network": t.network},
            "connection_options": {CONNECTION: {"extras": extras}},
        }
    groups: dict[str, Any] = {g: {"data": {}} for g in sorted({g for t in targets for g in t.groups})}
    defaults = {"data": {"credentials": dict(CREDENTIALS_NOTE)}}
    return {"hosts": hosts, "groups": groups, "defaults": defaults}


def export_nornir(targets: list[Target], out_dir: Path, known_hosts: Path | None = None) -> list[Path]:
    """Write ``hosts.yaml``, ``groups.yaml``, ``defaults.yaml`` under ``out_dir``; the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, doc in simple_inventory(targets, known_hosts).items():
        path = out_dir / f"{name}.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False, default_flow_style=False), encoding="utf-8")
        written.append(path)
    return written


def fill_credentials(nr: Nornir, creds: CredentialSet) -> None:
    """Put credentials into an inventory loaded from the export (they are never in its files)."""
    for host in nr.inventory.hosts.values():
        c = creds.for_device(str(host.data.get("xoff_platform", "")), str(host.data.get("kind", "")))
        if c is None:
            continue
        host.username, host.password = c.username, c.password
        if c.key_file is not None:
            options = host.connection_options.setdefault(CONNECTION, ConnectionOptions(extras={}))
            options.extras = {**(options.extras or {}), "use_keys": True, "key_file": str(c.key_file)}
