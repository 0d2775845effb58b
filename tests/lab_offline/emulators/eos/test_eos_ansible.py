"""Ansible's ``arista.eos.eos_config`` over ``ansible.netcommon.network_cli`` (become: enable) against
the emulator, run by ansible-runner: the first run changes the device, the second reports no change.

The device boots from xoff's running-config for lab-mini's spine2 without its ``router bgp``
section; the playbook pushes that section (``src``, as xoff renders it) through a configuration
session, the way the collection does whenever the device supports sessions.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ansible_runner
import pytest

from tests.support.eos_cli_helpers import rendered
from tests.support.eos_ssh_harness import PASSWORD, USERNAME, Server, eos_ssh_server
from xoff.lab.emulators.base import EmulatorContext

PLAY = """
- hosts: spine2
  gather_facts: false
  tasks:
    - name: the BGP underlay as xoff renders it
      arista.eos.eos_config:
        src: {src}
    - name: one port's description and MTU
      arista.eos.eos_config:
        parents: interface Ethernet3/1
        lines:
          - description reserved
          - mtu 9000
        save_when: changed
"""


def _split(text: str) -> tuple[str, str]:
    """(the configuration without ``router bgp``, the ``router bgp`` section)."""
    lines = text.splitlines(keepends=True)
    start = lines.index(next(ln for ln in lines if ln.startswith("router bgp")))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith(" "))
    return "".join(lines[:start] + lines[end:]), "".join(lines[start:end])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    state = tmp_path / "state"
    state.mkdir()
    without_bgp, _ = _split(rendered("lab-mini", "spine2"))
    (state / "startup-config").write_text(without_bgp, encoding="utf-8")
    with eos_ssh_server(EmulatorContext(device="spine2", state_dir=state, netns=None), tmp_path) as srv:
        yield srv


def _run(server: Server, pdir: Path) -> tuple[Any, list[dict[str, Any]]]:
    inventory = {
        "all": {
            "hosts": {
                "spine2": {
                    "ansible_host": server.host,
                    "ansible_port": server.port,
                    "ansible_user": USERNAME,
                    "ansible_password": PASSWORD,
                    "ansible_connection": "ansible.netcommon.network_cli",
                    "ansible_network_os": "arista.eos.eos",
                    "ansible_become": True,
                    "ansible_become_method": "enable",
                    "ansible_network_cli_ssh_type": "paramiko",
                    "ansible_python_interpreter": sys.executable,
                }
            }
        }
    }
    (pdir / "inventory").mkdir(parents=True, exist_ok=True)
    (pdir / "inventory" / "hosts.json").write_text(json.dumps(inventory), encoding="utf-8")
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "ANSIBLE_HOST_KEY_CHECKING": "False",
        "ANSIBLE_LOCAL_TEMP": str(pdir / "tmp"),
        "ANSIBLE_PERSISTENT_CONTROL_PATH_DIR": str(pdir / "pc"),
        "ANSIBLE_NOCOLOR": "1",
    }
    result = ansible_runner.run(private_data_dir=str(pdir), playbook="play.yml", quiet=True, envvars=env)
    tasks = [e["event_data"] for e in result.events if e.get("event") in {"runner_on_ok", "runner_on_failed"}]
    return result, tasks


def test_eos_config_changes_once_then_reports_no_change(server: Server, tmp_path: Path) -> None:
    _, bgp = _split(rendered("lab-mini", "spine2"))
    pdir = tmp_path / "runner"
    (pdir / "project").mkdir(parents=True)
    (pdir / "project" / "bgp.cfg").write_text(bgp, encoding="utf-8")
    (pdir / "project" / "play.yml").write_text(PLAY.format(src=pdir / "project" / "bgp.cfg"), encoding="utf-8")
    running = server.ctx.state_dir / "running-config"
    startup = server.ctx.state_dir / "startup-config"

    first, tasks = _run(server, pdir)
    assert first.rc == 0, first.stdout.read()
    assert [t["res"]["changed"] for t in tasks] == [True, True]
    assert tasks[0]["res"]["commands"][:2] == ["router bgp 65100", "router-id 198.18.255.2"]
    assert tasks[0]["res"]["session"].startswith("ansible_")
    assert "+router bgp 65100" in tasks[0]["res"]["diff"]["prepared"]
    text = running.read_text(encoding="utf-8")
    assert bgp in text, "the section is in the running-config exactly as xoff rendered it"
    assert "interface Ethernet3/1\n   description reserved\n   shutdown\n   mtu 9000\n" in text
    assert "description reserved" in startup.read_text(encoding="utf-8"), "save_when: changed saved it"

    second, tasks = _run(server, pdir)
    assert second.rc == 0, second.stdout.read()
    assert [t["res"]["changed"] for t in tasks] == [False, False]
    assert running.read_text(encoding="utf-8") == text
