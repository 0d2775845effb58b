"""The SONiC tasks' filters are the Nornir SONiC strategy's own code: for the same running CONFIG_DB and
rendered files both engines compute the same change and put the same patch file, byte for byte, at the
same path on the switch; applying that patch (jsonpatch) gives running == rendered in the owned tables,
and other tables are untouched."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import jinja2
import jsonpatch
import yaml

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.platforms.sonic.apply import Strategy
from xoff.render import render_fabric

PLUGINS = ROOT / "playbooks" / "filter_plugins"
TASKS = ROOT / "playbooks" / "tasks" / "sonic"


def _plugin(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"xoff_filter_{name}", PLUGINS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Session:
    """Records what the Nornir strategy sends (commands answer as SONiC's config CLI does)."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.commands: list[str] = []

    def send_command(self, command: str, **_: Any) -> str:
        self.commands.append(command)
        return "Checkpoint created successfully." if "checkpoint" in command else "Patch applied successfully."

    def put_file(self, path: str, text: str) -> None:
        self.files[path] = text


def _leaf1(tmp_path: Path) -> tuple[dict[str, str], Path]:
    state = build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))
    files = {f.name: f.content for f in render_fabric(state, ["leaf1"])}
    folder = tmp_path / "render" / "leaf1"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return files, folder


def _running(desired_db: dict[str, Any]) -> str:
    """A running CONFIG_DB that differs from the rendered one field by field, key by key, table by table."""
    db = copy.deepcopy(desired_db)
    port = next(iter(db["PORT"]))
    db["PORT"][port]["mtu"] = "1500"  # replaced field
    db["PORT"][port]["fec"] = "rs"  # a field xoff does not model: kept (removing FEC can drop a real link)
    db["PORT"]["Ethernet252"] = {"mtu": "9100"}  # key not rendered: removed
    db.pop(sorted(db)[-1])  # a whole table missing: added
    db["FEATURE"] = {"lldp": {"state": "enabled"}}  # a table xoff does not own: left alone
    return json.dumps({**db, "bgpraw": "router bgp 65000\n"})


def _ansible_patch_upload(stamp: str, change: dict[str, Any]) -> tuple[str, str]:
    """apply.yml's "put the patch" command rendered with the filters, as Ansible would: (path, file body)."""
    task = next(t for t in yaml.safe_load((TASKS / "apply.yml").read_text()) if "put the patch" in t["name"])
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters.update(_plugin("config_db").FilterModule().filters())
    command = env.from_string(task["ansible.builtin.raw"]).render(xoff_stamp=stamp, xoff_sonic=change)
    m = re.fullmatch(r"cat > (\S+) <<'XOFF_PATCH'\n(.*\n)XOFF_PATCH", command, re.DOTALL)
    assert m is not None, command
    return m.group(1), m.group(2)


def test_both_engines_send_the_same_sonic_patch_byte_for_byte(tmp_path: Path) -> None:
    desired, folder = _leaf1(tmp_path)
    running = _running(json.loads(desired["config_db.json"]))
    # the Nornir engine: the strategy's diff, then its apply (what it puts on the switch)
    nornir = Strategy("r1")
    change = nornir.diff(running, desired)
    session = _Session()
    nornir.apply(session, change, desired)
    ((nornir_path, nornir_file),) = session.files.items()
    # the Ansible engine: the diff task's filter, then the apply task's upload
    ansible = _plugin("config_db").diff(running, str(folder))
    path, body = _ansible_patch_upload("r1", ansible)
    assert (path, body) == (nornir_path, nornir_file)
    assert body.encode() == nornir_file.encode()
    assert (ansible["lines"], ansible["changes"]) == (change.lines, change.count) and change.count == 3
    assert f"sudo config apply-patch {nornir_path}" in session.commands
    ops = json.loads(body)
    port = next(iter(json.loads(desired["config_db.json"])["PORT"]))
    assert [o for o in ops if o["op"] == "replace"] == [{"op": "replace", "path": f"/PORT/{port}/mtu", "value": "9100"}]
    assert not [o for o in ops if o["path"].startswith(f"/PORT/{port}/fec")], "a field xoff does not model is kept"
    after = jsonpatch.apply_patch(json.loads(running), ops)
    rendered = json.loads(desired["config_db.json"])
    assert after["PORT"][port].pop("fec") == "rs"
    assert {t: after[t] for t in rendered} == rendered
    assert after["FEATURE"] == {"lldp": {"state": "enabled"}}, "a table the rendered file does not list is not touched"


def test_verify_and_rollback_checks_are_the_strategy_s(tmp_path: Path) -> None:
    desired, folder = _leaf1(tmp_path)
    f = _plugin("config_db").FilterModule().filters()
    running = _running(json.loads(desired["config_db.json"]))
    problems = f["xoff_sonic_verify"](running, str(folder))
    assert problems and all(p.startswith(("CONFIG_DB still differs: ", "FRR neighbor ")) for p in problems)
    assert f["xoff_sonic_rollback_mismatches"](running, running) == []
    assert f["xoff_sonic_rollback_mismatches"](json.loads(running), running) == [], "a fact parsed back as JSON"
    assert f["xoff_sonic_rollback_mismatches"](running, json.dumps({"PORT": {}})) != []
    equal = json.dumps({**json.loads(desired["config_db.json"]), "bgpraw": ""})
    assert f["xoff_sonic_diff"](equal, str(folder))["changes"] == 0


def test_eos_filter_is_the_strategy_s_diff(tmp_path: Path) -> None:
    from xoff.platforms.eos.apply import Strategy as EosStrategy

    state = build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))
    rendered = next(f.content for f in render_fabric(state, ["spine2"]) if f.name == "running-config")
    (tmp_path / "running-config").write_text(rendered, encoding="utf-8")
    running = "hostname spine2\n!\ninterface Ethernet1\n   mtu 1500\n!\n"
    lines = _plugin("eos").FilterModule().filters()["xoff_eos_diff"](running, str(tmp_path))
    assert lines == EosStrategy().diff(running, {"running-config": rendered}).lines and len(lines) > 5
    assert _plugin("eos").diff(rendered, str(tmp_path)) == []
    # the replace file is the strategy's payload: the unmanaged lines (here the user), then the rendered file
    site = "no aaa root\nusername ops privilege 15 role network-admin nopassword\n" + rendered
    replace = _plugin("eos").FilterModule().filters()["xoff_eos_replace"](site, str(tmp_path))
    assert replace.splitlines() == EosStrategy().diff(site, {"running-config": rendered}).payload
    assert replace.startswith("no aaa root\nusername ops ") and "router bgp 65100\n" in replace
    assert _plugin("eos").diff(site, str(tmp_path)) == []
