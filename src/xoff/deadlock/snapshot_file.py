"""Read (and write) the forwarding-snapshot file format, YAML or JSON, strictly.

JSON is read by the same located YAML loader (JSON is YAML), so every problem is reported as
``FILE:LINE:COL: key.path: what is wrong (what is allowed)``. Unknown top-level keys (an
``expect:`` block, notes) are ignored; everything below the top level is strict: unknown keys,
wrong types and out-of-range priorities are errors, then the structural rules of
``validate.check_snapshot`` apply.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from xoff.deadlock.model import Link, Rewrite, Snapshot
from xoff.deadlock.validate import check_snapshot
from xoff.errors import InputError, Location, Problem
from xoff.intent.pydantic_errors import translate
from xoff.intent.types import Priority
from xoff.intent.yamlsource import SourceMap, dotted, load_yaml

ANY_PORT = "*"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)


class DevicesIn(_Strict):
    switches: list[str]
    hosts: list[str]


class LinkIn(_Strict):
    id: str
    a: str
    a_port: str
    b: str
    b_port: str
    status: Literal["up", "down"] = "up"


class RewriteIn(_Strict):
    switch: str
    in_port: str | list[str]
    out_port: str | list[str]
    from_: Priority = Field(alias="from")
    to: Priority


class SnapshotIn(_Strict):
    """The file as written. Unknown top-level keys are ignored (``extra="ignore"``) by design."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    name: str = ""
    description: str = ""
    devices: DevicesIn
    links: list[LinkIn]
    lossless_default: list[Priority]
    lossless: dict[str, dict[str, list[Priority]]] = Field(default_factory=dict)
    priority_rewrite: list[RewriteIn] = Field(default_factory=list)
    forwarding: dict[str, dict[str, list[str]]]


def _ports(value: str | list[str]) -> frozenset[str] | None:
    if isinstance(value, str):
        return None if value == ANY_PORT else frozenset((value,))
    return frozenset(value)


def _duplicates(doc: SnapshotIn) -> list[tuple[tuple[str | int, ...], str]]:
    """Repeated items in lists that the model turns into sets."""
    out: list[tuple[tuple[str | int, ...], str]] = []

    def scan(path: tuple[str | int, ...], items: list[Any], what: str) -> None:
        seen: set[Any] = set()
        for k, item in enumerate(items):
            if item in seen:
                out.append(((*path, k), f"{item!r} is listed twice (allowed: each {what} once)"))
            seen.add(item)

    scan(("lossless_default",), doc.lossless_default, "priority")
    for device, per_port in doc.lossless.items():
        for port, prios in per_port.items():
            scan(("lossless", device, port), prios, "priority")
    for i, rule in enumerate(doc.priority_rewrite):
        for key, value in (("in_port", rule.in_port), ("out_port", rule.out_port)):
            if isinstance(value, list):
                scan(("priority_rewrite", i, key), value, "port")
                if ANY_PORT in value:
                    out.append(
                        ((("priority_rewrite", i, key)), "'*' inside a list (allowed: '*' alone, or port names)")
                    )
    return out


def to_snapshot(doc: SnapshotIn, default_name: str = "") -> Snapshot:
    """The validated document as the shared in-memory model (next-hop tuples shared per switch)."""
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    forwarding = {
        dest: {sw: shared.setdefault(tuple(hops), tuple(hops)) for sw, hops in per_switch.items()}
        for dest, per_switch in doc.forwarding.items()
    }
    return Snapshot(
        name=doc.name or default_name,
        description=doc.description,
        switches=tuple(doc.devices.switches),
        hosts=tuple(doc.devices.hosts),
        links=tuple(Link(x.id, x.a, x.a_port, x.b, x.b_port, x.status == "up") for x in doc.links),
        lossless_default=frozenset(doc.lossless_default),
        lossless={d: {p: frozenset(v) for p, v in ports.items()} for d, ports in doc.lossless.items()},
        rewrites=tuple(
            Rewrite(r.switch, _ports(r.in_port), _ports(r.out_port), r.from_, r.to) for r in doc.priority_rewrite
        ),
        forwarding=forwarding,
    )


def parse_snapshot(data: Any, smap: SourceMap, file: str, default_name: str = "") -> Snapshot:
    """Validate loaded data; raise :class:`InputError` with every problem, each located."""
    if not isinstance(data, dict):
        got = "an empty file" if data is None else "a list" if isinstance(data, list) else repr(data)
        loc = smap.value(()) or Location(file, 1, 1)
        raise InputError(
            [Problem(loc, "", f"expected a mapping at the top level, got {got} (allowed: a snapshot mapping)")]
        )
    try:
        doc = SnapshotIn.model_validate(data)
    except ValidationError as exc:
        raise InputError(translate(exc, data, smap, SnapshotIn)) from None
    problems = [Problem(smap.value(path), dotted(path), msg) for path, msg in _duplicates(doc)]
    snap = to_snapshot(doc, default_name)
    for found in check_snapshot(snap):
        where = smap.key(found.path) if found.at_key else smap.value(found.path)
        problems.append(Problem(where, dotted(found.path), found.message))
    if problems:
        raise InputError(problems)
    return snap


def _check_json_syntax(path: Path, name: str) -> None:
    """JSON is read as YAML (for locations), but a JSON syntax error is named in JSON's terms."""
    try:
        json.loads(path.read_bytes())
    except OSError:
        return  # load_yaml reports it
    except UnicodeDecodeError:
        raise InputError([Problem(Location(name, 1, 1), "", "not UTF-8 text")]) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            [Problem(Location(name, exc.lineno, exc.colno), "", f"malformed JSON: {exc.msg} (allowed: valid JSON)")]
        ) from None


def load_snapshot(path: Path, display: str | None = None) -> Snapshot:
    """Load a snapshot file (YAML or JSON); raise :class:`InputError` on any problem."""
    name = display or str(path)
    if path.suffix.lower() == ".json":
        _check_json_syntax(path, name)
    data, smap = load_yaml(path, name)
    return parse_snapshot(data, smap, name, default_name=path.stem)


def _port_spec(ports: frozenset[str] | None) -> str | list[str]:
    if ports is None:
        return ANY_PORT
    return sorted(ports)


def to_document(snap: Snapshot) -> dict[str, Any]:
    """The snapshot in the file format (plain data for ``yaml.safe_dump`` or ``json.dump``)."""
    return {
        "name": snap.name,
        "description": snap.description,
        "devices": {"switches": list(snap.switches), "hosts": list(snap.hosts)},
        "links": [
            {"id": x.id, "a": x.a, "a_port": x.a_port, "b": x.b, "b_port": x.b_port, "status": "up" if x.up else "down"}
            for x in snap.links
        ],
        "lossless_default": sorted(snap.lossless_default),
        "lossless": {d: {p: sorted(v) for p, v in ports.items()} for d, ports in snap.lossless.items()},
        "priority_rewrite": [
            {
                "switch": r.switch,
                "in_port": _port_spec(r.in_ports),
                "out_port": _port_spec(r.out_ports),
                "from": r.from_prio,
                "to": r.to_prio,
            }
            for r in snap.rewrites
        ],
        "forwarding": {d: {sw: list(h) for sw, h in per.items()} for d, per in snap.forwarding.items()},
    }
