"""docs/intent.md, the reference for writing an intent, generated from the intent models (a test fails when it is
stale): every field with its type, default, allowed values, description and an example.

``python -m xoff.intent.docs > docs/intent.md`` (run from the checkout: the examples come from ``inventory/``).
Types, allowed values and descriptions are read from the JSON Schema the models give (``xoff.intent.schema``),
defaults from the models, examples from the shipped example intents (their YAML as written), else from a field's
own ``examples``.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from xoff.intent.document import IntentDocument
from xoff.intent.files import read_intent_parts
from xoff.intent.schema import intent_schema

EXAMPLES = Path("inventory")
MAX_CELL = 90

HEADER = """\
# Intent reference

Generated from the intent models (`src/xoff/intent/`) and the example intents in `inventory/` by
`python -m xoff.intent.docs > docs/intent.md`; a test fails when this page is stale. The same facts, for an
editor, are in the JSON Schema `docs/intent.schema.json` (`xoff schema -o intent.schema.json`).

An intent is one YAML file or a directory of them (lists concatenate, mappings merge, a key defined twice is an
error naming both places). Every key is checked: an unknown key, a value of the wrong type or out of range is one
located line `FILE:LINE:COL: path: problem (allowed: ...)`. Names of switches, hosts and ports may be brace
patterns (`leaf{1..8}`, `gpu{001..128}`, `Ethernet{0..248..8}`); an address given for a pattern is the first
one. Switch settings inherit `defaults.switch` -> `roles.<role>` -> `roles.<network>-<role>` -> the switch.
Speeds are Mb/s or `400G`; lengths metres or `40m`; byte counts integers or `64KB`, `1MiB`.

Each section is one kind of mapping, with the places it is written; in the tables, *type* links to the section
of a nested mapping, *default* is what an absent key means (`required`: it must be given), *allowed* lists the
values the schema accepts beyond the type, and *example* is taken from the example intents where they use it.
"""


def _unwrap(annotation: Any) -> Iterator[Any]:
    """Every type inside ``annotation`` (through Annotated, unions, lists, dicts), the outer one first."""
    yield annotation
    for arg in typing.get_args(annotation):
        if not isinstance(arg, (str, int, float, bool)) and arg is not None:
            yield from _unwrap(arg)


def _models(annotation: Any) -> list[type[BaseModel]]:
    out: list[type[BaseModel]] = []
    for t in _unwrap(annotation):
        if isinstance(t, type) and issubclass(t, BaseModel) and t not in out:
            out.append(t)
    return out


def _is_mapping(annotation: Any) -> bool:
    return any(typing.get_origin(t) is dict for t in _unwrap(annotation))


def _pick(models: list[type[BaseModel]], item: dict[str, Any]) -> type[BaseModel] | None:
    """The model a mapping is (a discriminated union picks by its ``kind``)."""
    if len(models) == 1:
        return models[0]
    for model in models:
        kind = model.model_fields.get("kind")
        if kind is not None and item.get("kind") in typing.get_args(kind.annotation):
            return model
    return None


def _children(annotation: Any, value: Any) -> Iterator[tuple[type[BaseModel], dict[str, Any]]]:
    models = _models(annotation)
    if not models:
        return
    if isinstance(value, dict):
        items = list(value.values()) if _is_mapping(annotation) else [value]
    elif isinstance(value, list):
        items = value
    else:
        return
    for item in items:
        model = _pick(models, item) if isinstance(item, dict) else None
        if model is not None:
            yield model, item


def _collect(model: type[BaseModel], data: dict[str, Any], found: dict[tuple[str, str], Any]) -> None:
    for key, value in data.items():
        info = model.model_fields.get(key)
        if info is None:
            continue
        found.setdefault((model.__name__, key), value)
        for sub, item in _children(info.annotation, value):
            _collect(sub, item, found)


def example_values(examples: Path = EXAMPLES) -> dict[tuple[str, str], Any]:
    """(model name, field) -> the first value the example intents write there, as written."""
    found: dict[tuple[str, str], Any] = {}
    for path in sorted(p for p in examples.iterdir() if p.is_dir()):
        data = read_intent_parts(path).data
        _collect(IntentDocument, data, found)
    return found


def model_tree() -> dict[type[BaseModel], list[str]]:
    """Every intent model, in the order a reader meets them, with the places it is written."""
    out: dict[type[BaseModel], list[str]] = {IntentDocument: ["(top level)"]}
    queue: list[type[BaseModel]] = [IntentDocument]
    while queue:
        model = queue.pop(0)
        for name, info in model.model_fields.items():
            for where in out[model]:
                prefix = "" if where == "(top level)" else f"{where}."
                suffix = ".<name>" if _is_mapping(info.annotation) else ""
                suffix += "[]" if any(typing.get_origin(t) is list for t in _unwrap(info.annotation)) else ""
                for sub in _models(info.annotation):
                    places = out.setdefault(sub, [])
                    place = f"{prefix}{name}{suffix}"
                    if place not in places and len(places) < 6:
                        places.append(place)
                    if sub not in queue and sub is not model and len(places) == 1:
                        queue.append(sub)
    return out


def _flow(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=10**6, sort_keys=False).strip()
    text = text.removesuffix("\n...").strip()
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _default(model: type[BaseModel], name: str) -> str:
    info = model.model_fields[name]
    if info.is_required():
        return "required"
    value = info.default if info.default_factory is None else info.default_factory()  # type: ignore[call-arg]
    if value is PydanticUndefined:
        return "required"
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_defaults=True)
        return f"`{_flow(value)}`" + (" (each key's default)" if value == {} else "")
    if isinstance(value, list):
        value = [v.model_dump(mode="json") if isinstance(v, BaseModel) else v for v in value]
    if value is None:
        return "none"
    return f"`{_flow(value)}`"


_SCALARS = {"integer": "integer", "string": "string", "boolean": "boolean", "number": "number"}
_FORMATS = {"ipv4": "IPv4 address", "ipv4network": "IPv4 prefix", "ipv4interface": "IPv4 address/length"}


def _anchor(name: str) -> str:
    return name.lower()


def _type(node: dict[str, Any]) -> str:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    union = node.get("anyOf") or node.get("oneOf")
    if union:
        return " or ".join(dict.fromkeys(_type(n) for n in union if n.get("type") != "null"))
    kind = node.get("type")
    if kind == "array":
        return f"list of {_type(node.get('items', {}))}"
    if kind == "object":
        return f"map of name to {_type(node.get('additionalProperties', {}))}"
    if "format" in node:
        return _FORMATS.get(str(node["format"]), str(node["format"]))
    return _SCALARS.get(str(kind), "any")


def _bounds(lo: object, hi: object, unit: str) -> str:
    if lo is not None and hi is not None:
        return f"{lo}{unit}" if lo == hi else f"{lo}..{hi}{unit}"
    return f">= {lo}{unit}" if lo is not None else f"<= {hi}{unit}"


def _allowed(node: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in ("anyOf", "oneOf"):
        for sub in node.get(key, []):
            out += _allowed(sub)
    if "enum" in node:
        out.append(", ".join(f"`{v}`" for v in node["enum"]))
    if "const" in node:
        out.append(f"`{node['const']}`")
    if "minimum" in node or "maximum" in node:
        out.append(_bounds(node.get("minimum"), node.get("maximum"), ""))
    if "pattern" in node:
        out.append(f"pattern `{node['pattern']}`")
    if "minItems" in node or "maxItems" in node:
        out.append(_bounds(node.get("minItems"), node.get("maxItems"), " items"))
    if "minProperties" in node:
        out.append(f"at least {node['minProperties']} entry")
    if "propertyNames" in node:
        out += [f"keys: {a}" for a in _allowed(node["propertyNames"])]
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict) and "$ref" not in node[key]:
            out += _allowed(node[key])
    return list(dict.fromkeys(out))


def _example(model: type[BaseModel], name: str, node: dict[str, Any], found: dict[tuple[str, str], Any]) -> str:
    if node.get("examples"):
        return f"`{name}: {_flow(node['examples'][0])}`"
    for cls in model.__mro__:
        if (cls.__name__, name) in found:
            return f"`{name}: {_flow(found[(cls.__name__, name)])}`"
    return ""


def missing_examples(examples: Path = EXAMPLES) -> list[str]:
    """``Model.field`` of every field with no example (a test holds this empty)."""
    schema, found = intent_schema(), example_values(examples)
    out = []
    for model in model_tree():
        node = _node(schema, model)
        for name in model.model_fields:
            if not _example(model, name, node["properties"][name], found):
                out.append(f"{model.__name__}.{name}")
    return out


def _node(schema: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    if model is IntentDocument:
        return schema
    node: dict[str, Any] = schema["$defs"][model.__name__]
    return node


def _section(model: type[BaseModel], places: list[str], schema: dict[str, Any], found: dict[Any, Any]) -> list[str]:
    node = _node(schema, model)
    lines = ["", f"## {model.__name__}", ""]
    lines.append("Written at: " + ", ".join(f"`{p}`" for p in places) + ".")
    if model.__doc__:
        lines += ["", " ".join(model.__doc__.split())]
    lines += ["", "| field | type | default | allowed | description | example |", "|---|---|---|---|---|---|"]
    for name in model.model_fields:
        prop = node["properties"][name]
        cells = [
            f"`{name}`",
            _type(prop),
            _default(model, name),
            "; ".join(_allowed(prop)),
            prop.get("description", ""),
            _example(model, name, prop, found),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return lines


def intent_markdown(examples: Path = EXAMPLES) -> str:
    schema, found = intent_schema(), example_values(examples)
    tree = model_tree()
    lines = [HEADER, "## Contents", ""]
    lines += [f"- [{m.__name__}](#{_anchor(m.__name__)}): `{places[0]}`" for m, places in tree.items()]
    for model, places in tree.items():
        lines += _section(model, places, schema, found)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # python -m xoff.intent.docs [EXAMPLES_DIR] > docs/intent.md
    print(intent_markdown(Path(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLES), end="")

__all__ = ["intent_markdown", "missing_examples"]
