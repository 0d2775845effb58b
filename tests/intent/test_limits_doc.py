"""docs/intent-limits.md states the loader's bounds as the code has them."""

from __future__ import annotations

from pathlib import Path

from xoff.intent import context, files, patterns, yamlsource

DOC = Path(__file__).parents[2] / "docs" / "intent-limits.md"


def test_the_limits_page_states_every_bound() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ")}
    stated = {
        "size of one intent file": f"({yamlsource.MAX_FILE_BYTES} bytes)",
        "size of all YAML files of one intent directory": f"({files.MAX_DIRECTORY_BYTES} bytes)",
        "YAML nodes (scalars, lists, mappings) written in one file": f"| {yamlsource.MAX_NODES} |",
        "nodes brought in by YAML aliases (`*name`) and merge keys (`<<`) in one file": (
            f"| {yamlsource.MAX_ALIAS_NODES} |"
        ),
        "names one brace pattern stands for (`gpu{1..128}`)": f"| {patterns.MAX_NAMES} |",
        "device and port names all brace patterns of one intent stand for together": (
            f"| {context.MAX_INTENT_NAMES} |"
        ),
    }
    for limit, value in stated.items():
        assert value in rows[limit], (limit, rows.get(limit))
