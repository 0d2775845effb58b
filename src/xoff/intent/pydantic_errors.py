"""Turn pydantic validation errors into one-line, located problems.

Pydantic's ``loc`` mixes data keys with union-branch tags; we walk the data alongside it so the
printed path is exactly what the user wrote, and phrase each error as "what is wrong (what is allowed)".
"""

from __future__ import annotations

import ipaddress
import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from xoff.errors import Problem
from xoff.intent.types import describe
from xoff.intent.yamlsource import Path_, SourceMap, dotted


def _child(cur: Any, part: str | int) -> tuple[bool, Any]:
    """(True, value) if ``part`` indexes real data in ``cur``; (False, None) for a union tag."""
    if isinstance(cur, dict) and isinstance(part, str) and part in cur:
        return True, cur[part]
    if isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur):
        return True, cur[part]
    return False, None


def data_path(data: Any, loc: tuple[str | int, ...]) -> Path_:
    """The part of ``loc`` that indexes real data; union tags are dropped."""
    out: list[str | int] = []
    cur = data
    for i, part in enumerate(loc):
        found, child = _child(cur, part)
        if found:
            out.append(part)
            cur = child
        elif i == len(loc) - 1 and isinstance(cur, dict):
            out.append(part)  # a missing or unknown key names a place that holds no value
    return tuple(out)


def _model_fields_at(root: type[BaseModel], data: Any, path: Path_) -> list[str] | None:
    """Field names of the model that validates the mapping at ``path`` (for 'unknown key' hints)."""
    candidates: list[Any] = [root]
    cur = data
    for part in path:
        nxt: list[Any] = []
        for ann in _flatten(candidates, cur):
            if isinstance(ann, type) and issubclass(ann, BaseModel) and isinstance(part, str):
                field = ann.model_fields.get(part)
                if field is not None:
                    nxt.append(field.annotation)
            elif get_origin(ann) is list and isinstance(part, int):
                nxt.append(get_args(ann)[0])
            elif get_origin(ann) is dict and isinstance(part, str):
                nxt.append(get_args(ann)[1])
        candidates = nxt
        cur = _child(cur, part)[1]
    models = [a for a in _flatten(candidates, cur) if isinstance(a, type) and issubclass(a, BaseModel)]
    return sorted(models[0].model_fields) if models else None


def _flatten(annotations: list[Any], value: Any) -> list[Any]:
    """Unwrap Annotated/Optional/Union; for tagged unions keep the branch the data selects."""
    out: list[Any] = []
    stack = list(annotations)
    while stack:
        ann = stack.pop(0)
        origin = get_origin(ann)
        if origin is Union or origin is types.UnionType:
            stack[:0] = list(get_args(ann))
        elif origin is not None and getattr(ann, "__metadata__", None) is not None:
            stack.insert(0, get_args(ann)[0])
        else:
            out.append(ann)
    tagged = [
        m
        for m in out
        if isinstance(m, type)
        and issubclass(m, BaseModel)
        and "kind" in m.model_fields
        and isinstance(value, dict)
        and value.get("kind") in get_args(m.model_fields["kind"].annotation)
    ]
    return tagged or out


_EXPECTED = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "string_type": "a string",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "float_type": "a number",
    "float_parsing": "a number",
}


def _or_list(tags: str) -> str:
    """pydantic's "'a', 'b', 'c'" -> "'a', 'b' or 'c'"."""
    head, sep, last = tags.rpartition(", ")
    return f"{head} or {last}" if sep else tags


def _network_of(value: Any) -> str | None:
    """The network a prefix with host bits set was probably meant to be."""
    try:
        iface = ipaddress.IPv4Interface(value)
    except (ValueError, TypeError):
        return None
    return str(iface.network) if "/" in str(value) and iface.ip != iface.network.network_address else None


def _message(err: Any, fields: list[str] | None) -> str:  # noqa: C901, PLR0911, PLR0912 -- one flat case per pydantic error type: a table, read top to bottom
    kind = err["type"]
    ctx = err.get("ctx") or {}
    value = err.get("input")
    if kind == "missing":
        return "required field is missing (add it)"
    if kind == "extra_forbidden":
        allowed = ", ".join(fields) if fields else "see `xoff schema`"
        return f"unknown key (allowed: {allowed})"
    if kind == "list_type" and not isinstance(value, (dict, list)) and value is not None:
        return f"expected a list, got {describe(value)} (allowed: a list, e.g. [{describe(value)}])"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {describe(value)}"
    if kind in ("literal_error", "enum"):
        return f"{describe(value)} is not allowed (allowed: {ctx.get('expected')})"
    if kind == "union_tag_invalid":
        return f"{ctx.get('tag')!r} is not allowed (allowed: {_or_list(str(ctx.get('expected_tags')))})"
    if kind == "union_tag_not_found":
        return f"missing {ctx.get('discriminator')} (allowed: one of the generator or network kinds)"
    if kind == "ip_v4_address":
        return f"{describe(value)} is not an IPv4 address (allowed: a.b.c.d)"
    if kind == "ip_v4_network":
        network = _network_of(value)
        if network is not None:
            return f"{describe(value)} has host bits set (allowed: {network})"
        return f"{describe(value)} is not an IPv4 prefix (allowed: a.b.c.d/len with no host bits set)"
    if kind == "too_short":
        return f"has {ctx.get('actual_length')} item(s) (allowed: at least {ctx.get('min_length')})"
    if kind == "too_long":
        return f"has {ctx.get('actual_length')} item(s) (allowed: at most {ctx.get('max_length')})"
    if kind == "string_pattern_mismatch":
        return f"{describe(value)} has the wrong form (allowed: {ctx.get('pattern')})"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    return str(err["msg"])


def translate(exc: ValidationError, data: Any, smap: SourceMap, root: type[BaseModel]) -> list[Problem]:
    """One problem per distinct place; union branches failing at one place are merged."""
    by_path: dict[Path_, list[tuple[str, str]]] = {}
    keys: set[Path_] = set()  # places where the key itself is wrong: reported at the key
    for err in exc.errors():
        path = data_path(data, tuple(err["loc"]))
        if path[-1:] == ("[key]",):  # a mapping key that is not allowed: name the key itself
            path = path[:-1]
            keys.add(path)
        if err["type"] == "union_tag_invalid":
            path = (*path, "kind")  # point at the tag itself, not the mapping holding it
        fields = _model_fields_at(root, data, path[:-1]) if err["type"] == "extra_forbidden" else None
        by_path.setdefault(path, []).append((err["type"], _message(err, fields)))
    problems: list[Problem] = []
    for path, found in by_path.items():
        kinds = {k for k, _ in found}
        if len(found) > 1 and kinds <= set(_EXPECTED):
            wanted = sorted({m.split(", got ")[0].removeprefix("expected ") for _, m in found})
            got = found[0][1].split(", got ", 1)[1]
            messages = [f"expected {' or '.join(wanted)}, got {got}"]
        else:
            messages = list(dict.fromkeys(m for _, m in found))
        where = smap.key(path) if kinds & {"extra_forbidden"} or path in keys else smap.value(path)
        problems.extend(Problem(where, dotted(path), m) for m in messages)
    return problems
