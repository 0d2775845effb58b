"""``import xoff.cli`` (what ``xoff --help`` pays) loads no command's machinery: no device library, no
template engine, no platform code, no lab; ``import xoff.api`` neither. And each command, run whole the way
the console script runs it, loads only what it uses: ``--version`` and ``--help`` no intent loader, no
pydantic, no rich help panels (markdown, pygments); ``check`` no device library, no renderer, no lab.
Checked in a fresh interpreter. The times these lists make: ``bench/startup.py``, ``bench/results/startup.md``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.paths import ROOT

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


# what rich-formatted help and errors load (typer.rich_utils): the root app uses click's plain formatter
RICH_HELP = ("typer.rich_utils", "rich.markdown", "markdown_it", "pygments", "rich.syntax", "rich.traceback")
XOFF_MACHINERY = ("yaml", "xoff.intent", "xoff.desired", "xoff.api", "xoff.report", "xoff.buffers", "xoff.deadlock")


def _modules_after_command(*argv: str) -> list[str]:
    """sys.modules after ``xoff ARGV`` ran to its end, started as the console script starts it."""
    code = (
        "import contextlib, io, json, sys\n"
        f"sys.argv = ['xoff', *{list(argv)!r}]\n"
        "from xoff.cli import main\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "code = 0\n"
        "try:\n"
        "    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        "        main()\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "print(json.dumps({'code': code, 'out': out.getvalue(), 'mods': sorted(sys.modules)}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    data = json.loads(done.stdout)
    assert data["code"] in (0, None, 2), data["out"]
    loaded: list[str] = data["mods"]
    return loaded


def _matching(loaded: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in loaded if m.split(".")[0] in prefixes or m.startswith(prefixes)]


@pytest.mark.parametrize("argv", [("--version",), ("--help",)])
def test_version_and_help_load_no_intent_machinery_no_pydantic_and_no_rich(argv: tuple[str, ...]) -> None:
    loaded = _modules_after_command(*argv)
    assert _matching(loaded, HEAVY + XOFF_HEAVY + XOFF_MACHINERY) == []
    assert _matching(loaded, ("pydantic", "rich", *RICH_HELP)) == []  # no rich at all: help is click's


@pytest.mark.parametrize(
    "argv", [("validate", "--help"), ("frobnicate",), ("validate", str(ROOT / "inventory" / "lab-mini"))]
)
def test_a_commands_help_usage_errors_and_validate_without_a_mode_load_none_of_xoff(argv: tuple[str, ...]) -> None:
    """typer (0.2x) builds a command's parameters with pydantic, so that comes; nothing of xoff's does:
    ``validate`` without a mode says the modes before it loads the intent."""
    loaded = _modules_after_command(*argv)
    assert _matching(loaded, HEAVY + XOFF_HEAVY + XOFF_MACHINERY + RICH_HELP) == []


def test_check_loads_the_intent_and_the_checks_but_no_device_library_renderer_or_lab() -> None:
    loaded = _modules_after_command("check", str(ROOT / "inventory" / "lab-mini"))
    assert "xoff.desired" in loaded and "xoff.validate.run" in loaded  # it did run
    assert _matching(loaded, HEAVY) == []
    assert _matching(loaded, ("xoff.render", "xoff.lab", "xoff.push", "xoff.collect", "xoff.connect")) == []
    assert _matching(loaded, RICH_HELP) == []


def test_validate_offline_json_quiet_loads_no_template_engine_no_rich_and_no_other_report() -> None:
    """A machine-format report prints only its own module's output: no HTML template engine, no people's tables, and
    with --quiet (or no terminal) no progress bars, so no rich at all (issue 19: the offline run's imports)."""
    argv = ("validate", str(ROOT / "inventory" / "lab-mini"), "--offline", "-f", "json", "-q")
    loaded = _modules_after_command(*argv)
    assert "xoff.validate.run" in loaded and "xoff.report.machine" in loaded  # it did run and report
    assert _matching(loaded, ("jinja2", "rich", "xoff.report.html", "xoff.report.people", "xoff.report.svg")) == []
    assert _matching(loaded, HEAVY) == []


def test_the_lab_collect_path_loads_no_invoke_and_no_template_engine() -> None:
    """What ``xoff validate --lab`` imports before its first connection (issue 19): paramiko without invoke (and so
    without unittest.mock and asyncio, ``connect._no_invoke``), the lab without its daemons' renderers (jinja2)."""
    loaded = _modules_after("import xoff.collect.engine, xoff.lab.provider, xoff.connect.session")
    assert "paramiko.config" in loaded and "netmiko" in loaded  # the device libraries did load
    assert _matching(loaded, ("invoke", "unittest", "asyncio", "jinja2", "xoff.render", "xoff.lab.daemons")) == []
    later = _modules_after("import xoff.connect.channel, invoke")
    assert "invoke" in later  # only paramiko's own import went without it
