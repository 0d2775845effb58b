"""``--live`` / ``--lab`` start the SSH counter source by name (``xoff.watch.ssh_source.SshCounterSource``, issue 18's
switch part): here a stand-in module proves the wiring (what it is given, that it is closed, that its devices are
the intent's switches and hosts)."""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest

from tests.support.paths import ROOT
from xoff import api
from xoff.errors import InputError
from xoff.watch.sample import Reading, Sample

INTENT = ROOT / "inventory" / "lab-mini"


class StandIn:
    name = "ssh"
    made: ClassVar[list[StandIn]] = []

    def __init__(self, fabric: Any, creds: Any, **kwargs: Any) -> None:
        self.fabric, self.creds, self.kwargs = fabric, creds, kwargs
        self.asked: list[tuple[str, ...]] = []
        self.closed = False
        self.t = 0.0
        StandIn.made.append(self)

    def read(self, devices: Sequence[str]) -> list[Sample]:
        self.asked.append(tuple(devices))
        self.t += 5.0
        return [Sample(d, self.t, (Reading.of("xoff_nic_out_of_buffer_total", 0, port="eth0"),)) for d in devices]

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def ssh_module(monkeypatch: pytest.MonkeyPatch) -> type[StandIn]:
    module = types.ModuleType("xoff.watch.ssh_source")
    module.SshCounterSource = StandIn  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "xoff.watch.ssh_source", module)
    monkeypatch.setenv("XOFF_SWITCH_USERNAME", "admin")
    StandIn.made = []
    return StandIn


def test_live_starts_the_ssh_source(ssh_module: type[StandIn]) -> None:
    options = api.WatchOptions(live=True, once=True, interval_s=0.001, window_s=0.001, timeout_s=7.0, workers=3)
    report = api.watch(INTENT, options, pace=(lambda _s: None, lambda: 0.0))
    (source,) = ssh_module.made
    assert source.kwargs == {"known_hosts": None, "timeout_s": 7.0, "workers": 3}
    assert source.closed and len(source.asked) == 2
    assert source.asked[0] == ("gpu1", "gpu2", "gpu3", "gpu4", "leaf1", "leaf2", "sleaf1", "spine1", "spine2")
    assert report.source == "ssh" and report.not_read == {}


def test_gnmi_is_not_started_from_here(ssh_module: type[StandIn]) -> None:
    with pytest.raises(InputError) as err:
        api.watch(INTENT, api.WatchOptions(live=True, source="gnmi", once=True))
    assert "--source gnmi" in str(err.value.sorted()[0])
