"""Timeouts that follow a device's pace: the arithmetic (floor, ceiling, the fixed form), the knob each
error names, and a netmiko session that waits that long on every read, the command echo included."""

from __future__ import annotations

from typing import Any

import pytest
from netmiko import ReadTimeout

from xoff.connect.pace import CEILING_S, FLOOR_S, MAX_PACE, REFERENCE_LOGIN_S, Pace, Timeouts
from xoff.connect.session import NetmikoSession, PromptSession, connect_paced


@pytest.mark.parametrize(
    ("timeouts", "login_s", "base", "want"),
    [
        (Timeouts(), None, None, 10.0),  # not measured: netmiko's own default
        (Timeouts(), REFERENCE_LOGIN_S / 2, 60.0, 60.0),  # a fast login never shortens a wait
        (Timeouts(), REFERENCE_LOGIN_S * 3, None, 30.0),  # three times slower: three times longer
        (Timeouts(), REFERENCE_LOGIN_S * 100, 10.0, 10.0 * MAX_PACE),  # the pace is bounded
        (Timeouts(factor=2.0), REFERENCE_LOGIN_S * 3, 120.0, 720.0),
        (Timeouts(factor=8.0), REFERENCE_LOGIN_S * 8, 120.0, CEILING_S),  # the ceiling
        (Timeouts(factor=0.01), None, 10.0, FLOOR_S),  # the floor
        (Timeouts(fixed_s=4.0), REFERENCE_LOGIN_S * 5, 120.0, 4.0),  # --timeout: exactly that, no pace
    ],
)
def test_read_timeout(timeouts: Timeouts, login_s: float | None, base: float | None, want: float) -> None:
    assert Pace(timeouts, login_s).read_timeout(base) == pytest.approx(want)


def test_connection_setup_and_the_knob_named() -> None:
    assert (Timeouts().connect_s, Timeouts(factor=3).connect_s, Timeouts(fixed_s=2).connect_s) == (20.0, 60.0, 2.0)
    assert Timeouts(factor=1.5).hint() == "raise --timeout-factor (now 1.5)"
    assert Timeouts(fixed_s=8).hint().startswith("raise --timeout (now 8 s)")
    for bad in ({"factor": 0.0}, {"fixed_s": -1.0}):
        with pytest.raises(ValueError, match="above 0"):
            Timeouts(**bad)


class _Conn:
    """What NetmikoSession uses of a netmiko connection, recording each call's waits."""

    def __init__(self) -> None:
        self.read_timeout_override: float | None = None
        self.calls: list[tuple[str, float | None, float | None]] = []

    def send_command(self, command: str, **kwargs: Any) -> str:
        self.calls.append((command, kwargs.get("read_timeout"), self.read_timeout_override))
        return "ok"

    def send_config_set(self, commands: list[str], **kwargs: Any) -> str:
        self.calls.append((commands[0], kwargs.get("read_timeout"), self.read_timeout_override))
        return "ok"


def test_every_read_waits_the_paced_time_and_netmikos_own_waits_follow() -> None:
    """netmiko waits a fixed 10 s for a command's echo: its ``read_timeout_override`` carries the paced
    time into that wait during the call, and is put back after it."""
    conn = _Conn()
    session = NetmikoSession(conn, Pace(Timeouts(), REFERENCE_LOGIN_S * 2))  # type: ignore[arg-type]
    session.send_command("show version")
    session.send_command("show running-config", read_timeout=60.0)
    session.send_config_set(["hostname x"])
    assert conn.calls == [
        ("show version", 20.0, 20.0),
        ("show running-config", 120.0, 120.0),
        ("hostname x", 30.0, 30.0),
    ]
    assert conn.read_timeout_override is None


def test_connection_setup_retried_once_when_it_timed_out_never_when_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("xoff.connect.session.RETRY_PAUSE_S", 0.0)
    tries: list[str] = []

    def flaky() -> Any:
        tries.append("x")
        if len(tries) == 1:
            raise TimeoutError("timed out")
        return _Conn()

    session = connect_paced(flaky, Timeouts())
    assert len(tries) == 2 and session.pace.login_s is not None and session.pace.login_s >= 0

    def refused() -> Any:
        tries.append("r")
        raise PermissionError("Authentication failed")

    with pytest.raises(PermissionError):
        connect_paced(refused, Timeouts())
    assert tries.count("r") == 1

    def dead() -> Any:
        tries.append("d")
        raise TimeoutError("timed out")

    with pytest.raises(TimeoutError):
        connect_paced(dead, Timeouts())
    assert tries.count("d") == 2


class _CliConn(_Conn):
    base_prompt = "leaf1"

    def __init__(self, late: bool = False) -> None:
        super().__init__()
        self.late = late

    def send_command(self, command: str, **kwargs: Any) -> str:
        super().send_command(command, **kwargs)
        if self.late:
            raise ReadTimeout("Pattern not detected: 'leaf1[#>$%][ \\t]*$' in output.")
        return "ok"


def test_a_collectors_reads_follow_the_pace_and_a_timeout_names_the_knob() -> None:
    """Collect: the collector's --timeout is each read's base, scaled by the pace measured at login."""
    conn = _CliConn()
    PromptSession(conn, login_s=REFERENCE_LOGIN_S * 3).send_command("show version", read_timeout=20.0)
    assert conn.calls == [("show version", 60.0, 60.0)] and conn.read_timeout_override is None
    with pytest.raises(ReadTimeout, match=r"raise --timeout \(now 20 s, x3 for this device's pace\)"):
        PromptSession(_CliConn(late=True), login_s=REFERENCE_LOGIN_S * 3).send_command(
            "show version", read_timeout=20.0
        )
