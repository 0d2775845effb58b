"""containerlab's own JSON Schema as a validator, for the exported topologies (tests/lab_offline/test_clab_export.py,
tests/lab_offline/test_lab_assets.py). The schema is read from ../shared/schemas/containerlab, never copied here."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import regex

from tests.support.paths import ROOT

REPO = ROOT


def schema_path() -> Path:
    """XOFF_CLAB_SCHEMA, else the shared schemas beside the checkout, else the workplace's copy."""
    if os.environ.get("XOFF_CLAB_SCHEMA"):
        return Path(os.environ["XOFF_CLAB_SCHEMA"])
    candidates = [
        REPO.parent / "shared/schemas/containerlab/clab.schema.json",
        Path("/work/shared/schemas/containerlab/clab.schema.json"),
    ]
    found = next((p for p in candidates if p.is_file()), None)
    if found is None:
        pytest.fail(
            f"containerlab's JSON Schema not found (set XOFF_CLAB_SCHEMA; looked in {', '.join(map(str, candidates))})"
        )
    return found


@cache
def validator() -> jsonschema.protocols.Validator:
    """Draft-07 with `pattern` evaluated by the `regex` module: the schema's address patterns use
    Unicode property escapes (\\p{N}\\p{L}) that Python's re refuses (see the schema folder's README)."""

    def pattern(v: Any, patrn: str, instance: Any, schema: Any) -> Any:
        if isinstance(instance, str) and not regex.search(patrn, instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {patrn!r}")

    cls = jsonschema.validators.extend(jsonschema.Draft7Validator, {"pattern": pattern})
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    regexes = jsonschema.FormatChecker()
    regexes.checks("regex", raises=regex.error)(regex.compile)  # the metaschema's "format: regex", likewise
    cls.check_schema(schema, format_checker=regexes)
    return cls(schema)


def errors(doc: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator().iter_errors(doc)]
