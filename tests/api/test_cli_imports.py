"""``import xoff.cli`` (what ``xoff --help`` pays) loads no command's machinery: no device library, no
template engine, no platform code, no lab; ``import xoff.api`` neither. Checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("nornir", "netmiko", "ansible_runner", "ansible", "jinja2", "paramiko", "asyncssh", "textfsm")
XOFF_HEAVY = ("xoff.platforms", "xoff.render", "xoff.lab", "xoff.push", "xoff.collect", "xoff.validate", "xoff.desired")


def _modules_after(statement: str) -> list[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    loaded: list[str] = json.loads(done.stdout)
    return loaded


@pytest.mark.parametrize("statement", ["import xoff.cli", "import xoff.api", "from xoff import api, exitcodes"])
def test_import_loads_no_heavy_module(statement: str) -> None:
    loaded = _modules_after(statement)
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(XOFF_HEAVY)]
    assert heavy == [], f"{statement} imported {heavy[:10]}"


def test_help_lists_the_lazy_commands_without_loading_them() -> None:
    code = (
        "import json, sys\nfrom typer.testing import CliRunner\nfrom xoff.cli import app\n"
        "r = CliRunner().invoke(app, ['--help'])\n"
        "print(json.dumps({'out': r.output, 'mods': sorted(sys.modules)}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    data = json.loads(done.stdout)
    for name in ("collect", "validate", "push", "inventory", "lab", "check", "deadlock"):
        assert f" {name} " in data["out"], name
    assert [m for m in data["mods"] if m.startswith(("xoff.lab", "xoff.push", "xoff.collect", "nornir"))] == []
