"""How long a session waits for a device: the device's own pace, measured, times the user's factor.

A loaded controller or a busy switch answers late, and a fixed read timeout then fails a change that
would have worked. So every read timeout of a push session follows the device's pace:

- **pace**: measured once per session, as the time its login took (TCP, SSH handshake, authentication
  and netmiko's prompt detection) against ``REFERENCE_LOGIN_S``, what that takes on an idle machine;
  ``pace = login_s / REFERENCE_LOGIN_S`` within ``[1, MAX_PACE]``: a device never gets less time than
  the default, and a login that took 30 s does not stretch a read to hours;
- **factor**: the user's knob, ``xoff push --timeout-factor F`` (default 1): every timeout times F, the
  connection setup's too (netmiko ``conn_timeout``, ``auth_timeout``, ``banner_timeout``);
- a read waits ``base * pace * factor`` within ``[FLOOR_S, CEILING_S]``, ``base`` being what the caller
  asked (a strategy's ``read_timeout``), else netmiko's default (``NETMIKO_READ_S``, also netmiko's
  fixed wait for a command's echo, which this scales through netmiko's own ``read_timeout_override``);
- ``xoff push --timeout S`` instead fixes every SSH operation at S seconds: no pace, no factor.

Every timeout error names the knob to turn (``hint``).
"""

from __future__ import annotations

from dataclasses import dataclass

NETMIKO_READ_S = 10.0  # netmiko's send_command read_timeout default and its command-echo wait
NETMIKO_CONFIG_READ_S = 15.0  # netmiko's send_config_set read_timeout default
CONNECT_S = 20.0  # connection setup: netmiko conn_timeout, auth_timeout, banner_timeout
REFERENCE_LOGIN_S = 2.0  # a netmiko login (connect + prompt detection) to an idle device
MAX_PACE = 8.0
FLOOR_S = 1.0
CEILING_S = 900.0


@dataclass(frozen=True)
class Timeouts:
    """The user's knob: ``fixed_s`` (``--timeout``) or a ``factor`` on the adaptive timeouts."""

    fixed_s: float | None = None
    factor: float = 1.0

    def __post_init__(self) -> None:
        if self.factor <= 0:
            raise ValueError(f"timeout factor must be above 0 (got {self.factor:g})")
        if self.fixed_s is not None and self.fixed_s <= 0:
            raise ValueError(f"timeout must be above 0 seconds (got {self.fixed_s:g})")

    @property
    def connect_s(self) -> float:
        """Connection setup (TCP connect, SSH banner, authentication): before any pace is known."""
        return self.fixed_s if self.fixed_s is not None else _bounded(CONNECT_S * self.factor)

    def pace(self, login_s: float | None) -> Pace:
        return Pace(self, login_s)

    def hint(self) -> str:
        """What to turn when a device answered too late."""
        if self.fixed_s is not None:
            return f"raise --timeout (now {self.fixed_s:g} s), or leave it out to let timeouts follow the device's pace"
        return f"raise --timeout-factor (now {self.factor:g})"


@dataclass(frozen=True)
class Pace:
    """One session's measured pace and the timeouts it gives."""

    timeouts: Timeouts
    login_s: float | None = None  # None: not measured (pace 1)

    @property
    def scale(self) -> float:
        if self.login_s is None:
            return 1.0
        return min(MAX_PACE, max(1.0, self.login_s / REFERENCE_LOGIN_S))

    def read_timeout(self, base: float | None = None) -> float:
        """How long to wait for what the caller would wait ``base`` seconds for (None: netmiko's default)."""
        if self.timeouts.fixed_s is not None:
            return self.timeouts.fixed_s
        wanted = NETMIKO_READ_S if base is None else base
        return _bounded(wanted * self.scale * self.timeouts.factor)

    def describe(self) -> str:
        """One line for the connect step: the login time and what it did to the timeouts."""
        if self.timeouts.fixed_s is not None:
            return f"fixed timeouts: {self.timeouts.fixed_s:g} s"
        login = "" if self.login_s is None else f"login {self.login_s:.1f} s, "
        return f"{login}read timeouts x{self.scale * self.timeouts.factor:.2g}"


def _bounded(seconds: float) -> float:
    return round(min(CEILING_S, max(FLOOR_S, seconds)), 3)
