"""Catalogs pick checks and thresholds; every mistake in one is a located one-line error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.docs import fresh_doc
from xoff.errors import InputError
from xoff.validate import CHECKS
from xoff.validate.catalog import BUILTIN, load_catalog


def _errors(path: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_catalog(str(path))
    return [str(p) for p in info.value.sorted()]


def test_builtin_catalogs_nest_and_hold_only_registered_checks() -> None:
    pre, default, audit = (load_catalog(n) for n in BUILTIN[1::-1] + BUILTIN[2:])
    assert pre.name == "pre-change" and default.name == "default" and audit.name == "audit"
    assert set(pre.ids) < set(default.ids) < set(audit.ids)
    assert all("observed" not in CHECKS.get(i).needs for i in pre.ids)  # pre-change: the intent alone
    assert {"drift.state", "counters.pfc_storms", "counters.lossless_drops"} <= set(audit.ids)
    assert "counters.pfc_storms" not in default.ids


def test_thresholds_are_typed_per_check(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("include: [pre-change]\nchecks:\n  lossless.host_mtu: {min_netdev_mtu: 9000}\n")
    catalog = load_catalog(str(tmp_path / "site.yaml"))
    params = catalog.params["lossless.host_mtu"]
    assert isinstance(params, CHECKS.get("lossless.host_mtu").Params)
    assert params.min_netdev_mtu == 9000  # type: ignore[attr-defined]
    assert catalog.ids.count("lossless.host_mtu") == 1


def test_unknown_check_is_located(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("checks:\n  lossless.pfc_symetry:\n")
    (line,) = _errors(tmp_path / "c.yaml")
    assert line.startswith(f"{tmp_path / 'c.yaml'}:2:3: checks.lossless.pfc_symetry: unknown check (allowed: ")
    assert "lossless.pfc_symmetry" in line


def test_unknown_and_mistyped_params_are_located(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "checks:\n  lossless.host_mtu: {min_mtu: 4200}\n  counters.pfc_storms:\n    max_storms: many\n"
    )
    assert _errors(tmp_path / "c.yaml") == [
        f"{tmp_path / 'c.yaml'}:2:23: checks.lossless.host_mtu.min_mtu: unknown key (allowed: min_netdev_mtu)",
        f"{tmp_path / 'c.yaml'}:4:17: checks.counters.pfc_storms.max_storms: expected an integer, got 'many'",
    ]


def test_unknown_top_level_key_and_missing_include(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("include: [nope]\nchekcs: {}\n")
    lines = _errors(tmp_path / "c.yaml")
    assert lines == [
        f"{tmp_path / 'c.yaml'}:2:1: chekcs: unknown key (allowed: check_dirs, checks, description, include)",
    ]
    (tmp_path / "d.yaml").write_text("include: [nope]\n")
    assert _errors(tmp_path / "d.yaml") == [
        f"{tmp_path / 'd.yaml'}:1:11: include[0]: 'nope': no such catalog (allowed: default, pre-change, audit, or a catalog file)"
    ]


def test_include_cycle_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("include: [b.yaml]\n")
    (tmp_path / "b.yaml").write_text("include: [a.yaml]\n")
    assert _errors(tmp_path / "a.yaml") == [
        f"{tmp_path / 'a.yaml'}:1:1: include: includes itself (allowed: an include without cycles)"
    ]


SITE_CHECK = '''
from xoff.validate import Check, Finding
from xoff.validate.context import Params


class NoSpineNamedBob(Check):
    """A site rule: no device may be called bob."""

    class Params(Params):
        name: str = "bob"

    id = "site.no_bob"
    title = "No device named bob"

    def check(self, ctx):
        name = ctx.params_as(self.Params).name
        return [Finding(d, "name", "forbidden name") for d in ctx.subject.devices if d == name]


CHECKS = [NoSpineNamedBob]
'''


def test_site_checks_from_a_directory_join_a_copy_of_the_registry(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "bob.py").write_text(SITE_CHECK)
    (tmp_path / "c.yaml").write_text("check_dirs: [site]\nchecks:\n  site.no_bob: {name: leaf1}\n")
    catalog = load_catalog(str(tmp_path / "c.yaml"))
    assert catalog.ids == ["site.no_bob"] and "site.no_bob" in catalog.registry
    assert "site.no_bob" not in CHECKS  # the global registry is not touched


def test_site_check_file_without_checks_list(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "x.py").write_text("VALUE = 1\n")
    (tmp_path / "c.yaml").write_text("check_dirs: [site]\n")
    (line,) = _errors(tmp_path / "c.yaml")
    assert line.startswith(f"{tmp_path / 'c.yaml'}:1:14: check_dirs[0]: ") and "no CHECKS list" in line


def test_docs_checks_md_is_fresh(root: Path) -> None:
    """docs/checks.md is generated from the registry (in a fresh interpreter: exactly the built-in checks)."""
    committed = fresh_doc(root, "xoff.validate.docs", "docs/checks.md")
    for check_id in load_catalog("audit").ids:
        assert f"\n## {check_id}\n" in committed
