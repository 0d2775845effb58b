"""Every registered platform, built from the registry alone: render, push, collect, containerlab, Ansible and
the lab emulator; a platform added by an entry point joins them ("one package plus one line")."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from collections.abc import Iterator
from dataclasses import replace
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from tests.support.docs import fresh_doc
from tests.support.paths import ROOT
from xoff.connect.ansible_inventory import build_inventory, platform_vars, unsupported
from xoff.connect.targets import build_targets
from xoff.contracts.apply import ApplyStrategy
from xoff.contracts.clab import ClabKind
from xoff.contracts.collect import Command
from xoff.desired import build_fabric_state
from xoff.desired.models import Device, FabricState
from xoff.intent import load_intent
from xoff.platforms import docs, registry
from xoff.platforms.record import Platform, Ref
from xoff.platforms.registry import collector_for, get_platform, platforms, strategy_for
from xoff.render.registry import renderer_names, renderers

EXAMPLES = ("lab-mini", "ib-pod", "roce-pod")


@pytest.fixture(scope="module")
def fabrics() -> list[FabricState]:
    return [build_fabric_state(load_intent(ROOT / "inventory" / name)) for name in EXAMPLES]


def _devices(fabrics: list[FabricState], platform: str) -> list[tuple[FabricState, Device]]:
    return [(f, d) for f in fabrics for d in f.devices.values() if d.platform == platform]


def test_the_builtin_platforms_in_registry_order() -> None:
    assert list(platforms()) == ["sonic", "eos", "cumulus", "linux", "infiniband"]
    assert registry.names("switch") == ("sonic", "eos", "cumulus")
    with pytest.raises(KeyError, match=r"unknown platform 'junos' \(allowed: sonic, eos, cumulus, linux, infiniband\)"):
        get_platform("junos")


def test_reading_the_registry_imports_no_heavy_part() -> None:
    """The records only name their parts: no renderer, strategy, collector, netmiko or lab is imported."""
    code = (
        "import sys; from xoff.platforms.registry import platforms; platforms(); "
        "heavy = [m for m in sys.modules if m.startswith(('netmiko', 'jinja2', 'xoff.lab', 'xoff.render'))"
        " or (m.startswith('xoff.platforms.') and m.endswith(('.apply', '.collect', '.render', '.clab')))]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("name", list(platforms()))
def test_every_platform_builds_from_the_registry_alone(name: str, fabrics: list[FabricState]) -> None:  # noqa: PLR0912 -- one branch per optional part of the record, read top to bottom
    p = get_platform(name)
    assert isinstance(p, Platform) and p.name == name
    found = _devices(fabrics, name)
    assert found, f"no example inventory has a {name} device"
    for _fabric, device in found:
        assert device.kind == p.kind
        for iface in device.interfaces.values():
            if iface.kind in ("ethernet", "infiniband"):
                assert re.fullmatch(p.port_pattern, iface.name), (device.name, iface.name, p.port_pattern)
    fabric, device = found[0]
    # render: every renderer of the record, on a device of the platform
    assert renderer_names(device)[: len(p.renderers)] == tuple(r.name for r in p.renderers)
    for renderer in renderers(device):
        files = renderer.load()(device, fabric)
        assert files and all(isinstance(text, str) and text for text in files.values()), renderer.name
    # push: the strategy, its capabilities and its transport
    if p.strategy is not None:
        strategy = strategy_for(name, "t1")
        assert isinstance(strategy, ApplyStrategy) and strategy.platform == name and strategy.run_id == "t1"
        assert p.capabilities is not None and p.transport is not None
    else:
        with pytest.raises(KeyError, match=rf"no push strategy for platform '{name}' \(allowed: sonic, eos"):
            strategy_for(name)
    # collect: the collector and the commands it would run on this device
    if p.collector is not None:
        collector = collector_for(name)
        assert collector.platform == name
        commands = collector.commands(device)
        assert commands and all(isinstance(c, Command) for c in commands)
    else:
        with pytest.raises(KeyError, match=rf"no collector for platform '{name}'"):
            collector_for(name)
    # containerlab: the kind maps the device's ports, or the record says why there is none
    if p.clab is not None:
        kind = p.clab_kind()
        assert isinstance(kind, ClabKind) and kind.kind and kind.image
        ports = [i.name for i in device.interfaces.values() if i.kind == "ethernet"]
        assert set(kind.interfaces(ports, device.name)) == set(ports)
    else:
        assert p.clab_skipped
    # Ansible: the platform group's variables, or the playbooks do not handle it
    targets = [t for t in build_targets(fabric) if t.platform == name]
    if p.ansible_vars is not None:
        group = build_inventory(targets)["all"]["children"][f"platform_{name}"]
        assert group["vars"] == platform_vars(name) and group["vars"]["ansible_connection"]
        assert not unsupported(targets)
    else:
        assert platform_vars(name) is None and unsupported(targets) == targets
    # the lab emulator: the reference resolves to an emulator class
    if p.emulator is not None:
        from xoff.lab.emulators.base import EmulatorBase
        from xoff.lab.sshd import EMULATORS, default_lookup

        cls = Ref[type](p.emulator).load(anchor=EMULATORS)
        assert default_lookup(name) is cls  # what the lab's SSH server starts for a device of the platform
        assert isinstance(cls, type) and issubclass(cls, EmulatorBase)


def test_docs_platforms_md_is_fresh() -> None:
    """docs/platforms.md is generated from the registry (in a fresh interpreter: exactly the built-ins)."""
    fresh_doc(ROOT, "xoff.platforms.docs", "docs/platforms.md")


# --- a site's platform: one package plus one entry point ------------------------------------------

FAKE_MODULE = "xoff_site_fakenos"
FAKE_SOURCE = """
from dataclasses import replace

from xoff.platforms.eos import PLATFORM as EOS

# a site's NOS that speaks EOS: its own name and label, everything else borrowed
PLATFORM = replace(EOS, name="fakenos", label="A site's EOS-like NOS")
"""


@pytest.fixture
def fake_platform(monkeypatch: pytest.MonkeyPatch) -> Iterator[Platform]:
    module = types.ModuleType(FAKE_MODULE)
    exec(compile(FAKE_SOURCE, FAKE_MODULE, "exec"), module.__dict__)  # the test's own module text
    monkeypatch.setitem(sys.modules, FAKE_MODULE, module)
    entry = EntryPoint("fakenos", f"{FAKE_MODULE}:PLATFORM", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "_entry_points", lambda: [entry])
    registry.platforms.cache_clear()
    yield module.PLATFORM
    registry.platforms.cache_clear()


def test_an_entry_point_platform_shows_up(fake_platform: Platform, fabrics: list[FabricState]) -> None:
    assert list(platforms())[-1] == "fakenos" and get_platform("fakenos") is fake_platform
    assert "fakenos" in registry.names("switch")
    fabric, eos = _devices(fabrics, "eos")[0]
    device = eos.model_copy(update={"platform": "fakenos"})
    assert renderer_names(device) == ("eos",)
    assert renderers(device)[0].load()(device, fabric) == renderers(eos)[0].load()(eos, fabric)
    assert strategy_for("fakenos").platform == "eos"  # the borrowed strategy
    assert collector_for("fakenos").commands(device)
    assert platform_vars("fakenos") == platform_vars("eos")
    page = docs.platforms_markdown()
    assert "| [`fakenos`](#fakenos) | switch | yes | yes | yes | yes |" in page and "\n## fakenos\n" in page


def test_an_entry_point_cannot_replace_or_misname_a_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType(FAKE_MODULE)
    module.PLATFORM = replace(get_platform("eos"), name="other")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, FAKE_MODULE, module)
    for name, message in (("eos", "already registered"), ("mine", "the record is named 'other'")):
        entry = EntryPoint(name, f"{FAKE_MODULE}:PLATFORM", registry.ENTRY_POINT_GROUP)
        monkeypatch.setattr(registry, "_entry_points", lambda entry=entry: [entry])
        registry.platforms.cache_clear()
        with pytest.raises(registry.PlatformError, match=message):
            platforms()
    monkeypatch.undo()
    registry.platforms.cache_clear()


def test_an_installed_entry_point_reaches_the_intent_schema(tmp_path: Path) -> None:
    """Through importlib.metadata for real (a dist-info on the path): the intent accepts the site's switch."""
    (tmp_path / f"{FAKE_MODULE}.py").write_text(FAKE_SOURCE, encoding="utf-8")
    dist = tmp_path / "xoff_site_fakenos-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: xoff-site-fakenos\nVersion: 1.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        f"[{registry.ENTRY_POINT_GROUP}]\nfakenos = {FAKE_MODULE}:PLATFORM\n", encoding="utf-8"
    )
    code = (
        "from xoff.intent.schema import intent_schema; import json; "
        "print(json.dumps(intent_schema()['$defs']['SwitchSettings']['properties']['platform']))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert '"enum": ["sonic", "eos", "cumulus", "fakenos"]' in out
