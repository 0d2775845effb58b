"""scripts/extract_skus.py's readers, on texts written in the two spellings sonic-buildimage uses."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.paths import ROOT, load_module

SCRIPT = ROOT / "scripts" / "extract_skus.py"


@pytest.fixture(scope="module")
def extract() -> ModuleType:
    return load_module("extract_skus", SCRIPT, registered=True)


JINJA_VARS = """{% set default_cable = '5m' %}
{% set ingress_lossless_pool_size =  '1000' %}
{% set ingress_lossless_pool_xoff =  '300' %}
{% set egress_lossless_pool_size =  '2000' %}
{% import 'buffers_defaults_objects.j2' as defs with context %}
"""

JSON_POOLS = """{%- macro generate_buffer_pool_and_profiles() %}
    "BUFFER_POOL": {
        "ingress_lossless_pool": {
            {# a comment with } braces #}
            "size": "{{ ingress_lossless_pool_size }}",
            "type": "ingress",
            "xoff": "700"
        },
        "egress_lossy_pool": {
            "size": "500",
            "mode": "dynamic"
        },
        "lossy_pool": {
            "size": "9"
        }
    },
    "BUFFER_PROFILE": {
        "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "xoff": "1"}
    },
{%- endmacro %}
"""

NONE = {"ingress_lossy_pool": None, "egress_lossless_pool": None, "egress_lossy_pool": None}

CASES = [
    (
        "jinja variables",
        JINJA_VARS,
        {},
        {**NONE, "ingress_lossless_pool": 1000, "egress_lossless_pool": 2000, "shared_headroom_pool_xoff": 300},
        [],
    ),
    (
        "json pools, a size from an imported file, a pool xoff does not know",
        JSON_POOLS,
        {"ingress_lossless_pool_size": "4000"},
        {**NONE, "ingress_lossless_pool": 4000, "egress_lossy_pool": 500, "shared_headroom_pool_xoff": 700},
        ["BUFFER_POOL names pools xoff does not know: lossy_pool"],
    ),
    (
        "nothing given",
        "{% set default_cable = '40m' %}\n",
        {},
        {**NONE, "ingress_lossless_pool": None, "shared_headroom_pool_xoff": None},
        [],
    ),
]


@pytest.mark.parametrize(("text", "imported", "pools", "notes"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_parse_pools(
    extract: ModuleType, text: str, imported: dict[str, str], pools: dict[str, object], notes: list[str]
) -> None:
    assert extract.parse_pools(text, imported) == (pools, notes)


def test_the_first_unconditional_set_wins(extract: ModuleType) -> None:
    text = "{%- set ingress_lossless_pool_size = '10' %}\n{%- if x %}\n    {%- set ingress_lossless_pool_size = '20' %}\n{%- endif %}\n"
    assert extract.jinja_vars(text, {})["ingress_lossless_pool_size"] == "10"


def test_parse_lookup_keeps_every_row_as_written(extract: ModuleType) -> None:
    text = "# PG lossless profiles.\n# speed cable size xon xoff threshold xon_offset\n 100000  5m 1248 2288 165568 0 2288\n\t400000\t300m\t18796\t0\t612140\t-2\n"
    assert extract.parse_lookup(text) == [
        {
            "speed": 100000,
            "cable": "5m",
            "size": 1248,
            "xon": 2288,
            "xoff": 165568,
            "dynamic_th": 0,
            "xon_offset": 2288,
        },
        {
            "speed": 400000,
            "cable": "300m",
            "size": 18796,
            "xon": 0,
            "xoff": 612140,
            "dynamic_th": -2,
            "xon_offset": None,
        },
    ]


def test_bcm_chip_ids_name_the_family(extract: ModuleType) -> None:
    assert extract._bcm_chip("Broadcom Inc. BCM78902 Switch ASIC") == ("tomahawk5", "BCM78902")
    assert extract._bcm_chip("BCM56990 Switch ASIC") == ("tomahawk4", "BCM56990")
    assert extract._bcm_chip("Device f907") is None
