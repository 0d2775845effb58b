"""The SONiC emulator's output of every counter and watermark command xoff collects, fed to xoff's parser, has the
shape of what the parser makes of the real-format corpus (tests/fixtures/real/sonic/, sources in its README.md):
UC0-9 / MC10-19 / ALL20-29 with N/A, N/A in ``show pfc counters``, per-PG and per-pool watermarks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.platforms.sonic.test_counters_corpus import PARSERS
from tests.support.corpus import corpus_shape, covers, jsonable, shape
from tests.support.sonic_emu import put, run
from xoff.contracts.collect import Command
from xoff.lab.emulators.sonic import Emulator
from xoff.platforms.sonic import counters

Session = Callable[..., Emulator]
STATE = {
    "pfc": {
        "Ethernet0": {"rx": [0, 0, 0, 48213, 0, 0, 0, 0], "tx": [0, 0, 0, 12, 0, 0, 0, 0]},
        "Ethernet8": {"rx": [None] * 8, "tx": [None] * 8},  # COUNTERS_DB has none for this port: N/A
    },
    "queue": {"Ethernet0": {"UC3": {"packets": 1000, "bytes": 4096000, "drop_packets": 3, "drop_bytes": 12288}}},
    "pfcwd": {"Ethernet0:3": {"status": "stormed", "storm_detected": 1, "storm_restored": 0, "tx_dropped": 40}},
    "pg_headroom_watermark": {"Ethernet0": [0, 0, 0, 41984, 0, 0, 0, 0], "Ethernet8": [None] * 8},
    "pg_shared_watermark": {"Ethernet0": [1024, 0, 0, 880640, 0, 0, 0, 0]},
    "buffer_pool_watermark": {"ingress_lossless_pool": 9437184},
    "headroom_pool_watermark": {"ingress_lossless_pool": 524288},
}


@pytest.fixture
def switch(session: Session, rendered: dict[str, Any]) -> Emulator:
    emulator = session()
    put(emulator, "rendered.json", rendered)
    assert run(emulator, "sudo config load rendered.json -y").status == 0
    (emulator.ctx.state_dir / "counters.json").write_text(json.dumps(STATE))
    return emulator


@pytest.mark.parametrize("command", counters.COMMANDS, ids=[c.slug for c in counters.COMMANDS])
def test_emulator_output_parses_to_the_corpus_shape(command: Command, switch: Emulator) -> None:
    reply = run(switch, command.text)
    assert reply.status == 0, reply.output
    emulated = shape(jsonable(PARSERS[command](reply.output)))
    assert emulated, f"{command.text}: the emulator printed nothing xoff reads"
    assert covers(corpus_shape("sonic", command.slug), emulated) == []


def test_emulator_prints_na_as_real_switches_do(switch: Emulator) -> None:
    pfc = counters.parse_pfc(run(switch, counters.PFC_COUNTERS.text).output)
    assert pfc["Ethernet8"].rx_pause == {} and pfc["Ethernet0"].rx_pause[3] == 48213
    text = run(switch, counters.QUEUE_COUNTERS.text).output
    assert "Ethernet0  ALL29             N/A              N/A          N/A           N/A" in text
    assert sorted(counters.parse_queues(text)["Ethernet0"]) == list(range(10))
    ports, pools = counters.read_counters(
        {c.text: run(switch, c.text).output for c in counters.COMMANDS}, "leaf1", errors := [], {}
    )
    assert errors == []
    assert ports["Ethernet0"].watermarks is not None and ports["Ethernet0"].watermarks.pg_headroom[3] == 41984
    assert pools is not None
    assert pools["ingress_lossless_pool"] == 9437184 and pools["ingress_lossless_pool:headroom"] == 524288
