"""Each platform's ``restore_change`` (what restoring an earlier run's backup would change; empty: nothing)
and the Ansible restore filters, which call the same code."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

import pytest

from tests.support.paths import ROOT
from xoff.platforms.registry import strategy_for
from xoff.platforms.sonic.apply import restore_file


def _sonic(db: dict[str, object], bgpraw: str = "") -> str:
    return json.dumps({**db, "bgpraw": bgpraw})


SONIC_BACKUP = _sonic({"PORT": {"Ethernet0": {"mtu": "9100", "fec": "rs"}}, "DEVICE_METADATA": {"localhost": {}}})
EOS_BACKUP = "hostname spine2\ninterface Ethernet1/1\n   mtu 9214\n"
NVUE_BACKUP = "nv set system hostname sleaf1\nnv set interface swp1 link mtu 9216\n"
HOST_BACKUP = json.dumps({"links": {"eth0": {"mtu": 9000}}, "nccl": None})

CASES = [
    # platform, running, backup, lines (None: some, not checked word for word)
    ("sonic", SONIC_BACKUP, SONIC_BACKUP, []),
    ("sonic", _sonic(json.loads(SONIC_BACKUP) | {"bgpraw": "other"}), SONIC_BACKUP, []),  # FRR text follows CONFIG_DB
    (
        "sonic",
        _sonic(
            {
                "PORT": {"Ethernet0": {"mtu": "4200", "fec": "rs"}},
                "QUEUE": {"x": {}},
                "DEVICE_METADATA": {"localhost": {}},
            }
        ),
        SONIC_BACKUP,
        ["~ PORT|Ethernet0 mtu='4200' -> '9100'", "- QUEUE"],
    ),
    ("eos", EOS_BACKUP.rstrip("\n") + "   \n\n", EOS_BACKUP, []),  # either engine's read of the same config
    ("eos", EOS_BACKUP.replace("9214", "1500"), EOS_BACKUP, None),
    ("cumulus", NVUE_BACKUP, NVUE_BACKUP, []),
    ("cumulus", NVUE_BACKUP.replace("9216", "1500"), NVUE_BACKUP, ["nv set interface swp1 link mtu 9216"]),
    ("linux", HOST_BACKUP, HOST_BACKUP, []),
    ("linux", json.dumps({"links": {"eth0": {"mtu": 1500}}, "nccl": None}), HOST_BACKUP, None),
]


@pytest.mark.parametrize(("platform", "running", "backup", "lines"), CASES)
def test_restore_change(platform: str, running: str, backup: str, lines: list[str] | None) -> None:
    found = strategy_for(platform).restore_change(running, backup).lines
    if lines is None:
        assert found, "a difference must be a change"
    else:
        assert found == lines


def test_the_sonic_restore_file_is_the_backups_config_db_without_frr() -> None:
    text = restore_file(_sonic({"B": {}, "A": {"k": {"f": "1"}}}, bgpraw="router bgp 1"))
    assert json.loads(text) == {"A": {"k": {"f": "1"}}, "B": {}} and text.endswith("}\n") and "bgpraw" not in text


def _filters() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "restore_filters", ROOT / "playbooks" / "filter_plugins" / "restore.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("platform", "running", "backup", "lines"), CASES)
def test_the_ansible_filter_is_the_same_code(platform: str, running: str, backup: str, lines: list[str] | None) -> None:
    filters = _filters().FilterModule().filters()
    # Ansible may hand a JSON fact back as the object it holds
    as_given = json.loads(running) if platform == "sonic" else running
    assert (
        filters["xoff_restore_change"](as_given, backup, platform)
        == strategy_for(platform).restore_change(running, backup).lines
    )
    assert filters["xoff_restore_on_trial"](platform) is (platform == "cumulus")
    assert filters["xoff_sonic_restore_path"]("r1") == "/tmp/xoff-r1.restore.json"


def test_the_ansible_filter_never_restores_a_masked_secret() -> None:
    from ansible.errors import AnsibleFilterError  # type: ignore[import-untyped]

    with pytest.raises(AnsibleFilterError, match="masked secret"):
        _filters().restore_change("a", "username x secret ********", "eos")
