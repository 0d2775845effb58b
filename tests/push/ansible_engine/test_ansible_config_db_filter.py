"""The CONFIG_DB filters the SONiC tasks use: an entry-level JSON Patch over the tables the rendered
file owns, other tables untouched; applying it (jsonpatch) gives running == desired in those tables."""

from __future__ import annotations

import copy
import importlib.util
from types import ModuleType
from typing import Any

import jsonpatch

from tests.support.paths import ROOT

PLUGIN = ROOT / "playbooks" / "filter_plugins" / "config_db.py"


def _plugin() -> ModuleType:
    spec = importlib.util.spec_from_file_location("xoff_config_db_filter", PLUGIN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUNNING: dict[str, Any] = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "hwsku": "x"}},
    "PORT": {"Ethernet0": {"mtu": "9100"}, "Ethernet8": {"mtu": "9100"}},
    "FEATURE": {"lldp": {"state": "enabled"}},
}
DESIRED: dict[str, Any] = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "hwsku": "x"}},
    "PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up"}},
    "PFC_WD": {"Ethernet0": {"action": "drop"}, "a/b~c": {"action": "drop"}},
}


def test_patch_takes_owned_tables_to_desired_and_leaves_the_rest() -> None:
    f = _plugin().FilterModule().filters()
    patch = f["config_db_patch"](RUNNING, DESIRED)
    assert patch == [
        {"op": "remove", "path": "/PORT/Ethernet8"},
        {"op": "replace", "path": "/PORT/Ethernet0", "value": {"mtu": "9100", "admin_status": "up"}},
        {"op": "add", "path": "/PFC_WD", "value": DESIRED["PFC_WD"]},
    ]
    after = jsonpatch.apply_patch(copy.deepcopy(RUNNING), patch)
    assert {t: after[t] for t in DESIRED} == DESIRED
    assert after["FEATURE"] == RUNNING["FEATURE"], "a table the rendered file does not list is not touched"
    assert f["config_db_mismatches"](after, DESIRED) == []
    assert f["config_db_patch_lines"](patch) == ["- /PORT/Ethernet8", "~ /PORT/Ethernet0", "+ /PFC_WD"]


def test_keys_are_json_pointer_escaped_and_equal_state_gives_no_patch() -> None:
    f = _plugin().FilterModule().filters()
    running = {"PFC_WD": {"Ethernet0": {"action": "drop"}}}
    patch = f["config_db_patch"](running, DESIRED)
    assert {"op": "add", "path": "/PFC_WD/a~1b~0c", "value": {"action": "drop"}} in patch
    assert f["config_db_patch"](DESIRED, DESIRED) == []
    assert f["config_db_mismatches"](running, {"PFC_WD": running["PFC_WD"]}) == []
