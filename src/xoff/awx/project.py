"""The AWX project directory: playbooks, rendered configuration, one inventory per shard, the execution
environment and the job templates.

Layout (``docs/scale-out.md``)::

    push.yml backup.yml verify.yml tasks/ vars/              the playbooks xoff push --engine ansible runs,
    filter_plugins/ action_plugins/                          with their plugins
    render/<device>/...  render/manifest.json                the rendered configuration (xoff render)
    inventories/<shard>/hosts.yml                            one YAML inventory per failure domain
    known_hosts                                              the devices' host keys (with --lab / --known-hosts)
    collections/requirements.yml  execution-environment.yml  ee/   what AWX and ansible-builder install
    awx/controller.yml  awx/shards.yml                       the job templates (awx.awx collection playbook)
    README.md  .ansible-lint                                 the shards and how to run them; lint profile
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xoff.awx import controller, ee
from xoff.awx.shards import Shard, shards
from xoff.awx.yamlout import document
from xoff.connect.ansible_inventory import INVENTORY_FILE, build_inventory, ssh_args
from xoff.desired.domains import DomainKind
from xoff.desired.models import FabricState
from xoff.render import render_fabric, write_output

PLAYBOOKS = ("push.yml", "backup.yml", "verify.yml")
PLAYBOOK_DIRS = ("tasks", "filter_plugins", "action_plugins", "vars")
OWNED_DIRS = ("inventories", "render")  # emptied before writing: a shard gone since the last export goes too
KNOWN_HOSTS = "known_hosts"
RENDER_DIR = "{{ playbook_dir }}/render"
HEADER = "# Ansible inventory of one xoff shard (no secrets here: see the lookups), host keys checked.\n"
LINT_CONFIG = """\
---
# ansible-lint of this project (xoff's own test runs it with --profile production)
profile: production
skip_list:
  # the plays with `strategy: free` (backup.yml, push.yml) have no run_once task: backup.yml's stamp is a linear
  # play of its own before them
  - run-once[play]
"""


README = """\
# {fabric}: xoff's AWX project, one shard per {by}

Written by `xoff inventory export --shard-by {by}`: re-export after every intent change rather than editing
(the rendered configuration under `render/` is part of it). Shards: {shards}.

- `awx/controller.yml` creates the AWX objects (awx.awx collection): `ansible-playbook awx/controller.yml -e @vault.yml
  -e xoff_awx_scm_url=... -e xoff_awx_ee_image=...`, the AWX address and token in `CONTROLLER_HOST` and
  `CONTROLLER_OAUTH_TOKEN`.
- `execution-environment.yml`: `ansible-builder build`, after putting the xoff wheel in `ee/wheels/`.
- One shard by hand: `ansible-playbook -i inventories/<shard>/hosts.yml push.yml -e xoff_dry_run=true`, the logins in
  `XOFF_SWITCH_USERNAME`, `XOFF_SWITCH_PASSWORD`, `XOFF_HOST_USERNAME`, `XOFF_HOST_KEY`.

No file here holds a secret. xoff's docs/scale-out.md has the rest.
"""


@dataclass(frozen=True)
class Project:
    path: Path
    shards: list[Shard]


def _copy_playbooks(project: Path, source: Path) -> None:
    for name in PLAYBOOKS:
        shutil.copyfile(source / name, project / name)
    for name in PLAYBOOK_DIRS:
        if (project / name).exists():
            shutil.rmtree(project / name)
        shutil.copytree(source / name, project / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def shard_inventory(shard: Shard, known_hosts: bool) -> dict[str, Any]:
    """One shard's inventory: xoff's Ansible inventory of its devices, a ``domain_<shard>`` group, the render
    directory and (with known hosts) the project's ``known_hosts`` file."""
    extra: dict[str, Any] = {"xoff_render_dir": RENDER_DIR, "xoff_shard": shard.name}
    if known_hosts:
        extra["ansible_ssh_common_args"] = (
            f"-o UserKnownHostsFile={{{{ playbook_dir }}}}/{KNOWN_HOSTS} {ssh_args(None)}"
        )
    inventory = build_inventory(shard.targets, None, extra)
    inventory["all"]["children"][f"domain_{shard.name}"] = {"hosts": {t.name: None for t in shard.targets}}
    return inventory


def _write_inventories(project: Path, parts: list[Shard], known_hosts: bool) -> None:
    for shard in parts:
        path = project / "inventories" / shard.name / INVENTORY_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(document(shard_inventory(shard, known_hosts), HEADER), encoding="utf-8")


def shard_listing(parts: list[Shard]) -> list[dict[str, Any]]:
    return [
        {
            "name": s.name,
            "domain": s.label,
            "inventory": f"inventories/{s.name}/{INVENTORY_FILE}",
            "devices": len(s.targets),
        }
        for s in parts
    ]


def write_project(
    state: FabricState, by: DomainKind, project: Path, playbooks: Path, known_hosts: Path | None = None
) -> Project:
    """Write the AWX project for ``state`` sharded by ``by`` into ``project``; ``playbooks`` is xoff's playbook
    directory (``xoff.push.ansible_engine.playbooks_dir()``)."""
    parts = shards(state, by)
    project.mkdir(parents=True, exist_ok=True)
    for name in OWNED_DIRS:
        if (project / name).is_dir():
            shutil.rmtree(project / name)
    _copy_playbooks(project, playbooks)
    names = [t.name for s in parts for t in s.targets]
    write_output(state, render_fabric(state, names), project / "render")
    if known_hosts is not None:
        shutil.copyfile(known_hosts, project / KNOWN_HOSTS)
    _write_inventories(project, parts, known_hosts is not None)
    ee.write(project)
    controller.write(project, state.fabric, by, shard_listing(parts))
    (project / ".ansible-lint").write_text(LINT_CONFIG, encoding="utf-8")
    listing = ", ".join(f"`{s.name}` ({len(s.targets)} devices)" for s in parts)
    (project / "README.md").write_text(README.format(fabric=state.fabric, by=by, shards=listing), encoding="utf-8")
    return Project(project, parts)
