"""Every loaded value remembers file:line:column; YAML problems are located, never tracebacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from xoff.errors import InputError, Location
from xoff.intent.files import read_intent_parts
from xoff.intent.yamlsource import load_yaml


def _write(tmp_path: Path, text: str, name: str = "i.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_positions_of_values_and_keys(tmp_path: Path) -> None:
    p = _write(tmp_path, "a:\n  b: 1\n  c:\n    - x\n    - {d: 2}\n")
    data, smap = load_yaml(p, display="i.yaml")
    assert data == {"a": {"b": 1, "c": ["x", {"d": 2}]}}
    assert smap.value(("a", "b")) == Location("i.yaml", 2, 6)
    assert smap.key(("a", "b")) == Location("i.yaml", 2, 3)
    assert smap.value(("a", "c", 1, "d")) == Location("i.yaml", 5, 11)
    # a path that holds no value falls back to its nearest ancestor
    assert smap.value(("a", "c", 1, "zzz")) == Location("i.yaml", 5, 7)


def test_duplicate_keys_are_errors(tmp_path: Path) -> None:
    p = _write(tmp_path, "a: 1\nb: 2\na: 3\n")
    with pytest.raises(InputError) as exc:
        load_yaml(p, display="i.yaml")
    assert (
        exc.value.render() == "i.yaml:3:1: a: duplicate key, first at i.yaml:1:1 (allowed: each key once per mapping)"
    )


def test_merge_keys_and_anchors(tmp_path: Path) -> None:
    p = _write(tmp_path, "base: &b {x: 1, y: 2}\nderived:\n  <<: *b\n  y: 3\n")
    data, _ = load_yaml(p)
    assert data["derived"] == {"x": 1, "y": 3}


def test_syntax_error_is_located(tmp_path: Path) -> None:
    p = _write(tmp_path, "a: [1, 2\nb: 3\n")
    with pytest.raises(InputError) as exc:
        load_yaml(p, display="i.yaml")
    line = exc.value.render()
    assert line.startswith("i.yaml:") and "malformed YAML" in line and "\n" not in line


def test_directory_merge_concatenates_lists_and_reindexes(tmp_path: Path) -> None:
    _write(tmp_path, "hosts:\n  - {name: a}\n", "1.yaml")
    _write(tmp_path, "hosts:\n  - {name: b}\n  - {name: c}\n", "2.yaml")
    raw = read_intent_parts(tmp_path)
    data, smap = raw.data, raw.smap
    assert [h["name"] for h in data["hosts"]] == ["a", "b", "c"]
    loc = smap.value(("hosts", 2, "name"))
    assert loc is not None and loc.file.endswith("2.yaml") and loc.line == 3


def test_directory_merge_rejects_a_section_key_defined_twice(tmp_path: Path) -> None:
    _write(tmp_path, "roles:\n  leaf: {asic: spectrum4}\n", "1.yaml")
    _write(tmp_path, "roles:\n  spine: {}\n  leaf: {asic: spectrum3}\n", "2.yaml")
    (problem,) = read_intent_parts(tmp_path).problems
    assert problem.path == "roles.leaf"
    assert problem.message == (
        f"defined twice, first at {tmp_path / '1.yaml'}:2:3 (allowed: each roles entry in one file only)"
    )
    assert problem.location == Location(str(tmp_path / "2.yaml"), 3, 3)
