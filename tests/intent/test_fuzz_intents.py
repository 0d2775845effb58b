"""Mutated example intents through ``xoff plan``: bad input is always one located line per problem.

Each example draws one to three mutations of an example intent (a key deleted or misspelt, a value of
the wrong type, a bad enum value, a number out of range, a device entry written twice, a reference to
a name nobody defined, or a file's text broken: a tab, a missing space after a colon, an unclosed
bracket, a line indented too far, a line written twice, the file cut short), writes the intent back
and runs the CLI in-process. Whatever the mutation,
the run ends with exit 0 (it was still a valid intent) or exit 2 with every stderr line
``FILE:LINE:COL: field: what`` pointing into a file that was written, never a traceback (bounded time and
memory are held by the input limits, tests/intent/test_input_bounds.py, not by a clock here). Hypothesis runs
derandomized, so a run is the same on every machine.
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from xoff.cli import app

ROOT = Path(__file__).parents[2]
EXAMPLES = {  # example intent -> examples drawn (the large pod costs more per run)
    "tests/fixtures/intent/minimal.yaml": 50,
    "inventory/lab-mini": 50,
    "inventory/ib-pod": 20,
    "inventory/roce-pod": 12,
}
PROBLEM = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<field>[^:]+): \S")
WRONG_TYPES: list[Any] = [[], {}, "text", True, 3.5, None, 12, [1, [2]], {"a": {"b": 1}}]
OUT_OF_RANGE = [-1, 0, 65536, 99999999999, 2**64]
OPS = ("delete", "misspell", "wrong_type", "bad_enum", "out_of_range", "duplicate", "dangling", "syntax")
SYNTAX = ("tab", "no_space", "unclosed", "indent", "twice", "cut")

Node = tuple[str | int, ...]


def _files(example: str) -> dict[str, Any]:
    """Relative file name -> parsed YAML of an example intent (one file, or every file of a directory)."""
    src = ROOT / example
    if src.is_file():
        return {"intent.yaml": yaml.safe_load(src.read_text(encoding="utf-8"))}
    return {
        str(p.relative_to(src)): yaml.safe_load(p.read_text(encoding="utf-8"))
        for p in sorted(src.rglob("*.yaml"))
        if not any(part.startswith(".") for part in p.parts)
    }


def _nodes(data: Any, at: Node = ()) -> list[tuple[Node, Any]]:
    """Every (path, value) below ``data`` (the root excluded)."""
    out: list[tuple[Node, Any]] = []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        out.append(((*at, key), value))
        out.extend(_nodes(value, (*at, key)))
    return out


def _parent(data: Any, path: Node) -> Any:
    for part in path[:-1]:
        data = data[part]
    return data


def _candidates(op: str, data: Any) -> list[Node]:
    nodes = _nodes(data)
    if op in ("delete", "misspell"):
        return [p for p, _ in nodes if isinstance(p[-1], str)]
    if op in {"bad_enum", "dangling"}:
        return [p for p, v in nodes if isinstance(v, str)]
    if op == "out_of_range":
        return [p for p, v in nodes if isinstance(v, int) and not isinstance(v, bool)]
    if op == "duplicate":
        return [p for p, v in nodes if isinstance(p[-1], int) and isinstance(v, dict) and "name" in v]
    return [p for p, _ in nodes]


def _mutate(data: Any, op: str, path: Node, pick: int) -> None:
    parent = _parent(data, path)
    key = path[-1]
    if op == "delete":
        del parent[key]
    elif op == "misspell":
        parent[f"{key}x"] = parent.pop(key)
    elif op == "wrong_type":
        parent[key] = copy.deepcopy(WRONG_TYPES[pick % len(WRONG_TYPES)])
    elif op == "bad_enum":
        parent[key] = "bogus"
    elif op == "out_of_range":
        parent[key] = OUT_OF_RANGE[pick % len(OUT_OF_RANGE)]
    elif op == "duplicate":
        parent.append(copy.deepcopy(parent[key]))
    else:
        parent[key] = "ghost{1..2}" if "{" in parent[key] else "ghost1"


class Text(str):
    """A file whose YAML text was broken: written as it is, not mutated further."""


def _break_text(data: Any, how: str, at: int) -> Text:
    lines = yaml.safe_dump(data, sort_keys=False).splitlines(keepends=True)
    k = at % len(lines)
    line = lines[k]
    if how == "tab":
        lines[k] = "\t" + line
    elif how == "no_space":
        lines[k] = line.replace(": ", ":", 1)
    elif how == "unclosed":
        lines[k] = line.rstrip("\n") + " [\n"
    elif how == "indent":
        lines[k] = " " + line
    elif how == "twice":
        lines.insert(k, line)
    else:
        lines = lines[:k]
    return Text("".join(lines))


@st.composite
def mutated(draw: st.DrawFn, example: str) -> dict[str, Any]:
    files = copy.deepcopy(_files(example))
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(sorted(files)))
        op = draw(st.sampled_from(OPS))
        if isinstance(files[name], Text):
            continue
        if op == "syntax":
            files[name] = _break_text(files[name], draw(st.sampled_from(SYNTAX)), draw(st.integers(0, 10**6)))
            continue
        candidates = _candidates(op, files[name])
        if not candidates:
            continue
        path = draw(st.sampled_from(candidates))
        _mutate(files[name], op, path, draw(st.integers(0, 100)))
    return files


def _write(files: dict[str, Any], root: Path) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    for name, data in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        text = data if isinstance(data, Text) else yaml.safe_dump(data, sort_keys=False)
        target.write_text(text, encoding="utf-8")
    return root


def _check_run(files: dict[str, Any], work: Path) -> None:
    intent = _write(files, work / "intent")
    result = CliRunner().invoke(app, ["plan", str(intent)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 0:
        assert result.stderr == ""
        return
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines, "exit 2 with no problem said"
    written = {str(intent / name): (intent / name).read_text(encoding="utf-8").count("\n") + 1 for name in files}
    for line in lines:
        m = PROBLEM.match(line)
        assert m, f"not FILE:LINE:COL: field: ...: {line!r}"
        assert m["file"] in written, line
        assert 1 <= int(m["line"]) <= written[m["file"]], line


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_mutated_examples_are_reported_line_by_line(example: str, tmp_path: Path) -> None:
    @settings(
        max_examples=EXAMPLES[example],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutated(example))
    def run(files: dict[str, Any]) -> None:
        _check_run(files, tmp_path)

    run()


def test_an_unmutated_example_plans_cleanly(tmp_path: Path) -> None:
    """The harness itself: an example written back unchanged loads (exit 0), so exit 2 above is the mutation."""
    for example in EXAMPLES:
        intent = _write(_files(example), tmp_path / "intent")
        result = CliRunner().invoke(app, ["plan", str(intent)])
        assert result.exit_code == 0, (example, result.output)
