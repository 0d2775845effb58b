"""Check catalogs (``validators/*.yaml``): which checks run, with which thresholds, plus a site's own checks.

A catalog::

    description: what this catalog is for
    include: [pre-change]          # built-in catalog names or files, relative to this one; merged first
    check_dirs: [site-checks]      # directories of Python files, each defining CHECKS = [SomeCheck, ...]
    checks:
      lossless.pfc_symmetry:       # null or {}: the check's default thresholds
      lossless.host_mtu: {min_netdev_mtu: 4200}

Errors are located one-liners (FILE:LINE:COL: checks.<id>...: what (allowed: ...)), all of them at once.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from xoff.errors import InputError, Location, Problem
from xoff.intent.pydantic_errors import translate
from xoff.intent.yamlsource import SourceMap, load_yaml
from xoff.validate.context import Params
from xoff.validate.registry import CHECKS, Check, Registry

BUILTIN = ("default", "pre-change", "audit")


def validators_dir() -> Path:
    """The built-in catalogs: ``$XOFF_VALIDATORS_DIR``, else the package's ``data/validators`` (in a
    checkout, a symlink to the top-level ``validators/``; in a wheel, a copy)."""
    env = os.environ.get("XOFF_VALIDATORS_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[1] / "data" / "validators"


class _CatalogFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    include: list[str] = []
    check_dirs: list[str] = []
    checks: dict[str, dict[str, Any] | None] = {}


@dataclass
class Catalog:
    """The checks to run, in order, each with its thresholds, and the registry that holds them."""

    name: str
    description: str
    registry: Registry
    ids: list[str] = field(default_factory=list)
    params: dict[str, Params] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


def _path_of(spec: str, base: Path | None) -> Path:
    if spec in BUILTIN:
        return validators_dir() / f"{spec}.yaml"
    path = Path(spec)
    return path if path.is_absolute() or base is None else base / path


def _sub_map(smap: SourceMap, prefix: tuple[str | int, ...]) -> SourceMap:
    n = len(prefix)
    out = SourceMap()
    out.values = {p[n:]: loc for p, loc in smap.values.items() if p[:n] == prefix}
    out.keys = {p[n:]: loc for p, loc in smap.keys.items() if p[:n] == prefix}
    return out


def _site_checks(
    directory: Path, where: Location | None, path: str, registry: Registry, problems: list[Problem]
) -> None:
    if not directory.is_dir():
        problems.append(Problem(where, path, f"{directory}: not a directory (allowed: a directory of .py files)"))
        return
    for file in sorted(directory.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"xoff_site_checks.{directory.name}.{file.stem}", file)
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # a site file that does not import is bad input, named precisely
            problems.append(Problem(where, path, f"{file}: {type(exc).__name__}: {exc}"))
            continue
        classes = getattr(module, "CHECKS", None)
        if not isinstance(classes, list) or not all(isinstance(c, type) and issubclass(c, Check) for c in classes):
            problems.append(
                Problem(where, path, f"{file}: no CHECKS list (allowed: CHECKS = [MyCheck, ...] of Check classes)")
            )
            continue
        for cls in classes:
            try:
                registry.register(cls)
            except (ValueError, TypeError) as exc:
                problems.append(Problem(where, path, f"{file}: {exc}"))


def _load_into(
    catalog: Catalog, path: Path, raw: dict[str, dict[str, Any]], seen: list[Path], problems: list[Problem]
) -> None:
    display = str(path)
    if path.resolve() in seen:
        problems.append(
            Problem(Location(display, 1, 1), "include", "includes itself (allowed: an include without cycles)")
        )
        return
    seen.append(path.resolve())
    data, smap = load_yaml(path, display)
    if data is None:
        data = {}
    try:
        doc = _CatalogFile.model_validate(data)
    except ValidationError as exc:
        problems.extend(translate(exc, data, smap, _CatalogFile))
        return
    catalog.files.append(display)
    catalog.description = catalog.description or doc.description
    for k, inc in enumerate(doc.include):
        inc_path = _path_of(inc, path.parent)
        if not inc_path.is_file():
            allowed = ", ".join(BUILTIN) + ", or a catalog file"
            problems.append(
                Problem(smap.value(("include", k)), f"include[{k}]", f"{inc!r}: no such catalog (allowed: {allowed})")
            )
            continue
        _load_into(catalog, inc_path, raw, seen, problems)
    for k, d in enumerate(doc.check_dirs):
        _site_checks(path.parent / d, smap.value(("check_dirs", k)), f"check_dirs[{k}]", catalog.registry, problems)
    for check_id, values in doc.checks.items():
        if check_id not in catalog.registry:
            allowed = ", ".join(catalog.registry.ids())
            problems.append(
                Problem(smap.key(("checks", check_id)), f"checks.{check_id}", f"unknown check (allowed: {allowed})")
            )
            continue
        cls = catalog.registry.get(check_id)
        merged = {**raw.get(check_id, {}), **(values or {})}
        try:
            catalog.params[check_id] = cls.Params.model_validate(merged)
        except ValidationError as exc:
            for p in translate(exc, values or {}, _sub_map(smap, ("checks", check_id)), cls.Params):
                where = p.location or smap.key(("checks", check_id))
                problems.append(Problem(where, f"checks.{check_id}.{p.path}".rstrip("."), p.message))
            continue
        raw[check_id] = merged
        if check_id not in catalog.ids:
            catalog.ids.append(check_id)


def load_catalog(spec: str, registry: Registry = CHECKS) -> Catalog:
    """A built-in catalog by name (default, pre-change, audit) or a catalog file; InputError if anything is wrong."""
    path = _path_of(spec, Path.cwd())
    if not path.is_file():
        allowed = ", ".join(BUILTIN) + ", or a catalog file"
        raise InputError([Problem(None, "--catalog", f"{spec!r}: no such catalog (allowed: {allowed})")])
    catalog = Catalog(name=spec if spec in BUILTIN else path.stem, description="", registry=registry.copy())
    problems: list[Problem] = []
    _load_into(catalog, path, {}, [], problems)
    if problems:
        raise InputError(problems)
    return catalog
