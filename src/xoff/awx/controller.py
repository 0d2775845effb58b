"""The job templates: ``awx/controller.yml``, a playbook of the ``awx.awx`` collection (AWX's own, also
Ansible Automation Platform's ``ansible.controller``) that creates, in AWX, what runs the shards: a
credential type injecting the device logins the inventories look up, the credential (from vaulted
variables), the execution environment, the project, and per shard an inventory sourced from the
project's ``inventories/<shard>/hosts.yml`` with a push and a verify job template, and a workflow that
pushes the first domain's shard as the canary, then the other domains side by side, then ``shared`` (the
devices every domain goes through) once all of them succeeded. ``awx/shards.yml`` lists the shards and the
workflow's nodes. The controller's address and token come from ``CONTROLLER_HOST`` /
``CONTROLLER_OAUTH_TOKEN`` (the collection's own variables), never from a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xoff.awx.shards import SHARED
from xoff.awx.yamlout import document

PLAYBOOK = """\
---
# Create the xoff shards' jobs in AWX / Ansible Automation Platform with the awx.awx collection (written by
# `xoff inventory export --shard-by`; docs/scale-out.md). Run it from anywhere that reaches the controller:
#
#   export CONTROLLER_HOST=https://awx.example.net CONTROLLER_OAUTH_TOKEN=...
#   ansible-playbook awx/controller.yml -e @vault.yml \\
#     -e xoff_awx_scm_url=https://git.example.net/net/fabric-awx.git -e xoff_awx_ee_image=registry.example.net/xoff-ee:1
#
# vault.yml (ansible-vault encrypted) holds xoff_switch_username, xoff_switch_password, xoff_host_username and
# xoff_host_ssh_key: they go into one AWX credential, whose type injects them as the environment variables the
# inventories look up (XOFF_SWITCH_USERNAME, ...). No file of this project holds a secret.
- name: Configure AWX to run the xoff shards
  hosts: localhost
  connection: local
  gather_facts: false
  vars_files:
    - shards.yml
  vars:
    xoff_awx_organization: Default
    xoff_awx_scm_branch: main
    xoff_awx_prefix: "xoff {{ xoff_fabric }}"
    xoff_awx_instance_groups: {}  # shard name -> [instance group]: each shard on its own execution nodes
  tasks:
    - name: Credential type | the device logins the inventories look up
      awx.awx.credential_type:
        name: xoff device logins
        description: Switch and host logins of xoff's Ansible inventories, injected as environment variables
        kind: cloud
        inputs:
          fields:
            - id: switch_username
              type: string
              label: Switch user name
            - id: switch_password
              type: string
              label: Switch password
              secret: true
            - id: host_username
              type: string
              label: Host user name
            - id: host_ssh_key
              type: string
              label: Host SSH private key
              secret: true
              multiline: true
          required:
            - switch_username
            - switch_password
        injectors:
          env:
            XOFF_SWITCH_USERNAME: !unsafe "{{ switch_username }}"
            XOFF_SWITCH_PASSWORD: !unsafe "{{ switch_password }}"
            XOFF_HOST_USERNAME: !unsafe "{{ host_username }}"
            XOFF_HOST_KEY: !unsafe "{{ tower.filename.host_key }}"
          file:
            template.host_key: !unsafe "{{ host_ssh_key }}"
        state: present

    - name: Credential | the fabric's device logins, from the vaulted variables
      awx.awx.credential:
        name: "{{ xoff_awx_prefix }} devices"
        organization: "{{ xoff_awx_organization }}"
        credential_type: xoff device logins
        inputs:
          switch_username: "{{ xoff_switch_username }}"
          switch_password: "{{ xoff_switch_password }}"
          host_username: "{{ xoff_host_username | default('') }}"
          host_ssh_key: "{{ xoff_host_ssh_key | default('') }}"
        state: present
      no_log: true

    - name: Execution environment | the image ansible-builder made from execution-environment.yml
      awx.awx.execution_environment:
        name: "{{ xoff_awx_prefix }} EE"
        organization: "{{ xoff_awx_organization }}"
        image: "{{ xoff_awx_ee_image }}"
        pull: missing
        state: present

    - name: Project | this repository
      awx.awx.project:
        name: "{{ xoff_awx_prefix }}"
        organization: "{{ xoff_awx_organization }}"
        scm_type: git
        scm_url: "{{ xoff_awx_scm_url }}"
        scm_branch: "{{ xoff_awx_scm_branch }}"
        scm_update_on_launch: true
        default_environment: "{{ xoff_awx_prefix }} EE"
        wait: true
        state: present

    - name: Inventory | one per shard
      awx.awx.inventory:
        name: "{{ xoff_awx_prefix }} {{ item.name }}"
        organization: "{{ xoff_awx_organization }}"
        description: "xoff shard {{ item.name }} ({{ xoff_shard_by }} {{ item.domain }}, {{ item.devices }} devices)"
        state: present
      loop: "{{ xoff_shards }}"
      loop_control:
        label: "{{ item.name }}"

    - name: Inventory source | the shard's hosts.yml in the project
      awx.awx.inventory_source:
        name: "{{ xoff_awx_prefix }} {{ item.name }} hosts.yml"
        inventory: "{{ xoff_awx_prefix }} {{ item.name }}"
        organization: "{{ xoff_awx_organization }}"
        source: scm
        source_project: "{{ xoff_awx_prefix }}"
        source_path: "{{ item.inventory }}"
        overwrite: true
        overwrite_vars: true
        update_on_launch: true
        state: present
      loop: "{{ xoff_shards }}"
      loop_control:
        label: "{{ item.name }}"

    - name: Job template | push one shard (launch with xoff_dry_run=true for a dry run)
      awx.awx.job_template:
        name: "{{ xoff_awx_prefix }} push {{ item.name }}"
        organization: "{{ xoff_awx_organization }}"
        job_type: run
        inventory: "{{ xoff_awx_prefix }} {{ item.name }}"
        project: "{{ xoff_awx_prefix }}"
        playbook: push.yml
        execution_environment: "{{ xoff_awx_prefix }} EE"
        credentials:
          - "{{ xoff_awx_prefix }} devices"
        instance_groups: "{{ xoff_awx_instance_groups[item.name] | default(omit) }}"
        extra_vars:
          xoff_dry_run: false
        ask_variables_on_launch: true
        ask_limit_on_launch: true
        state: present
      loop: "{{ xoff_shards }}"
      loop_control:
        label: "{{ item.name }}"

    - name: Job template | verify one shard (changes nothing)
      awx.awx.job_template:
        name: "{{ xoff_awx_prefix }} verify {{ item.name }}"
        organization: "{{ xoff_awx_organization }}"
        job_type: run
        inventory: "{{ xoff_awx_prefix }} {{ item.name }}"
        project: "{{ xoff_awx_prefix }}"
        playbook: verify.yml
        execution_environment: "{{ xoff_awx_prefix }} EE"
        credentials:
          - "{{ xoff_awx_prefix }} devices"
        instance_groups: "{{ xoff_awx_instance_groups[item.name] | default(omit) }}"
        ask_limit_on_launch: true
        state: present
      loop: "{{ xoff_shards }}"
      loop_control:
        label: "{{ item.name }}"

    - name: Workflow | push the canary shard, then the other domains side by side, then the shared devices
      awx.awx.workflow_job_template:
        name: "{{ xoff_awx_prefix }} push all shards"
        organization: "{{ xoff_awx_organization }}"
        description: "xoff: every shard of {{ xoff_fabric }} by {{ xoff_shard_by }}, the next only when the previous succeeded"
        ask_variables_on_launch: true
        workflow_nodes: "{{ xoff_workflow_nodes }}"
        destroy_current_nodes: true
        state: present
"""


def _node(shard: str, then: list[str], converge: bool = False) -> dict[str, Any]:
    node: dict[str, Any] = {
        "identifier": shard,
        "unified_job_template": {
            "name": f"{{{{ xoff_awx_prefix }}}} push {shard}",
            "type": "job_template",
            "organization": {"name": "{{ xoff_awx_organization }}"},
        },
        "related": {"success_nodes": [{"identifier": n} for n in then]},
    }
    if converge:
        node["all_parents_must_converge"] = True
    return node


def workflow_nodes(shards: list[str]) -> list[dict[str, Any]]:
    """The push workflow: the first domain's shard (the canary), on its success every other domain's shard at
    once, and the ``shared`` shard only after all of them succeeded."""
    domains = [s for s in shards if s != SHARED]
    shared = [SHARED] if SHARED in shards else []
    if not domains:
        return [_node(s, []) for s in shared]
    canary, rest = domains[0], domains[1:]
    nodes = [_node(canary, rest or shared)]
    nodes += [_node(s, shared) for s in rest]
    nodes += [_node(s, [], converge=len(rest) > 0) for s in shared]
    return nodes


def write(project: Path, fabric: str, shard_by: str, shards: list[dict[str, Any]]) -> list[Path]:
    """Write ``awx/controller.yml`` and ``awx/shards.yml`` (name, domain, inventory, devices per shard; the
    workflow's nodes)."""
    awx = project / "awx"
    awx.mkdir(parents=True, exist_ok=True)
    data = {
        "xoff_fabric": fabric,
        "xoff_shard_by": shard_by,
        "xoff_shards": shards,
        "xoff_workflow_nodes": workflow_nodes([s["name"] for s in shards]),
    }
    listing = document(data, "# the shards of this project (written by xoff inventory export)\n")
    (awx / "shards.yml").write_text(listing, encoding="utf-8")
    (awx / "controller.yml").write_text(PLAYBOOK, encoding="utf-8")
    return [awx / "controller.yml", awx / "shards.yml"]
