"""Every show command's output for a known state equals its real-format fixture.

The state: lab-mini's leaf1 with its rendered CONFIG_DB loaded, Ethernet0..Ethernet40 up in
CONFIG_DB, a few counters from counters.json; FRR and lldpd answers are the captured outputs of
the real daemons (tests/fixtures/sonic-cli/input/, FRR 8.4 and lldpd 1.0 on Debian 12). Fixtures
are in tests/fixtures/sonic-cli/show/ (rewrite with pytest --update-golden, then review against
the formats documented in xoff.lab.emulators.sonic.show).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.support.sonic_emu import FIXTURES, put, run
from xoff.lab.emulators.sonic import Emulator, show_cmds

Session = Callable[..., Emulator]
COUNTERS = {
    "pfc": {"Ethernet0": {"rx": [0, 0, 0, 1234, 0, 0, 0, 0], "tx": [0, 0, 0, 56, 0, 0, 0, 0]}},
    "queue": {"Ethernet0": {"UC3": {"packets": 1000, "bytes": 4096000, "drop_packets": 0, "drop_bytes": 0}}},
    "pg_headroom_persistent_watermark": {"Ethernet8": [0, 0, 0, 190464, 0, 0, 0, 0]},
}
COMMANDS = {
    "interfaces-status": "show interfaces status",
    "interfaces-status-one": "show interfaces status Ethernet8",
    "pfc-counters": "show pfc counters",
    "queue-counters": "show queue counters Ethernet0",
    "pg-persistent-watermark-headroom": "show priority-group persistent-watermark headroom",
    "pfcwd-config": "show pfcwd config",
    "ecn": "show ecn",
    "runningconfiguration-all": "show runningconfiguration all",
    "lldp-neighbors": "show lldp neighbors",
    "lldp-table": "show lldp table",
    "lldp-neighbors-none": "show lldp neighbors",
    "ip-bgp-summary": "show ip bgp summary",
    "version": "show version",
}


@pytest.fixture
def known(session: Session, rendered: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Emulator:
    emulator = session()
    put(emulator, "rendered.json", rendered)
    assert run(emulator, "sudo config load rendered.json -y").status == 0
    (emulator.ctx.state_dir / "counters.json").write_text(json.dumps(COUNTERS))
    inputs = FIXTURES / "input"

    def lldpcli(self: show_cmds.ShowCommands, *args: str) -> str | None:
        if self.s.ctx.netns != "lldp":
            return None
        name = "lldpcli-json-show-neighbors.json" if "json" in args else "lldpcli-show-neighbors.txt"
        return (inputs / name).read_text()

    def vtysh(self: show_cmds.ShowCommands, command: str) -> str | None:
        return (inputs / "frr-show-ip-bgp-summary.json").read_text() if "summary" in command else ""

    monkeypatch.setattr(show_cmds.ShowCommands, "_lldpcli", lldpcli)
    monkeypatch.setattr(show_cmds.ShowCommands, "_vtysh", vtysh)
    monkeypatch.setattr(show_cmds, "uptime_text", lambda: "14:40:15 up 3 min,  1 user,  load average: 1.26, 1.45, 0.66")
    monkeypatch.setattr(show_cmds, "datetime", _FixedClock)
    monkeypatch.setattr(show_cmds, "link_states", lambda _ctx: {})
    return emulator


class _FixedClock(datetime):
    @classmethod
    def now(cls, _tz: Any = None) -> _FixedClock:
        return cls(2025, 1, 13, 14, 40, 15)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_show_output_matches_real_format_fixture(name: str, known: Emulator, update_golden: bool) -> None:
    if name in {"lldp-neighbors", "lldp-table"}:
        known.ctx = type(known.ctx)(**{**known.ctx.__dict__, "netns": "lldp"})
    reply = run(known, COMMANDS[name])
    assert reply.status == 0, reply.output
    fixture = FIXTURES / "show" / f"{name}.txt"
    if update_golden:
        fixture.parent.mkdir(parents=True, exist_ok=True)
        fixture.write_text(reply.output, encoding="utf-8")
    assert reply.output == fixture.read_text(encoding="utf-8")


def test_pty_sessions_use_terminal_line_ends(session: Session) -> None:
    emulator = session(pty=True)
    assert emulator.prompt() == "admin@leaf1:~$ "
    assert emulator.banner().startswith("Linux leaf1 ")
    assert "-- Software for Open Networking in the Cloud --\r\n" in emulator.banner()
    reply = run(emulator, "show foo")
    assert (
        reply.output
        == 'Usage: show [OPTIONS] COMMAND [ARGS]...\r\nTry "show -h" for help.\r\n\r\nError: No such command "foo".\r\n'
    )


def test_bgp_summary_without_frr_is_vtysh_error(session: Session) -> None:
    reply = run(session(), "show ip bgp summary")
    assert (reply.status, reply.output) == (1, "Exiting: failed to connect to any daemons.\n")


def test_fixture_inputs_are_real_daemon_outputs() -> None:
    summary = json.loads((FIXTURES / "input" / "frr-show-ip-bgp-summary.json").read_text())
    assert set(summary) == {"ipv4Unicast"}
    assert (
        Path(FIXTURES / "input" / "lldpcli-show-neighbors.txt").read_text().startswith("-" * 79 + "\nLLDP neighbors:\n")
    )
