"""Collect starts the CLI-session devices (a round trip per command) before the exec-channel ones (one round
trip for all), and the snapshot is the same whatever the order the devices were read in."""

from __future__ import annotations

from pathlib import Path

from xoff.collect import engine
from xoff.connect.credentials import CredentialSet
from xoff.connect.session import ConnectSpec
from xoff.connect.targets import build_targets
from xoff.desired import build_fabric_state
from xoff.intent import load_intent

LAB_MINI = Path(__file__).resolve().parents[2] / "inventory" / "lab-mini"


def test_switches_start_before_hosts_and_the_snapshot_keeps_name_order() -> None:
    desired = build_fabric_state(load_intent(LAB_MINI))
    targets = build_targets(desired)
    kinds = {t.name: t.kind for t in targets}
    assert {"switch", "host"} <= set(kinds.values())
    asked: list[str] = []

    def refuse(spec: ConnectSpec) -> object:
        asked.append(spec.target.name)
        raise ConnectionRefusedError("refused")

    options = engine.CollectOptions(workers=1, timeout_s=5.0)  # one worker: started in submission order
    hosts_first = sorted(targets, key=lambda t: t.kind != "host")
    snapshot = engine.collect(
        desired, hosts_first, CredentialSet(switch=None, host=None), None, options, connect=refuse
    )
    switches = [n for n in asked if kinds[n] == "switch"]
    assert asked[: len(switches)] == switches, asked  # every switch before any host
    assert [n for n in asked if kinds[n] == "host"] == [t.name for t in hosts_first if t.kind == "host"]
    assert [e.device for e in snapshot.errors] == sorted(kinds)  # device-name order, not the order read
