"""The intent's JSON Schema, generated from the models (never written by hand)."""

from __future__ import annotations

import json

from xoff.intent.document import IntentDocument

SCHEMA_ID = "https://xoff.dev/schemas/intent.schema.json"


def intent_schema() -> dict[str, object]:
    schema = IntentDocument.model_json_schema(mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def intent_schema_text() -> str:
    return json.dumps(intent_schema(), indent=2, sort_keys=True) + "\n"
