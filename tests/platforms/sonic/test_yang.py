"""Rendered CONFIG_DB against SONiC's own YANG models, through xoff's translator and Debian's yanglint.

Real models (``XOFF_SONIC_YANG_DIR`` or ``../shared/schemas/sonic-yang``), real yanglint: a missing
tool fails the test (conftest ``yang_schema``), it never skips.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from sonic_cases import broadcom_variant, dynamic_variant, sonic_switches

from xoff.desired.models import FabricState
from xoff.platforms.sonic.config_db import build_config_db
from xoff.platforms.sonic.settings import ENV_YANG_DIR, YangDirNotFoundError, yang_dir
from xoff.platforms.sonic.yang import (
    YangTranslationError,
    config_db_to_xml,
    modules_of,
    validate_config_db,
    validate_xml,
    yang_json_to_config_db,
)


@pytest.mark.parametrize("case", ["lab-mini", "roce-pod"])
def test_every_rendered_config_db_validates(case: str, states: dict[str, FabricState], yang_schema: Any) -> None:
    state = states[case]
    switches = sonic_switches(state)
    assert switches, f"{case} has no SONiC switch"
    for device in switches:
        assert validate_config_db(build_config_db(device, state)) == [], device.name


def test_variants_validate(states: dict[str, FabricState], yang_schema: Any) -> None:
    """The dynamic buffer model ("NULL" PGs, traffic pattern tables) and a Broadcom ASIC are valid too."""
    state = states["lab-mini"]
    leaf = state.devices["leaf1"]
    for variant in (dynamic_variant(leaf), broadcom_variant(leaf)):
        assert validate_config_db(build_config_db(variant, state)) == []


@pytest.fixture
def leaf_db(states: dict[str, FabricState], yang_schema: Any) -> dict[str, Any]:
    state = states["lab-mini"]
    return copy.deepcopy(build_config_db(state.devices["leaf1"], state))


def _one_error(db: dict[str, Any]) -> str:
    errors = validate_config_db(db)
    assert len(errors) == 1, errors
    return errors[0]


def test_pfc_enable_outside_0_7_is_rejected(leaf_db: dict[str, Any]) -> None:
    leaf_db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3,9"
    error = _one_error(leaf_db)
    assert 'Unsatisfied pattern - "3,9" does not conform to "([0-7](,[0-7])*)?"' in error
    assert "PORT_QOS_MAP_LIST[ifname='Ethernet0']/pfc_enable" in error
    assert error.endswith("[CONFIG_DB PORT_QOS_MAP|Ethernet0 pfc_enable]")


def test_wred_max_below_min_is_rejected(leaf_db: dict[str, Any]) -> None:
    leaf_db["WRED_PROFILE"]["WRED_Q3"]["green_max_threshold"] = "1000"  # min is 150000
    error = _one_error(leaf_db)
    assert "Green max threshold must be greater than or equal to min threshold" in error
    assert error.endswith("[CONFIG_DB WRED_PROFILE|WRED_Q3 green_max_threshold]")


def test_buffer_pg_with_a_missing_profile_is_rejected(leaf_db: dict[str, Any]) -> None:
    # BUFFER_PG.profile is a union of a leafref to BUFFER_PROFILE and the string "NULL"
    leaf_db["BUFFER_PG"]["Ethernet0|3"]["profile"] = "pg_lossless_400000_1m_profile"
    error = _one_error(leaf_db)
    assert 'Invalid union value "pg_lossless_400000_1m_profile" - no matching subtype found' in error
    assert "BUFFER_PG_LIST[port='Ethernet0'][pg_num='3']/profile" in error
    assert error.endswith("[CONFIG_DB BUFFER_PG|Ethernet0|3 profile]")


def test_buffer_queue_with_a_missing_profile_is_a_leafref_error(leaf_db: dict[str, Any]) -> None:
    leaf_db["BUFFER_QUEUE"]["Ethernet0|3"]["profile"] = "egress_missing_profile"
    error = _one_error(leaf_db)
    assert 'Invalid leafref value "egress_missing_profile" - no target instance' in error
    assert "/bpf:sonic-buffer-profile/bpf:BUFFER_PROFILE/bpf:BUFFER_PROFILE_LIST/bpf:name" in error


def test_watchdog_detection_below_poll_interval_is_rejected(leaf_db: dict[str, Any]) -> None:
    leaf_db["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "300"  # detection_time is 200
    errors = validate_config_db(leaf_db)
    assert any("detection_time must be greater than or equal to POLL_INTERVAL" in e for e in errors), errors


def test_missing_mandatory_lanes_is_rejected(leaf_db: dict[str, Any]) -> None:
    del leaf_db["PORT"]["Ethernet0"]["lanes"]
    assert 'Mandatory node "lanes" instance does not exist' in _one_error(leaf_db)


def test_content_without_a_place_in_the_models_is_reported(leaf_db: dict[str, Any]) -> None:
    leaf_db["PORT"]["Ethernet0"]["colour"] = "blue"
    leaf_db["NO_SUCH_TABLE"] = {"x": {}}
    leaf_db["QUEUE"]["Ethernet0|3|extra"] = {}
    errors = validate_config_db(leaf_db)
    assert errors[0].startswith("PORT|Ethernet0: unknown field 'colour' (allowed: core_id,")
    assert errors[1].startswith(
        "QUEUE|Ethernet0|3|extra: no single list for a 3-part key (allowed: QUEUE|<ifname>|<qindex>"
    )
    assert errors[2].startswith("NO_SUCH_TABLE: no YANG model in ")


# --- the upstream examples (sonic-buildimage tests_config), through the translator ------------------

EXAMPLES = yang_dir() / "examples"
EXPECTED_ERRORS = {
    "BUFFER_PROFILE_WRONG_POOL_VALUE.json": 'Invalid leafref value "wrong"',
    "PORT_QOS_MAP_APPLY_INVALID_PFC.json": 'Unsatisfied pattern - "8"',
}


def _examples() -> list[str]:
    return sorted(p.name for p in EXAMPLES.glob("*.json"))


@pytest.mark.parametrize("name", _examples())
def test_upstream_examples(name: str, yang_schema: Any) -> None:
    """YANG-JSON example -> CONFIG_DB tables -> XML -> yanglint: CORRECT/VALID ones pass, WRONG/INVALID fail."""
    document = json.loads((EXAMPLES / name).read_text())
    config_db = yang_json_to_config_db(document, yang_schema)
    errors = validate_config_db(config_db)
    if "WRONG" in name or "INVALID" in name:
        assert len(errors) == 1 and EXPECTED_ERRORS[name] in errors[0], errors
    else:
        assert errors == []


def test_examples_cover_both_verdicts() -> None:
    names = _examples()
    assert len(names) >= 9 and set(EXPECTED_ERRORS) <= set(names)


def test_translation_of_nested_maps_and_keys(yang_schema: Any) -> None:
    db = {
        "DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
        "DEVICE_METADATA": {"localhost": {"hostname": "a&b", "supporting_bulk_counter_groups": ["x", "y"]}},
        "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.0/31": {}},
    }
    xml = config_db_to_xml(db, yang_schema)
    assert (
        '<sonic-dscp-tc-map xmlns="http://github.com/sonic-net/sonic-dscp-tc-map">\n'
        "  <DSCP_TO_TC_MAP>\n"
        "    <DSCP_TO_TC_MAP_LIST>\n"
        "      <name>AZURE</name>\n"
        "      <DSCP_TO_TC_MAP>\n"
        "        <dscp>26</dscp>\n"
        "        <tc>3</tc>\n"
    ) in xml
    assert "<localhost>\n      <hostname>a&amp;b</hostname>" in xml
    assert "<supporting_bulk_counter_groups>x</supporting_bulk_counter_groups>" in xml
    assert "<INTERFACE_IPPREFIX_LIST>\n      <name>Ethernet0</name>\n      <ip-prefix>10.0.0.0/31</ip-prefix>" in xml
    # Redis's "field@" list form and its "NULL" placeholder
    redis_form = {"DEVICE_METADATA": {"localhost": {"supporting_bulk_counter_groups@": "x,y", "NULL": "NULL"}}}
    assert "<supporting_bulk_counter_groups>y</supporting_bulk_counter_groups>" in config_db_to_xml(
        redis_form, yang_schema
    )
    with pytest.raises(YangTranslationError, match="is a leaf-list and needs a list"):
        config_db_to_xml({"DEVICE_METADATA": {"localhost": {"supporting_bulk_counter_groups": "x"}}}, yang_schema)


def test_list_keys_come_from_the_models(yang_schema: Any) -> None:
    def keys(table: str) -> dict[str, tuple[str, ...]]:
        return {n.name: n.keys for n in yang_schema.tables[table].node.lists()}

    assert keys("BUFFER_PG") == {"BUFFER_PG_LIST": ("port", "pg_num")}
    assert keys("BGP_NEIGHBOR") == {
        "BGP_NEIGHBOR_TEMPLATE_LIST": ("neighbor",),
        "BGP_NEIGHBOR_LIST": ("vrf_name", "neighbor"),
    }
    assert keys("QUEUE") == {
        "QUEUE_LIST": ("ifname", "qindex"),
        "VOQ_QUEUE_LIST": ("hostname", "asic_name", "ifname", "qindex"),
    }
    assert yang_schema.tables["PORT"].module == "sonic-port"
    assert yang_schema.tables["PORT"].namespace == "http://github.com/sonic-net/sonic-port"
    # choice/case are transparent: ACL_RULE's SRC_IP sits inside choice src_dst_address
    assert "SRC_IP" in yang_schema.tables["ACL_RULE"].node.lists()[0].children


def test_loading_only_the_needed_modules_gives_the_same_verdicts(
    states: dict[str, FabricState], yang_schema: Any
) -> None:
    """validate_config_db loads the tables' modules and their imports; the full set must agree."""
    state = states["lab-mini"]
    good = build_config_db(state.devices["leaf1"], state)
    too_big = copy.deepcopy(good)
    too_big["PORT"]["Ethernet0"]["mtu"] = "9300"  # above sonic-port.yang's 68..9216
    no_lanes = copy.deepcopy(good)
    del no_lanes["PORT"]["Ethernet8"]["lanes"]  # mandatory while a `when` on DEVICE_METADATA holds
    for db in (good, too_big, no_lanes):
        xml = config_db_to_xml(db, yang_schema)
        assert validate_xml(xml, yang_schema, modules_of(db, yang_schema)) == validate_xml(xml, yang_schema)
    assert validate_config_db(too_big) != [] and validate_config_db(no_lanes) != []


def test_yang_dir_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, yang_schema: Any) -> None:
    monkeypatch.setenv(ENV_YANG_DIR, str(yang_schema.directory))
    assert yang_dir() == yang_schema.directory
    monkeypatch.setenv(ENV_YANG_DIR, str(tmp_path))
    with pytest.raises(YangDirNotFoundError, match=r"has no \*\.yang files"):
        yang_dir()
    monkeypatch.setenv(ENV_YANG_DIR, str(tmp_path / "missing"))
    with pytest.raises(YangDirNotFoundError, match=r"from \$XOFF_SONIC_YANG_DIR\) does not exist"):
        validate_config_db({})
