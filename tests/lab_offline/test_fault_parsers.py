"""What the lab fault-injection suite found missing, pinned offline: the SONiC watchdog's storm counters
(``show pfcwd stats``), a port the watchdog was stopped on (``config pfcwd stop``) parses instead of
failing the collect, a host without the NCCL environment file is an observed state; and the fault
registry names only registered checks."""

from __future__ import annotations

import copy

import pytest

from tests.support.paths import ROOT
from xoff.collect.textfsm import TextParseError, parse_text
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.lab.emulators.sonic import show
from xoff.lab.faults import FAULTS
from xoff.platforms.linux import collect as host
from xoff.platforms.sonic import counters as sonic_counters
from xoff.platforms.sonic.config_db import build_config_db
from xoff.platforms.sonic.parse import parse_config_db
from xoff.validate.registry import CHECKS

FIX = ROOT / "tests" / "fixtures" / "parse" / "sonic" / "show_pfcwd_stats"


def test_pfcwd_stats_storms_per_port_and_queue() -> None:
    outputs = {sonic_counters.PFCWD_STATS.text: (FIX / "lab-mini-spine1.raw").read_text(encoding="utf-8")}
    counters = sonic_counters.read_counters(outputs, "d", [], {})[0]
    assert counters["Ethernet8"].watchdog[3].storms_detected == 2
    assert counters["Ethernet8"].watchdog[3].storms_restored == 1
    assert counters["Ethernet0"].watchdog[3].storms_detected == 1  # still stormed: 1/0
    assert set(counters) == {"Ethernet0", "Ethernet8"}


def test_pfcwd_stats_without_storms_is_an_empty_table() -> None:
    text = (FIX / "no-storm.raw").read_text(encoding="utf-8")
    assert parse_text(sonic_counters.TEXTFSM, "sonic", sonic_counters.PFCWD_STATS.text, text) == []
    assert text == show.pfcwd_stats({"PORT": {"Ethernet0": {}}}, {}, [], False)  # the emulator prints it


def test_pfcwd_stats_rejects_an_unknown_line() -> None:
    text = (FIX / "lab-mini-spine1.raw").read_text(encoding="utf-8") + "Ethernet0 surprise\n"
    with pytest.raises(TextParseError, match="unexpected line in show pfcwd stats"):
        parse_text(sonic_counters.TEXTFSM, "sonic", sonic_counters.PFCWD_STATS.text, text)


def test_a_port_the_watchdog_was_stopped_on_parses() -> None:
    state = build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))
    db = copy.deepcopy(build_config_db(state.devices["leaf1"], state))
    del db["PFC_WD"]["Ethernet0"]  # `config pfcwd stop Ethernet0`; PORT_QOS_MAP keeps pfcwd_sw_enable
    assert db["PORT_QOS_MAP"]["Ethernet0"]["pfcwd_sw_enable"] == "3"
    parsed = parse_config_db(db)
    assert parsed["interfaces"]["Ethernet0"]["pfc_watchdog"] is False
    assert parsed["interfaces"]["Ethernet8"]["pfc_watchdog"] is True
    assert parsed["pfc_watchdog"] is not None and "Ethernet0" not in parsed["pfc_watchdog"].ports


def test_a_host_without_the_nccl_file_is_observed_not_an_error() -> None:
    state = build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))
    gpu1 = state.devices["gpu1"]
    collector = host.Collector()
    assert host.NCCL in collector.commands(gpu1)
    assert host.NO_NCCL_ENV.startswith("#")  # a comment: the environment is empty, not unreadable
    assert host._nccl_env(host.NO_NCCL_ENV + "\n") == {}
    assert "No such file" not in host.NCCL.text and "cat" in host.NCCL.text


# xoff watch's signal ids (the issue 18 contract; xoff.watch.signals defines them): a watch fault's check
WATCH_SIGNALS = {
    f"watch.{s}"
    for s in (
        "pause_storm", "slow_drain", "lossless_drop", "ecn_ratio", "headroom_watermark", "fec_ber", "optic",
        "nic_discards", "gpu_straggler",
    )
}  # fmt: skip


def test_every_fault_names_registered_checks() -> None:
    ids = set(CHECKS.ids())
    for f in FAULTS.values():
        assert f.check in ids or f.check in WATCH_SIGNALS, f.name
        assert set(f.also) <= ids and f.check not in f.also, f.name
        assert set(f.names) <= {"device", "port", "priority"} and "device" in f.names, f.name
        assert ("port" in f.names) == (f.target.port is not None), f.name
        assert ("priority" in f.names) == (f.target.priority is not None), f.name


def test_docs_faults_lab_table_is_fresh() -> None:
    """docs/faults.md's lab table is generated from the fault and check registries
    (``python -m xoff.lab.faults.docs docs/faults.md``)."""
    from xoff.lab.faults import docs as seed_docs

    page = (ROOT / "docs" / "faults.md").read_text(encoding="utf-8")
    assert seed_docs.update(page) == page, "stale: run python -m xoff.lab.faults.docs docs/faults.md"
    assert all(f"`{name}`" in page for name in FAULTS)
