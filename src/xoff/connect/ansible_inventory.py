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
``platform_<name>`` group, from ``PLATFORM_VARS`` (one entry per platform).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from xoff.connect.targets import Target

INVENTORY_FILE = "hosts.yml"


def _env(var: str) -> str:
    return '{{ lookup("ansible.builtin.env", "' + var + '") }}'


SWITCH_LOGIN = {"ansible_user": _env("XOFF_SWITCH_USERNAME"), "ansible_password": _env("XOFF_SWITCH_PASSWORD")}
HOST_LOGIN = {"ansible_user": _env("XOFF_HOST_USERNAME"), "ansible_ssh_private_key_file": _env("XOFF_HOST_KEY")}

# device platform -> how Ansible reaches it (one line per platform); xoff_platform picks the task files
PLATFORM_VARS: dict[str, dict[str, Any]] = {
    "eos": {
        "ansible_connection": "ansible.netcommon.network_cli",
        "ansible_network_os": "arista.eos.eos",
        "ansible_network_cli_ssh_type": "paramiko",
        "ansible_become": True,
        "ansible_become_method": "enable",
        **SWITCH_LOGIN,
    },
    # community SONiC: its shell over plain SSH (password), show/config through ansible.builtin.raw
    "sonic": {"ansible_connection": "ansible.builtin.ssh", **SWITCH_LOGIN},
    # Cumulus Linux: NVUE's nv in its bash shell over plain SSH (password), through ansible.builtin.raw
    "cumulus": {"ansible_connection": "ansible.builtin.ssh", **SWITCH_LOGIN},
    "linux": {"ansible_connection": "ansible.builtin.ssh", **HOST_LOGIN},
}


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
        platform = name.removeprefix("platform_")
        if name.startswith("platform_") and platform in PLATFORM_VARS:
            body["vars"] = dict(PLATFORM_VARS[platform])
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
    return [t for t in targets if t.platform not in PLATFORM_VARS]


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
