"""The SONiC emulator's ``show interfaces counters fec-stats``: xoff's parser reads it to the shape it makes of the
real-format corpus (tests/fixtures/real/sonic/show_interfaces_counters_fec-stats/), and a counter seeded to rise
(``{"total", "per_second", "since"}``) is higher on a later read, the BER gauge as seeded."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from tests.support.corpus import corpus_shape, covers, jsonable, shape
from tests.support.sonic_emu import put, run
from xoff.lab.emulators.sonic import Emulator
from xoff.platforms.sonic import fec, optics

Session = Callable[..., Emulator]


def test_fec_stats_moves_and_has_the_corpus_shape(session: Session, rendered: dict[str, Any]) -> None:
    switch = session()
    put(switch, "rendered.json", rendered)
    assert run(switch, "sudo config load rendered.json -y").status == 0
    since = time.time() - 100
    seeded = {"corr": {"total": 1000, "per_second": 1000.0, "since": since}, "uncorr": 3, "pre_ber": {"value": 2.4e-5}}
    (switch.ctx.state_dir / "counters.json").write_text(json.dumps({"fec": {"Ethernet0": seeded}}))
    first = fec.parse_fec_stats(run(switch, fec.FEC_STATS.text).output)
    assert covers(corpus_shape("sonic", fec.FEC_STATS.slug)["ports"], shape(jsonable(first))) == []
    assert first["Ethernet0"].uncorrectable == 3 and first["Ethernet0"].pre_ber == 2.4e-5
    assert (first["Ethernet0"].corrected or 0) >= 101_000
    deadline = time.monotonic() + 5
    while (second := fec.parse_fec_stats(run(switch, fec.FEC_STATS.text).output)) == first:
        assert time.monotonic() < deadline, "the corrected codewords did not move"
    assert (second["Ethernet0"].corrected or 0) > (first["Ethernet0"].corrected or 0)
    assert all(p.corrected == 0 and p.pre_ber == 0.0 for n, p in second.items() if n != "Ethernet0")


def test_transceiver_dom_has_the_corpus_shape(session: Session, rendered: dict[str, Any]) -> None:
    switch = session()
    put(switch, "rendered.json", rendered)
    assert run(switch, "sudo config load rendered.json -y").status == 0
    seeded = {"rx_power": [{"value": -13.9}, -2.5, float("-inf"), -1.0], "temperature": {"value": 71.5}}
    (switch.ctx.state_dir / "counters.json").write_text(json.dumps({"optics": {"Ethernet8": seeded}}))
    unmodelled: dict[str, int] = {}
    got = optics.parse_transceiver_dom(run(switch, optics.TRANSCEIVER_DOM.text).output, unmodelled)
    assert covers(corpus_shape("sonic", optics.TRANSCEIVER_DOM.slug)["ports"], shape(jsonable(got))) == []
    assert list(got) == ["Ethernet8"]  # every other cage empty: Not detected
    assert got["Ethernet8"].rx_power_dbm == {1: -13.9, 2: -2.5, 3: float("-inf"), 4: -1.0}
    assert got["Ethernet8"].temperature_c == 71.5 and unmodelled
