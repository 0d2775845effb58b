"""``SshCounterSource`` on fake sessions that print real-format outputs (the corpus' first sample of each command,
tests/fixtures/real/<platform>/): one batch per device per round, its platform's counter commands only, readings
named by the metric catalogue; a device that fails is a Sample with an error and the others carry on; sessions are
kept across rounds, a lost one dropped and reopened, all closed at the end."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.support.corpus import read_sample, samples
from tests.support.shim_host import fabric
from xoff.connect.credentials import Credentials, CredentialSet
from xoff.connect.session import ConnectSpec
from xoff.contracts.collect import Command
from xoff.watch.metrics import METRICS
from xoff.watch.sample import Sample
from xoff.watch.ssh_source import SshCounterSource

SECRET = "pw-never-shown"
CREDS = CredentialSet(switch=Credentials("admin", SECRET), host=Credentials("root", SECRET))
FABRIC = fabric("lab-mini")
REAL_FEC = samples("sonic", "show_interfaces_counters_fec-stats")[0]


def _corpus(platform: str, command: str) -> str | None:
    """The first corpus sample of ``command`` (a port in it written as PORT), None when there is none."""
    slug = Command(command).slug
    for port in ("swp1", "swp2", "swp3", "swp4"):
        slug = slug.replace(f"_{port}_", "_PORT_")
    found = samples(platform, slug)
    return read_sample(found[0]) if found else None


class FakeSession:
    def __init__(self, platform: str, fail: BaseException | None = None, given: dict[str, str] | None = None) -> None:
        self.platform, self.fail, self.given = platform, fail, given or {}
        self.batches: list[list[str]] = []
        self.closed = False

    def run_batch(self, commands: list[str], _timeout: float) -> list[str | Exception]:
        if self.fail is not None:
            raise self.fail
        self.batches.append(commands)
        out: list[str | Exception] = []
        for c in commands:
            text = self.given.get(c) or _corpus(self.platform, c)
            out.append(text if text is not None else RuntimeError(f"{c}: no such command"))
        return out

    def send_command(self, *_a: Any, **_k: Any) -> str:
        raise AssertionError("the source batches")

    def disconnect(self) -> None:
        self.closed = True


class Connector:
    def __init__(self, fail: dict[str, BaseException] | None = None, given: dict[str, str] | None = None) -> None:
        self.fail, self.given = dict(fail or {}), given
        self.opened: Counter[str] = Counter()
        self.sessions: list[FakeSession] = []

    def __call__(self, spec: ConnectSpec) -> FakeSession:
        self.opened[spec.target.name] += 1
        failure = self.fail.get(spec.target.name)
        if isinstance(failure, PermissionError):
            raise failure
        session = FakeSession(spec.target.platform, failure, self.given)
        self.sessions.append(session)
        return session


def _by_device(samples_: list[Sample]) -> dict[str, Sample]:
    return {s.device: s for s in samples_}


def test_each_switch_platform_is_read_into_catalogue_metrics() -> None:
    connect = Connector()
    with SshCounterSource(FABRIC, CREDS, connect=connect) as source:
        got = _by_device(source.read(["leaf1", "spine2", "sleaf1"]))
    for name in ("leaf1", "spine2", "sleaf1"):
        assert got[name].error is None, got[name].error
        assert got[name].readings, name
        assert {r.metric for r in got[name].readings} <= set(METRICS)
    leaf = {r.metric for r in got["leaf1"].readings}
    assert {"xoff_pfc_rx_pause_frames_total", "xoff_fec_corrected_codewords_total", "xoff_pre_fec_ber"} <= leaf
    assert "xoff_buffer_pool_watermark_bytes" in leaf and "xoff_pg_headroom_watermark_bytes" in leaf
    assert {"xoff_optic_rx_power_dbm", "xoff_optic_temperature_celsius"} <= leaf
    assert "xoff_queue_ecn_marked_packets_total" in {r.metric for r in got["spine2"].readings}
    assert all(len(s.batches) == 1 for s in connect.sessions)  # one batch per device per round
    (leaf_batch,) = [s.batches[0] for s in connect.sessions if s.platform == "sonic"]
    assert "show runningconfiguration all" not in leaf_batch  # counter commands only
    assert all(s.closed for s in connect.sessions)


def test_a_failed_device_is_an_error_sample_and_the_others_carry_on() -> None:
    connect = Connector({"leaf2": PermissionError(f"login refused for admin/{SECRET}")})
    with SshCounterSource(FABRIC, CREDS, connect=connect) as source:
        got = _by_device(source.read(["leaf1", "leaf2", "nosuch"]))
    assert got["leaf1"].error is None and got["leaf1"].readings
    assert got["leaf2"].readings == () and got["leaf2"].error is not None
    assert "auth" in got["leaf2"].error and SECRET not in got["leaf2"].error
    assert got["nosuch"].error is not None and "nosuch" in got["nosuch"].error


def test_sessions_are_kept_across_rounds_and_a_lost_one_is_reopened() -> None:
    connect = Connector()
    source = SshCounterSource(FABRIC, CREDS, connect=connect)
    source.read(["leaf1", "spine2"])
    source.read(["leaf1", "spine2"])
    assert connect.opened == {"leaf1": 1, "spine2": 1}
    connect.sessions[0].fail = EOFError("connection closed")
    lost = connect.sessions[0]
    name = "leaf1" if lost.platform == "sonic" else "spine2"
    failed = _by_device(source.read([name]))[name]
    assert failed.error is not None and "unreachable" in failed.error and lost.closed
    assert _by_device(source.read([name]))[name].error is None
    assert connect.opened[name] == 2
    source.close()
    assert all(s.closed for s in connect.sessions) and source.sessions == {}


def test_na_cells_are_not_observed_never_zero() -> None:
    na = read_sample(REAL_FEC.with_name("portstat_na_cells.txt"))
    with SshCounterSource(FABRIC, CREDS, connect=Connector(given={"show interfaces counters fec-stats": na})) as source:
        (leaf,) = source.read(["leaf1"])
    ber = {r.label("port"): r.value for r in leaf.readings if r.metric == "xoff_pre_fec_ber"}
    corrected = {r.label("port"): r.value for r in leaf.readings if r.metric == "xoff_fec_corrected_codewords_total"}
    assert ber["Ethernet0"] is None and corrected["Ethernet0"] == 245119
    assert leaf.unmodelled["show interfaces counters fec-stats: FLR(O)"] == 4


@pytest.mark.parametrize("host", ["gpu1"])
def test_a_host_is_read_through_host_readings_or_said_missing(host: str) -> None:
    with SshCounterSource(FABRIC, CREDS, connect=Connector()) as source:
        (sample,) = source.read([host])
    assert sample.device == host
    assert sample.error is not None or sample.readings
