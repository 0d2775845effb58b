"""CONFIG_DB tables as YANG instance data, and their validation against SONiC's own models.

Translation (driven by the compiled schema, see ``yang_schema``; no table is special-cased):

- a table ``T`` is the container ``T`` under its module's top container (``sonic-port/PORT``);
- a key ``k`` goes to the child container named ``k`` if there is one (``DEVICE_METADATA|localhost``),
  else to the list of ``T`` whose number of key leaves equals the number of ``|``-separated parts
  of ``k`` (``INTERFACE|Ethernet0`` -> INTERFACE_LIST, ``INTERFACE|Ethernet0|10.0.0.0/31`` ->
  INTERFACE_IPPREFIX_LIST), the parts filling the keys in order;
- a field is a leaf, or a leaf-list (a JSON list, or Redis's ``name@`` with comma-joined values);
  a field that is neither belongs to the entry's nested one-key list, whose key takes the field
  name and whose one other leaf takes the value (``DSCP_TO_TC_MAP|AZURE`` ``"26": "3"`` ->
  ``<DSCP_TO_TC_MAP><dscp>26</dscp><tc>3</tc></DSCP_TO_TC_MAP>``).

The instance data is written as XML, not JSON: libyang 2.1.30's JSON parser rejects SONiC's
string-encoded numbers and booleans, while XML carries every value as text (the models folder's
README, "Validating instance data"). Validation runs Debian's ``yanglint`` on it.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from xoff.platforms.sonic.yang_schema import Node, YangSchema, load_schema, yanglint

__all__ = [
    "YangTranslationError",
    "config_db_to_xml",
    "modules_of",
    "validate_config_db",
    "validate_xml",
    "yang_json_to_config_db",
]

ConfigDb = Mapping[str, Mapping[str, Mapping[str, Any]]]


class YangTranslationError(ValueError):
    """CONFIG_DB content that has no place in the YANG models; ``problems`` lists every one."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class _Element:
    """An XML element under construction: leaf text or ordered children."""

    name: str
    text: str | None = None
    children: list[_Element] = field(default_factory=list)
    namespace: str | None = None

    def write(self, out: list[str], depth: int) -> None:
        pad = "  " * depth
        xmlns = f' xmlns="{self.namespace}"' if self.namespace else ""
        if self.text is not None:
            out.append(f"{pad}<{self.name}{xmlns}>{escape(self.text)}</{self.name}>")
        elif not self.children:
            out.append(f"{pad}<{self.name}{xmlns}/>")
        else:
            out.append(f"{pad}<{self.name}{xmlns}>")
            for child in self.children:
                child.write(out, depth + 1)
            out.append(f"{pad}</{self.name}>")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | str):
        return str(value)
    raise TypeError(f"{type(value).__name__} value {value!r}")


def _inner_map(node: Node) -> tuple[Node, Node] | None:
    """The nested one-key list that holds an entry's extra fields, and its value leaf."""
    for child in node.lists():
        if len(child.keys) != 1:
            continue
        values = [c for c in child.value_children() if c.name not in child.keys]
        if len(values) == 1 and values[0].kind == "leaf":
            return child, values[0]
    return None


def _fields(node: Node, fields: Mapping[str, Any], where: str, problems: list[str]) -> list[_Element]:
    out: list[_Element] = []
    inner: list[_Element] = []
    nested = _inner_map(node)
    for name, value in fields.items():
        if name == "NULL" and value == "NULL":
            continue  # Redis's placeholder for a hash with no fields
        base = name[:-1] if name.endswith("@") else name
        child = node.children.get(base)
        try:
            if child is not None and child.kind == "leaf-list":
                items = value.split(",") if name.endswith("@") and isinstance(value, str) else value
                if not isinstance(items, list):
                    problems.append(f"{where}: field {name} is a leaf-list and needs a list, not {value!r}")
                    continue
                out.extend(_Element(base, _text(v)) for v in items)
            elif child is not None and child.kind == "leaf" and base not in node.keys and name == base:
                out.append(_Element(base, _text(value)))
            elif child is None and nested is not None:
                inner_list, value_leaf = nested
                inner.append(
                    _Element(
                        inner_list.name,
                        children=[_Element(inner_list.keys[0], name), _Element(value_leaf.name, _text(value))],
                    )
                )
            else:
                allowed = ", ".join(c.name for c in node.value_children() if c.name not in node.keys)
                problems.append(f"{where}: unknown field {name!r} (allowed: {allowed or 'none'})")
        except TypeError as exc:
            problems.append(f"{where}: field {name} has an unusable {exc}")
    return out + inner


def _entry(table: str, node: Node, key: str, fields: Any, problems: list[str]) -> tuple[str, _Element] | None:
    where = f"{table}|{key}"
    if not isinstance(fields, Mapping):
        problems.append(f"{where}: fields must be a mapping, not {type(fields).__name__}")
        return None
    container = node.children.get(key)
    if container is not None and container.kind == "container":
        return container.name, _Element(container.name, children=_fields(container, fields, where, problems))
    parts = key.split("|")
    lists = [n for n in node.lists() if len(n.keys) == len(parts)]
    if len(lists) != 1:
        forms = [f"{table}|" + "|".join(f"<{k}>" for k in n.keys) for n in node.lists()]
        forms += [f"{table}|{n.name}" for n in node.children.values() if n.kind == "container"]
        problems.append(f"{where}: no single list for a {len(parts)}-part key (allowed: {', '.join(forms)})")
        return None
    (list_node,) = lists
    keys = [_Element(k, part) for k, part in zip(list_node.keys, parts, strict=True)]
    return list_node.name, _Element(list_node.name, children=keys + _fields(list_node, fields, where, problems))


def config_db_to_xml(config_db: ConfigDb, schema: YangSchema) -> str:
    """The XML instance document of a CONFIG_DB dict; raises YangTranslationError listing every
    table, key or field the models have no place for."""
    problems: list[str] = []
    tops: dict[str, _Element] = {}
    for table, entries in config_db.items():
        spec = schema.tables.get(table)
        if spec is None:
            problems.append(f"{table}: no YANG model in {schema.directory} defines this table")
            continue
        if not isinstance(entries, Mapping):
            problems.append(f"{table}: must map keys to fields, not {type(entries).__name__}")
            continue
        top = tops.setdefault(spec.module, _Element(spec.top, namespace=spec.namespace))
        by_node: dict[str, list[_Element]] = {}
        for key, fields in entries.items():
            made = _entry(table, spec.node, str(key), fields, problems)
            if made is not None:
                by_node.setdefault(made[0], []).append(made[1])
        top.children.append(_Element(table, children=[e for group in by_node.values() for e in group]))
    if problems:
        raise YangTranslationError(problems)
    out: list[str] = ['<?xml version="1.0" encoding="UTF-8"?>']
    for element in tops.values():
        element.write(out, 0)
    return "\n".join(out) + "\n"


def yang_json_to_config_db(document: Mapping[str, Any], schema: YangSchema) -> dict[str, dict[str, dict[str, Any]]]:
    """YANG-JSON instance data (``{"sonic-port:sonic-port": {"sonic-port:PORT": {"PORT_LIST": [...]}}}``)
    as CONFIG_DB tables: the inverse of the translation above. Values become strings as CONFIG_DB
    holds them (booleans ``"true"``/``"false"``); leaf-lists stay lists."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for top_name, top in document.items():
        for table_name, table in top.items():
            table_key = table_name.split(":", 1)[-1]
            spec = schema.tables.get(table_key)
            if spec is None:
                raise YangTranslationError([f"{top_name}/{table_name}: not a table of the models"])
            rows = out.setdefault(table_key, {})
            for child_name, value in table.items():
                node = spec.node.children.get(child_name.split(":", 1)[-1])
                if node is None:
                    raise YangTranslationError([f"{table_key}: no node {child_name}"])
                if node.kind == "container":
                    rows[node.name] = _flat_fields(node, value)
                    continue
                for entry in value:
                    key = "|".join(_text(entry[k]) for k in node.keys)
                    rows[key] = _flat_fields(node, {k: v for k, v in entry.items() if k not in node.keys})
    return out


def _flat_fields(node: Node, entry: Mapping[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, value in entry.items():
        child = node.children.get(name)
        if child is not None and child.kind == "list" and len(child.keys) == 1:
            (key,) = child.keys
            (leaf,) = [c.name for c in child.value_children() if c.name != key]
            for item in value:
                fields[_text(item[key])] = _text(item[leaf])
        elif isinstance(value, list):
            fields[name] = [_text(v) for v in value]
        else:
            fields[name] = _text(value)
    return fields


# --- validation -----------------------------------------------------------------------------------

_LOCATION = re.compile(r'Data location "(?P<path>[^"]+)"')
_STEP = re.compile(r"/(?:[\w.-]+:)?(?P<name>[\w.-]+)(?P<preds>(?:\[[^\]]*\])*)")
_PRED = re.compile(r"\[[\w.-]+='(?P<value>[^']*)'\]")


def _config_db_location(path: str, schema: YangSchema) -> str | None:
    """``/sonic-x:sonic-x/TABLE/LIST[k='a'][k2='b']/field`` -> ``TABLE|a|b field``."""
    steps = list(_STEP.finditer(path))
    if len(steps) < 3 or steps[1].group("name") not in schema.tables:
        return None
    table = steps[1].group("name")
    keys = [m.group("value") for m in _PRED.finditer(steps[2].group("preds"))] or [steps[2].group("name")]
    rest = [s.group("name") for s in steps[3:]]
    inner = [m.group("value") for s in steps[3:] for m in _PRED.finditer(s.group("preds"))]
    field_name = inner[0] if inner else (rest[-1] if rest else None)
    where = "|".join([table, *keys])
    return f"{where} {field_name}" if field_name else where


def validate_xml(xml: str, schema: YangSchema, modules: Iterable[str] | None = None) -> list[str]:
    """yanglint's error lines for an XML instance document (empty when it is valid).

    ``modules``: the modules to load (with their imports); default all of the directory."""
    with tempfile.TemporaryDirectory(prefix="xoff-yang-") as tmp:
        data = Path(tmp) / "config_db.xml"
        data.write_text(xml, encoding="utf-8")
        files = [str(p) for p in schema.load_order(modules)]
        proc = subprocess.run(
            [yanglint(), "-Q", "-t", "config", "-p", str(schema.directory), *files, str(data)],
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode == 0:
        return []
    lines = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
    if any(line.startswith("libyang err") for line in lines):  # the rest is "failed to parse <tmp file>"
        lines = [line for line in lines if line.startswith("libyang err")]
    out: list[str] = []
    for line in lines:
        match = _LOCATION.search(line)
        where = _config_db_location(match.group("path"), schema) if match else None
        out.append(f"{line} [CONFIG_DB {where}]" if where else line)
    return out or [f"yanglint exited with {proc.returncode} and no message"]


def validate_config_db(config_db: ConfigDb, yang_dir: Path | None = None) -> list[str]:
    """Validate CONFIG_DB tables against the SONiC YANG models in ``yang_dir`` (default: the
    ``settings`` lookup). Returns the error lines; an empty list means valid. Content the models
    have no place for (an unknown table, key form or field) is reported the same way."""
    schema = load_schema(yang_dir)
    try:
        xml = config_db_to_xml(config_db, schema)
    except YangTranslationError as exc:
        return exc.problems
    return validate_xml(xml, schema, modules_of(config_db, schema))


def modules_of(config_db: ConfigDb, schema: YangSchema) -> set[str]:
    """The modules that define the tables of a CONFIG_DB dict."""
    return {schema.tables[t].module for t in config_db if t in schema.tables}
