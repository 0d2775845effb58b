"""The exported Ansible inventory: read by Ansible itself (ansible-inventory), groups as the targets',
connection settings per platform, host-key checking on, and no secret in the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from xoff.connect.ansible_inventory import export_ansible, unsupported
from xoff.connect.targets import build_targets
from xoff.desired.models import FabricState

BIN = Path(sys.executable).parent
SECRET = "s3cret-Pass!"


def _inventory(tmp_path: Path, fabric: FabricState) -> Path:
    known = tmp_path / "known_hosts"
    known.write_text("spine2 ssh-ed25519 AAAA\n", encoding="utf-8")
    return export_ansible(build_targets(fabric), tmp_path / "inv", known_hosts=known)


def _ansible_inventory(path: Path, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [str(BIN / "ansible-inventory"), "-i", str(path), "--list"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "ANSIBLE_LOCAL_TEMP": str(path.parent / "tmp"), **env},
    )
    data: dict[str, object] = json.loads(done.stdout)
    return data


def test_ansible_reads_it_with_groups_and_platform_settings(tmp_path: Path, lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    _, fabric = lab_mini_state
    path = _inventory(tmp_path, fabric)
    data = _ansible_inventory(path, {})
    hostvars = data["_meta"]["hostvars"]  # type: ignore[index]
    assert sorted(hostvars) == ["gpu1", "gpu2", "gpu3", "gpu4", "leaf1", "leaf2", "sleaf1", "spine1", "spine2"]
    assert data["platform_eos"]["hosts"] == ["spine2"]  # type: ignore[index]
    assert sorted(data["role_leaf"]["hosts"]) == ["leaf1", "leaf2", "sleaf1"]  # type: ignore[index]
    assert data["network_storage"]["hosts"] == ["sleaf1"]  # type: ignore[index]
    assert sorted(data["kind_host"]["hosts"]) == ["gpu1", "gpu2", "gpu3", "gpu4"]  # type: ignore[index]
    eos, sonic, host = hostvars["spine2"], hostvars["leaf1"], hostvars["gpu1"]
    assert eos["ansible_host"] == "198.19.252.12" and eos["xoff_platform"] == "eos"
    assert eos["ansible_connection"] == "ansible.netcommon.network_cli"
    assert eos["ansible_network_os"] == "arista.eos.eos" and eos["ansible_become_method"] == "enable"
    assert sonic["ansible_connection"] == host["ansible_connection"] == "ansible.builtin.ssh"
    for hv in (eos, sonic, host):
        assert hv["ansible_host_key_checking"] is True
        assert f"UserKnownHostsFile={tmp_path / 'known_hosts'}" in hv["ansible_ssh_common_args"]
        assert "StrictHostKeyChecking=yes" in hv["ansible_ssh_common_args"]
    assert hostvars["sleaf1"]["xoff_platform"] == "cumulus"
    assert hostvars["sleaf1"]["ansible_connection"] == "ansible.builtin.ssh"  # NVUE in the switch's shell
    assert [t.name for t in unsupported(build_targets(fabric))] == [], "every lab-mini platform has tasks"


def test_credentials_are_lookups_resolved_from_the_environment_only(tmp_path: Path, lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    _, fabric = lab_mini_state
    path = _inventory(tmp_path, fabric)
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and """lookup("ansible.builtin.env", "XOFF_SWITCH_PASSWORD")""" in text
    # Ansible resolves the lookup at run time; a debug of the variable shows the environment's value
    done = subprocess.run(
        [str(BIN / "ansible"), "-i", str(path), "spine2", "-m", "ansible.builtin.debug", "-a", "var=ansible_password"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={
            **os.environ,
            "XOFF_SWITCH_PASSWORD": SECRET,
            "ANSIBLE_LOCAL_TEMP": str(tmp_path / "tmp"),
            "ANSIBLE_PERSISTENT_CONTROL_PATH_DIR": str(tmp_path / "pc"),
        },
    )
    assert SECRET in done.stdout, done.stdout + done.stderr
