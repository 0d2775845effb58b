"""The execution environment: an ansible-builder version 3 definition and the files it names.

ansible-builder's version 3 format (``execution-environment.yml``): a base image with Python 3.12, the
ansible-core and ansible-runner xoff runs with, the collections of ``collections/requirements.yml`` (the
versions installed beside this xoff), xoff's runtime requirements as its package metadata pins them
(``ee/requirements.txt``), the system packages the connections need (``ee/bindep.txt``: OpenSSH, and
sshpass for the password logins of SONiC and Cumulus), and xoff itself from the wheel put in
``ee/wheels/`` (the playbooks' filter plugins import it).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from pathlib import Path
from typing import Any

from xoff.awx.yamlout import document

BASE_IMAGE = "quay.io/centos/centos:stream9"
PYTHON = ("python3.12", "/usr/bin/python3.12")
# the collections the playbooks use (arista.eos for EOS over network_cli, and what it depends on)
COLLECTIONS = ("arista.eos", "ansible.netcommon", "ansible.utils", "awx.awx")
BINDEP = """\
# system packages of the xoff execution environment (bindep format, read by ansible-builder)
openssh-clients [platform:rpm]
openssh-client [platform:dpkg]
sshpass [platform:rpm platform:dpkg]
"""
WHEELS_README = """\
Put the xoff wheel here before `ansible-builder build` (the execution environment installs xoff from this
directory, with --no-index: its dependencies come from ../requirements.txt):

    pip wheel --no-deps -w ee/wheels /path/to/xoff
"""


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def xoff_requirements() -> list[str]:
    """xoff's runtime requirements as its installed metadata pins them (no extras: tests and lint stay out)."""
    try:
        required = importlib.metadata.requires("xoff") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    return [r for r in required if "extra ==" not in r]


def collection_version(fqcn: str) -> str | None:
    """The version of a collection installed beside this Ansible (``ansible_collections/<ns>/<name>``)."""
    spec = importlib.util.find_spec("ansible_collections")
    if spec is None or spec.submodule_search_locations is None:
        return None
    namespace, name = fqcn.split(".")
    for root in spec.submodule_search_locations:
        manifest = Path(root) / namespace / name / "MANIFEST.json"
        if manifest.is_file():
            return str(json.loads(manifest.read_text(encoding="utf-8"))["collection_info"]["version"])
    return None


def collections_requirements() -> dict[str, Any]:
    """``collections/requirements.yml``: what AWX installs at project sync and ansible-builder into the image."""
    entries: list[dict[str, str]] = []
    for fqcn in COLLECTIONS:
        version = collection_version(fqcn)
        entries.append({"name": fqcn, "version": version} if version else {"name": fqcn})
    return {"collections": entries}


def definition() -> dict[str, Any]:
    """``execution-environment.yml`` (ansible-builder schema version 3)."""
    core, runner = _version("ansible-core"), _version("ansible-runner")
    return {
        "version": 3,
        "images": {"base_image": {"name": BASE_IMAGE}},
        "dependencies": {
            "python_interpreter": {"package_system": PYTHON[0], "python_path": PYTHON[1]},
            "ansible_core": {"package_pip": f"ansible-core=={core}" if core else "ansible-core"},
            "ansible_runner": {"package_pip": f"ansible-runner=={runner}" if runner else "ansible-runner"},
            "galaxy": "collections/requirements.yml",
            "python": "ee/requirements.txt",
            "system": "ee/bindep.txt",
        },
        "additional_build_files": [{"src": "ee/wheels", "dest": "xoff"}],
        "additional_build_steps": {
            "append_final": [
                "COPY _build/xoff/ /tmp/xoff-wheels/",
                "RUN $PYCMD -m pip install --no-index --find-links /tmp/xoff-wheels xoff && rm -rf /tmp/xoff-wheels",
            ]
        },
    }


def write(project: Path) -> list[Path]:
    """Write the execution environment's files into the project; returns them."""
    files = {
        project / "execution-environment.yml": document(
            definition(), "# ansible-builder create|build -f execution-environment.yml (written by xoff)\n"
        ),
        project / "collections" / "requirements.yml": document(
            collections_requirements(), "# collections the xoff playbooks use (AWX installs them at project sync)\n"
        ),
        project / "ee" / "requirements.txt": "# xoff's runtime requirements (its package metadata)\n"
        + "".join(f"{r}\n" for r in xoff_requirements()),
        project / "ee" / "bindep.txt": BINDEP,
        project / "ee" / "wheels" / "README.md": WHEELS_README,
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)
