"""The Nornir inventory, built in memory from targets and credentials, and its SimpleInventory export.

In memory (``build_nornir``): one Nornir ``Host`` per target with its groups (``kind_*``,
``platform_*``, ``role_*``, ``network_*``), the credentials of its kind, and the netmiko options of
``connect.options`` (the one builder: collect's sessions get the same), host keys checked against the
given known_hosts file only. The Nornir object is constructed
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

from xoff.connect.channel import known_hosts_for
from xoff.connect.credentials import ENV, CredentialSet
from xoff.connect.options import connection_options, credential_options
from xoff.connect.targets import Target

CONNECTION = "netmiko"  # nornir_netmiko's connection plugin name


def _login(target: Target, creds: CredentialSet) -> tuple[str | None, str | None, dict[str, Any]]:
    """(user name, password, the other login options): nornir_netmiko takes the first two from the Host."""
    options = credential_options(creds.for_device(target.platform, target.kind))
    username, password = options.pop("username", None), options.pop("password", None)
    return username, password, options


def _connection_options(
    target: Target, known_hosts: Path | None, timeout_s: float | None, factor: float
) -> dict[str, Any]:
    try:
        options = connection_options(target, known_hosts, timeout_s, factor=factor)
    except (KeyError, ImportError):  # no transport for the platform: its task says so (collect: no collector)
        return {}
    if (
        known_hosts is not None and known_hosts.is_file()
    ):  # this host's entries only: netmiko parses every key of the file it is given
        options["alt_key_file"] = str(known_hosts_for(known_hosts, target.address, target.port))
    return options


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
    timeout_factor: float = 1.0,
) -> Nornir:
    """A Nornir object for ``targets`` (threaded runner, ``workers`` threads); the timeouts as
    ``options.connection_options`` gives them."""
    groups = _group_objects(targets)
    hosts = Hosts()
    for t in targets:
        username, password, login = _login(t, creds)
        extras = {**_connection_options(t, known_hosts, timeout_s, timeout_factor), **login}
        hosts[t.name] = Host(
            name=t.name,
            hostname=t.address,
            port=t.port,
            username=username,
            password=password,
            platform=extras.get("device_type"),
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
        extras = connection_options(t, known_hosts, None)
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
        login = credential_options(c)
        host.username, host.password = login.pop("username"), login.pop("password", None)
        options = host.connection_options.setdefault(CONNECTION, ConnectionOptions(extras={}))
        options.extras = {**(options.extras or {}), **login}
