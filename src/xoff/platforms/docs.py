"""docs/platforms.md, generated from the platform registry (a test fails when it is stale).

``python -m xoff.platforms.docs > docs/platforms.md``
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from xoff.platforms.record import Platform
from xoff.platforms.registry import BUILTIN, ENTRY_POINT_GROUP, platforms

HEADER = """\
# Platforms

Generated from the platform registry (`xoff.platforms.registry`) by
`python -m xoff.platforms.docs > docs/platforms.md`; a test fails when this page is stale. Every fact below is
read from one frozen `Platform` record per platform (`xoff.platforms.<nos>.PLATFORM`): nothing about a
platform is declared anywhere else. Push plans with the capabilities: a clean verify is confirmed only on
platforms with commit-confirm, and a failed change is rolled back only on platforms that can roll back.
"""

CHECKLIST = f"""\
## Adding a platform

A platform is one package plus one line:

1. **The package** `xoff.platforms.<nos>` (or any importable package of a site's own distribution). Its
   `__init__.py` exports `PLATFORM`, a `xoff.platforms.record.Platform`, and stays small: it is imported
   whenever the registry is read, so it names its heavy parts as `"module:attribute"` strings (`Ref`),
   imported on first use. The record's parts, each optional where the platform has none:
   - identity: `name` (as devices and the intent spell it), `label`, `kind` (`switch`, `host`, `ib_switch`),
     `mgmt_interface`, `loopback_interface`, `interface_naming` and `port_pattern` (a regular expression every
     front-panel port name of the platform matches);
   - `transport`: the netmiko device type and options, `enable` after login, `exec_channel` for collect;
   - `capabilities` (`xoff.contracts.apply.Capabilities`): atomic replace, commit-confirm, rollback, on-box
     diff, and how a change is applied and undone, in words for the push plan;
   - `renderers`: `Renderer(name, Ref("pkg.render:render"))`, `render(device, fabric) -> {{file: text}}`
     (Jinja2 templates under `templates/<name>/` only print);
   - `strategy`: a subclass of `xoff.contracts.apply.ApplyStrategy` (backup, pure diff, apply, verify,
     confirm, rollback; never opens a connection);
   - `collector`: a class following `xoff.contracts.collect.Collector` (commands, pure strict parse);
   - `watch`: a `xoff.watch.readings.CounterReader` (its counter commands and their outputs as readings, for
     `xoff watch` over SSH), or none;
   - `clab`: a `xoff.contracts.clab.ClabKind`, or `clab_skipped` saying why containerlab cannot run it;
   - `ansible_vars`: the `platform_<name>` group's connection variables (the login is added by kind), and
     the playbooks' task files under `playbooks/tasks/<name>/`;
   - `emulator`: the lab's NOS emulator as `"module:Class"` (a subclass of the lab's `EmulatorBase`,
     `lab/emulators/base.py`; a module starting with `.` is relative to the lab's emulator package), or none;
   - `render_limits` (`xoff.platforms.limits.RenderLimits`): what its renderer cannot express (maps, watchdog,
     port speeds, ...), refused when the plan is built, never at render time.
2. **The line**: a built-in platform is one line in `BUILTIN` of `src/xoff/platforms/registry.py`; a site's
   platform is one entry point in its own distribution's `pyproject.toml`:

   ```toml
   [project.entry-points."{ENTRY_POINT_GROUP}"]
   mynos = "mysite_mynos:PLATFORM"
   ```

   The entry point's name is the platform's name; it cannot replace a built-in platform.
3. **No other map**: the intent accepts a new `switch` platform by itself (the schema's enum and its
   error messages list the registry's switch platforms; for a built-in, regenerate `docs/intent.schema.json`
   with `xoff schema -o docs/intent.schema.json`), render, push, collect, the containerlab export, the Ansible
   inventory and the lab's SSH server all read the record, and `tests/platforms/test_registry.py` builds
   every registered platform's renderers, strategy, collector, containerlab kind, Ansible variables and
   emulator from the registry alone. Regenerate this page.
"""


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _code(value: Any) -> str:
    return f"`{value}`"


def _matrix(records: Mapping[str, Platform]) -> list[str]:
    lines = [
        "## Capability matrix",
        "",
        "| platform | kind | atomic replace | commit-confirm | rollback | on-box diff | push | collect | containerlab | lab emulator |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, p in records.items():
        caps = p.capabilities
        flags = (
            [_yes(caps.atomic_replace), _yes(caps.commit_confirm), _yes(caps.rollback), _yes(caps.on_box_diff)]
            if caps is not None
            else ["-"] * 4
        )
        clab = p.clab_kind().kind if p.clab is not None else "no"
        cells = [
            f"[`{name}`](#{name})",
            p.kind,
            *flags,
            _yes(p.strategy is not None),
            _yes(p.collector is not None),
            clab,
            _yes(p.emulator is not None),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _section(p: Platform) -> list[str]:
    lines = ["", f"## {p.name}", "", f"**{p.label}** ({p.kind})", ""]
    loopback = _code(p.loopback_interface) if p.loopback_interface else "none"
    lines.append(
        f"- interfaces: mgmt {_code(p.mgmt_interface)}, loopback {loopback}; ports {p.interface_naming}, pattern {_code(p.port_pattern)}"
    )
    if p.transport is None:
        lines.append("- transport: none (xoff opens no session to it)")
    else:
        t = p.transport
        extra = [f"options {_code(json.dumps(dict(t.netmiko_options), sort_keys=True))}"] if t.netmiko_options else []
        extra += ["enable after login"] if t.enable else []
        extra += ["collect over SSH exec channels"] if t.exec_channel else []
        lines.append(f"- transport: netmiko {_code(t.netmiko_device_type)}" + "".join(f", {e}" for e in extra))
    if p.capabilities is not None:
        lines.append(f"- apply: {p.capabilities.apply_means}")
        lines.append(f"- undo: {p.capabilities.undo_means}")
    renderers = ", ".join(f"{r.name} ({_code(r.ref.path)})" for r in p.renderers)
    lines.append(f"- renderers: {renderers or 'none'}")
    lines.append(f"- push strategy: {_code(p.strategy.path) if p.strategy else 'none'}")
    lines.append(f"- collector: {_code(p.collector.path) if p.collector else 'none'}")
    lines.append(f"- watch counters: {_code(p.watch.path) if p.watch else 'none'}")
    if p.clab is not None:
        kind = p.clab_kind()
        lines.append(
            f"- containerlab: kind {_code(kind.kind)}, image {_code(kind.image)} ({_code(p.clab.path)}): {kind.header}"
        )
    else:
        lines.append(f"- containerlab: none ({p.clab_skipped})")
    if p.ansible_vars is None:
        lines.append("- Ansible: not handled by the playbooks")
    else:
        pairs = ", ".join(f"`{k}: {json.dumps(v)}`" for k, v in p.ansible_vars.items())
        lines.append(f"- Ansible (`platform_{p.name}` group, plus the login of its kind): {pairs}")
    lines.append(f"- lab emulator: {_code(p.emulator) if p.emulator else 'none'}")
    if p.kind != "ib_switch":
        limits = p.render_limits.summary() if p.render_limits is not None else "none"
        lines.append(f"- render limits (the plan refuses the rest, one located line each): {limits}")
    return lines


def platforms_markdown(records: Mapping[str, Platform] | None = None) -> str:
    records = platforms() if records is None else records
    lines = [HEADER, *_matrix(records)]
    for p in records.values():
        lines += _section(p)
    lines += ["", CHECKLIST.rstrip("\n")]
    builtin = ", ".join(f"`{n}`" for n in BUILTIN)
    lines += ["", f"Built-in platforms: {builtin}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(platforms_markdown(), end="")
