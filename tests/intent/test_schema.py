"""The JSON Schema in docs/ is generated from the models and must not go stale."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import yaml

from xoff.intent.schema import intent_schema, intent_schema_text


def test_docs_schema_is_fresh(root: Path) -> None:
    committed = (root / "docs" / "intent.schema.json").read_text(encoding="utf-8")
    assert committed == intent_schema_text(), "docs/intent.schema.json is stale: run `make schema`"


def test_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(intent_schema())


def test_examples_validate_against_schema(root: Path) -> None:
    """Editors using the schema accept every example file section by section."""
    schema = intent_schema()
    validator = jsonschema.Draft202012Validator(schema)
    for example in ("lab-mini",):
        merged: dict[str, object] = {}
        for f in sorted((root / "inventory" / example).rglob("*.yaml")):
            for key, value in yaml.safe_load(f.read_text()).items():
                if isinstance(value, list):
                    merged.setdefault(key, [])
                    merged[key] += value  # type: ignore[operator]
                elif isinstance(value, dict):
                    merged.setdefault(key, {})
                    merged[key].update(value)  # type: ignore[attr-defined]
                else:
                    merged[key] = value
        errors = sorted(validator.iter_errors(merged), key=lambda e: list(e.path))
        assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_schema_rejects_unknown_keys() -> None:
    validator = jsonschema.Draft202012Validator(intent_schema())
    doc = {"fabric": {"name": "x", "colour": "blue"}, "networks": {}}
    messages = [e.message for e in validator.iter_errors(doc)]
    assert any("colour" in m for m in messages)
    assert json.dumps(intent_schema())  # serialisable
