"""An Ansible YAML inventory from targets: what ``playbooks/`` (and AWX) run against.

The file holds no secret. Passwords and key paths are looked up from the controller's environment
when Ansible needs them (``XOFF_SWITCH_USERNAME``, ``XOFF_SWITCH_PASSWORD``, ``XOFF_HOST_USERNAME``,
``XOFF_HOST_KEY``; the same variables ``xoff.connect.credentials`` reads), so the file can be
committed, shared or imported as an AWX inventory source, and AWX credentials can inject the same
variables. Host-key checking stays on: OpenSSH (SONiC, hosts) reads the given known_hosts;
``network_cli`` (EOS) uses paramiko, which reads ``~/.ssh/known_hosts`` (the Ansible engine points
HOME at a directory holding a copy of the given file).

Groups are the targets' groups (``role_spine``, ``platform_eos``, ``network_compute``,
``kind_host``), each under ``all``; the connection settings of a platform sit on its
``platform_<name>`` group, from the platform's record (``xoff.platforms.registry``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from xoff.connect.targets import Target
from xoff.platforms.registry import platforms

INVENTORY_FILE = "hosts.yml"


def _env(var: str) -> str:
    return '{{ lookup("ansible.builtin.env", "' + var + '") }}'


SWITCH_LOGIN = {"ansible_user": _env("XOFF_SWITCH_USERNAME"), "ansible_password": _env("XOFF_SWITCH_PASSWORD")}
HOST_LOGIN = {"ansible_user": _env("XOFF_HOST_USERNAME"), "ansible_ssh_private_key_file": _env("XOFF_HOST_KEY")}

# a platform's connection vars come from its record (``Platform.ansible_vars``); the login from its kind
LOGIN: dict[str, dict[str, str]] = {"switch": SWITCH_LOGIN, "host": HOST_LOGIN}


def platform_vars(platform: str) -> dict[str, Any] | None:
    """The ``platform_<name>`` group's vars: how Ansible reaches the platform, then the login of its kind;
    None when the playbooks do not handle it (or the platform is unknown)."""
    record = platforms().get(platform)
    if record is None or record.ansible_vars is None:
        return None
    return {**record.ansible_vars, **LOGIN.get(record.kind, {})}


def ssh_args(known_hosts: Path | None) -> str:
    """OpenSSH options: the given known_hosts only, unknown or changed keys refused."""
    args = ["-o StrictHostKeyChecking=yes", "-o ControlMaster=auto", "-o ControlPersist=60s"]
    if known_hosts is not None:
        args.insert(0, f"-o UserKnownHostsFile={known_hosts.resolve()}")
    return " ".join(args)


def build_inventory(
    targets: Iterable[Target], known_hosts: Path | None = None, extra_vars: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The inventory as data (YAML inventory shape): hosts with address and platform, groups, group vars."""
    hosts: dict[str, dict[str, Any]] = {}
    members: dict[str, dict[str, None]] = {}
    for t in targets:
        hosts[t.name] = {"ansible_host": t.address, "xoff_platform": t.platform, "xoff_kind": t.kind}
        if t.port != 22:
            hosts[t.name]["ansible_port"] = t.port
        for group in {*t.groups, f"platform_{t.platform}"}:  # the platform group carries the connection
            members.setdefault(group, {})[t.name] = None
    groups: dict[str, dict[str, Any]] = {name: {"hosts": members[name]} for name in sorted(members)}
    for name, body in groups.items():
        group_vars = platform_vars(name.removeprefix("platform_")) if name.startswith("platform_") else None
        if group_vars is not None:
            body["vars"] = group_vars
    all_vars: dict[str, Any] = {
        "ansible_host_key_checking": True,
        "ansible_ssh_common_args": ssh_args(known_hosts),
        **(extra_vars or {}),
    }
    return {
        "all": {
            "hosts": hosts,
            "vars": all_vars,
            "children": groups,
        }
    }


def unsupported(targets: Iterable[Target]) -> list[Target]:
    """Targets whose platform the playbooks do not handle."""
    return [t for t in targets if platform_vars(t.platform) is None]


def export_ansible(
    targets: Iterable[Target],
    out_dir: Path,
    known_hosts: Path | None = None,
    extra_vars: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``out_dir/hosts.yml``; returns its path. ``ansible-playbook -i <it> playbooks/push.yml``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / INVENTORY_FILE
    header = "# Ansible inventory exported by xoff: no secrets here (see the lookups), host keys checked.\n"
    body = yaml.safe_dump(build_inventory(targets, known_hosts, extra_vars), sort_keys=False, width=200)
    path.write_text(header + body.replace(": null\n", ":\n"), encoding="utf-8")
    return path
