"""Bounds on the work an intent can cause, and unreadable files inside an intent directory.

Each refusal is one located line naming the limit; the tests check what was refused (the line),
not how long it took: the bounds make the refusal cheap, and a slow machine must not fail them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import xoff
from xoff.errors import InputError
from xoff.intent import context as intent_context
from xoff.intent import files, load_intent
from xoff.intent.patterns import MAX_NAMES, PatternError, expand
from xoff.intent.yamlsource import MAX_ALIAS_NODES, MAX_FILE_BYTES, MAX_NODES

MINIMAL = Path(__file__).parent.parent / "fixtures" / "intent" / "minimal.yaml"

# a billion-laughs document: each level is ten aliases of the level above, 10**9 leaves in all
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{cur}: &{cur} [{', '.join([f'*{prev}'] * 10)}]\n" for prev, cur in zip("abcdefgh", "bcdefghi", strict=True)
)


def _refusal(path: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_intent(path)
    return info.value.render().splitlines()


def test_alias_bomb_refused_at_the_key_that_expands_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bomb.yaml").write_text(ALIAS_BOMB, encoding="utf-8")
    assert _refusal(Path("bomb.yaml")) == [
        f"bomb.yaml:5:1: e: YAML aliases bring in more than {MAX_ALIAS_NODES} nodes"
        f" (allowed: at most {MAX_ALIAS_NODES} nodes copied by aliases per file)"
    ]


def test_file_over_the_size_limit_refused_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with Path("big.yaml").open("wb") as fh:  # sparse: no 16 MiB written
        fh.truncate(MAX_FILE_BYTES + 1)
    assert _refusal(Path("big.yaml")) == [
        f"big.yaml:1:1: file is {MAX_FILE_BYTES + 1} bytes, over the limit of {MAX_FILE_BYTES} bytes per intent file"
        " (allowed: split the intent into several files of a directory)"
    ]


def test_file_of_too_many_nodes_refused_at_the_first_node_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("wide.yaml").write_text("a: [" + "1," * MAX_NODES + "1]\n", encoding="utf-8")
    # nodes: the document's mapping, the key a, the list, then the list's items: item k is node k + 3
    column = 4 + 2 * (MAX_NODES - 3) + 1
    assert _refusal(Path("wide.yaml")) == [
        f"wide.yaml:1:{column}: more than {MAX_NODES} YAML nodes in one file"
        " (allowed: split the intent into several files, or use brace patterns and roles)"
    ]


def test_directory_over_the_total_limit_names_the_file_that_passes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(files, "MAX_DIRECTORY_BYTES", 3 * MINIMAL.stat().st_size // 2)
    Path("intent").mkdir()
    shutil.copy(MINIMAL, "intent/a.yaml")
    shutil.copy(MINIMAL, "intent/b.yaml")
    limit = files.MAX_DIRECTORY_BYTES
    assert _refusal(Path("intent")) == [
        f"intent/b.yaml:1:1: the YAML files of intent pass {limit} bytes together at this file"
        f" (allowed: at most {limit} bytes per intent directory)"
    ]


@pytest.mark.parametrize(
    "pattern",
    ["gpu{1..1000000}", "gpu{1..99999999999999}", "gpu{1..1000}{1..1000}", "g{a..z}{0..99999}"],
)
def test_brace_pattern_over_the_name_limit(pattern: str) -> None:
    with pytest.raises(PatternError) as info:
        expand(pattern)
    assert str(info.value) == (
        f"{pattern!r} stands for more than {MAX_NAMES} names (allowed: at most {MAX_NAMES} names per pattern)"
    )


def test_brace_pattern_at_the_name_limit_expands() -> None:
    names = expand(f"gpu{{1..{MAX_NAMES}}}")
    assert (len(names), names[0], names[-1]) == (MAX_NAMES, "gpu1", f"gpu{MAX_NAMES}")


def test_brace_pattern_over_the_limit_in_an_intent_is_located(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = MINIMAL.read_text(encoding="utf-8")
    written = '  - {name: "gpu{1..2}", profile'
    assert text.count(written) == 1
    Path("intent.yaml").write_text(text.replace(written, written.replace("2}", "5000000}")), encoding="utf-8")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.startswith(written))
    assert _refusal(Path("intent.yaml")) == [
        f"intent.yaml:{line}:12: hosts[0].name: 'gpu{{1..5000000}}' stands for more than {MAX_NAMES} names"
        f" (allowed: at most {MAX_NAMES} names per pattern)"
    ]


def _directory_with(tmp_path: Path, **links: str) -> Path:
    root = tmp_path / "intent"
    root.mkdir()
    shutil.copy(MINIMAL, root / "main.yaml")
    for name, target in links.items():
        (root / name.replace("_", ".")).symlink_to(target)
    return root


def test_dangling_symlink_is_named_not_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _directory_with(tmp_path, qos_yaml="gone.yaml")
    assert _refusal(Path("intent")) == [
        "intent/qos.yaml:1:1: cannot read file: dangling symlink to gone.yaml (allowed: a symlink to a readable file)"
    ]


def test_symlink_loop_is_named_not_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _directory_with(tmp_path, a_yml="b.yml", b_yml="a.yml")
    assert _refusal(Path("intent")) == [
        "intent/a.yml:1:1: cannot read file: symlink loop (allowed: a symlink to a readable file)",
        "intent/b.yml:1:1: cannot read file: symlink loop (allowed: a symlink to a readable file)",
    ]


def test_cli_check_refuses_an_alias_bomb_with_exit_2_and_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text(ALIAS_BOMB, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "xoff", "check", "bomb.yaml"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(xoff.__file__).parents[1])},  # this checkout's xoff
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert result.returncode == 2, output
    assert output.strip().splitlines() == [
        f"bomb.yaml:5:1: e: YAML aliases bring in more than {MAX_ALIAS_NODES} nodes"
        f" (allowed: at most {MAX_ALIAS_NODES} nodes copied by aliases per file)"
    ]


def test_names_of_all_patterns_together_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-intent budget: said once, at the pattern that passes it; cabling of the devices left out is skipped."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(intent_context, "MAX_INTENT_NAMES", 6)
    shutil.copy(MINIMAL, "intent.yaml")
    text = MINIMAL.read_text(encoding="utf-8")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "Ethernet{0..56..8}" in t)
    assert _refusal(Path("intent.yaml")) == [
        f"intent.yaml:{line}:16: roles.spine.ports[0].name: 'Ethernet{{0..56..8}}' takes the names of this"
        " intent's patterns past 6 (allowed: at most 6 device and port names per intent)"
    ]
