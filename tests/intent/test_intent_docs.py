"""docs/intent.md (the reference for writing an intent) and the JSON Schema describe every field: generated, never
stale, no property without a description, every field with an example."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.docs import fresh_doc
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.intent.docs import missing_examples, model_tree
from xoff.intent.schema import intent_schema
from xoff.platforms.registry import names


def test_docs_intent_md_is_fresh(root: Path) -> None:
    """Generated in a fresh interpreter from the checkout (the examples are the checkout's inventory/)."""
    fresh_doc(root, "xoff.intent.docs", "docs/intent.md")


def _properties(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            out += [(f"{path}.{k}", v) for k, v in node["properties"].items()]
        for key, value in node.items():
            out += _properties(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _properties(value, f"{path}[{i}]")
    return out


def test_no_schema_property_has_an_empty_description() -> None:
    props = _properties(intent_schema())
    assert len(props) > 100
    empty = [path for path, prop in props if not str(prop.get("description", "")).strip()]
    assert empty == [], f"schema properties without a description: {empty}"


def test_every_field_has_an_example() -> None:
    assert missing_examples() == []


def test_every_model_and_field_is_in_the_page(root: Path) -> None:
    page = (root / "docs" / "intent.md").read_text(encoding="utf-8")
    for model in model_tree():
        section = page.split(f"\n## {model.__name__}\n", 1)[1].split("\n## ", 1)[0]
        for name, info in model.model_fields.items():
            row = next((line for line in section.splitlines() if line.startswith(f"| `{name}` |")), None)
            assert row is not None, f"{model.__name__}.{name} is not in docs/intent.md"
            cells = [c.strip() for c in row.strip("|").split(" | ")]
            assert len(cells) == 6 and all(cells[i] for i in (1, 2, 4, 5)), row  # type, default, description, example
            assert (cells[2] == "required") == info.is_required(), row


def test_platform_is_a_closed_set_of_the_registered_switch_platforms(tmp_path: Path) -> None:
    schema = intent_schema()
    platform = schema["$defs"]["SwitchSettings"]["properties"]["platform"]  # type: ignore[index]
    assert platform["anyOf"][0]["enum"] == list(names("switch"))
    intent = tmp_path / "intent.yaml"
    intent.write_text(
        "fabric: {name: t}\nnetworks:\n  management: {prefix: 198.18.0.0/24}\n"
        "  compute: {kind: roce, qos_policy: p, p2p_prefix: 198.18.8.0/24, loopback_prefix: 198.18.9.0/24}\n"
        "switches:\n  - {name: leaf1, role: leaf, platform: junos}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_intent(intent)
    lines = [str(p) for p in caught.value.problems if p.path == "switches[0].platform"]
    allowed = " or ".join(", ".join(f"'{n}'" for n in names("switch")).rsplit(", ", 1))
    assert lines == [f"{intent}:6:41: switches[0].platform: 'junos' is not allowed (allowed: {allowed})"]
