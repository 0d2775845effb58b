"""The exported AWX project passes the tools AWX and its users run: ``ansible-lint --profile production``,
``ansible-builder create`` (and the build's own requirement introspection), ``ansible-playbook
--syntax-check`` of every playbook with every shard's inventory, and ``awx/controller.yml`` uses only
options the awx.awx collection documents."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

BIN = Path(sys.executable).parent


def _run(args: list[str], cwd: Path, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANSIBLE_LOCAL_TEMP": str(tmp), "NO_COLOR": "1", "ANSIBLE_NOCOLOR": "1"}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False, timeout=300, env=env)


def test_ansible_lint_production_profile(project: Path, tmp_path: Path) -> None:
    done = _run([str(BIN / "ansible-lint"), "--offline", "--nocolor", "--profile", "production"], project, tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "Profile 'production' was required, and it passed" in out


def test_ansible_builder_create(project: Path, tmp_path: Path) -> None:
    context = tmp_path / "context"
    done = _run(
        [
            str(BIN / "ansible-builder"),
            "create",
            "-f",
            "execution-environment.yml",
            "-c",
            str(context),
            "--output-filename",
            "Containerfile",
        ],
        project,
        tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    containerfile = (context / "Containerfile").read_text(encoding="utf-8")
    assert "pip install --no-index --find-links /tmp/xoff-wheels xoff" in containerfile
    for name in ("requirements.txt", "bindep.txt", "requirements.yml", "xoff/README.md"):
        assert (context / "_build" / name).is_file(), name
    # the build's first step, run here: ansible-builder's own introspection reads our requirement files
    done = _run(
        [
            sys.executable,
            str(context / "_build" / "scripts" / "introspect.py"),
            "introspect",
            f"--user-pip={context / '_build' / 'requirements.txt'}",
            f"--user-bindep={context / '_build' / 'bindep.txt'}",
        ],
        project,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    found = yaml.safe_load(done.stdout)
    assert any(r.startswith("pydantic") for r in found["python"])
    assert any(r.startswith("sshpass") for r in found["system"])


def test_syntax_check_every_playbook_with_every_shard(project: Path, tmp_path: Path) -> None:
    shards = sorted((project / "inventories").glob("*/hosts.yml"))
    assert len(shards) == 3
    playbooks = ["push.yml", "backup.yml", "verify.yml", "awx/controller.yml"]
    for inventory in shards:
        done = _run(
            [str(BIN / "ansible-playbook"), "--syntax-check", "-i", str(inventory), *playbooks], project, tmp_path
        )
        assert done.returncode == 0, (inventory, done.stdout + done.stderr)
        assert [ln for ln in done.stdout.splitlines() if ln.startswith("playbook: ")] == [
            f"playbook: {p}" for p in playbooks
        ]


def test_controller_playbook_uses_documented_awx_options(project: Path, tmp_path: Path) -> None:
    """ansible-lint does not check the awx.awx modules' arguments: their documentation does."""
    tasks = yaml.load((project / "awx" / "controller.yml").read_text(encoding="utf-8"), Loader=_Unsafe)[0]["tasks"]
    used = {k: set(v) for task in tasks for k, v in task.items() if k.startswith("awx.awx.")}
    assert set(used) == {
        f"awx.awx.{m}"
        for m in (
            "credential_type",
            "credential",
            "execution_environment",
            "project",
            "inventory",
            "inventory_source",
            "job_template",
            "workflow_job_template",
        )
    }
    done = _run([str(BIN / "ansible-doc"), "-j", *sorted(used)], project, tmp_path)
    assert done.returncode == 0, done.stderr
    documented = {name: set(doc["doc"]["options"]) for name, doc in json.loads(done.stdout).items()}
    for module, options in used.items():
        assert options <= documented[module], (module, options - documented[module])
    # the workflow's nodes (in awx/shards.yml) against workflow_job_template's documented suboptions
    node_doc = json.loads(done.stdout)["awx.awx.workflow_job_template"]["doc"]["options"]["workflow_nodes"][
        "suboptions"
    ]
    nodes = yaml.safe_load((project / "awx" / "shards.yml").read_text(encoding="utf-8"))["xoff_workflow_nodes"]
    for node in nodes:
        assert set(node) <= set(node_doc), node
        for key in ("unified_job_template", "related"):
            assert set(node[key]) <= set(node_doc[key]["suboptions"]), node


class _Unsafe(yaml.SafeLoader):
    """Reads Ansible's ``!unsafe`` tag as a plain string."""


_Unsafe.add_constructor("!unsafe", lambda loader, node: loader.construct_scalar(node))  # type: ignore[arg-type]
