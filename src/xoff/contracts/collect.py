"""The collector contract: per platform, which commands give the running state and how their output
becomes the observed Device (FabricState model) plus what only running state has.

Each platform implements it as a class and names it in its ``Platform`` record (``collector``, see
``xoff.platforms.registry``); how the session is opened (netmiko device type, ``enable`` after login,
SSH exec channels) is the record's ``transport``, never the collector's. The engine runs ``commands(desired)`` over one session, keyed by the command text, and hands the outputs
to ``parse``; collectors never open connections, so parsers are tested on fixtures alone.

Rules every collector keeps:
- ``parse`` is pure and strict: output it cannot read is a ``CollectError(kind="parse")`` naming the
  command, never a raw string passed on and never an empty (so "clean") value.
- The observed ``Device`` carries only what was read; fields the platform cannot observe (the intent's
  peers, link roles, QoS class names, ...) are copied from ``desired`` so the model validates, and the
  paths that WERE read are listed in ``DeviceObservation.fields`` (see ``FIELD PATHS`` below). Checks
  compare only those paths; everything else is "not observable on this platform", never "equal".
- With the transport's ``exec_channel`` the commands run over an SSH exec channel (``ssh host CMD``: no
  login profile) instead of a CLI shell, all in one channel, each with its own output and exit status
  (``connect.batch``); a non-zero exit status is then a ``command`` error (Linux hosts).
- A command the device refused (exit status, "% Invalid input", "command not found") is a
  ``CollectError(kind="command")``; the engine detects that from ``Command.failed`` markers.

FIELD PATHS name FabricState Device fields with ``*`` for every key of a map:
``interfaces.*.mtu``, ``qos.dscp_to_tc``, ``bgp.neighbors``, ``host.nics.*.pfc``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, TypeVar

from xoff.contracts.observed import (
    BgpSession,
    CollectError,
    FibRoute,
    HostObserved,
    LldpNeighbor,
    PortCounters,
    PortSettings,
)
from xoff.desired.models import Device

# Text a CLI prints when it refuses a command (any platform): the engine turns it into kind="command".
REFUSALS = (
    "% Invalid input",
    "% Incomplete command",
    "% Ambiguous command",
    ": command not found",
    "Error: No such command",
    "Usage: ",
    ": No such file or directory",
    "Cannot find device",
)


@dataclass(frozen=True)
class Command:
    """One command to run on the device, and the name its raw capture is saved under."""

    text: str

    @property
    def slug(self) -> str:
        """File-safe name: ``show pfc counters`` -> ``show_pfc_counters``."""
        return re.sub(r"[^A-Za-z0-9.-]+", "_", self.text).strip("_")[:120]


@dataclass
class DeviceObservation:
    """What one device showed: the observed Device and the extras, plus every parse error."""

    device: Device | None  # None when nothing could be read into the model
    fields: list[str] = field(default_factory=list)  # FabricState paths actually read (see module doc)
    lldp: list[LldpNeighbor] | None = None  # None: this collector does not read LLDP
    bgp_sessions: list[BgpSession] | None = None  # None: the platform has no BGP to read
    counters: dict[str, PortCounters] = field(default_factory=dict)
    host: HostObserved | None = None
    fib: list[FibRoute] | None = None  # None: this collector does not read the forwarding table
    port_settings: dict[str, PortSettings] = field(default_factory=dict)  # ports whose settings differ (see Snapshot)
    buffer_pool_watermarks: dict[str, int] | None = None  # None: not read
    unmodelled: dict[str, int] = field(default_factory=dict)  # name -> count of what xoff does not model
    errors: list[CollectError] = field(default_factory=list)
    lab_only: list[str] = field(default_factory=list)  # facts this observation cannot show in the lab


class Collector(Protocol):
    platform: ClassVar[str]

    def commands(self, desired: Device) -> list[Command]:
        """The commands to run on this device (they may depend on its NICs, ports, ...)."""
        ...

    def parse(self, outputs: Mapping[str, str], desired: Device) -> DeviceObservation:
        """Pure: command text -> its output (commands missing from ``outputs`` failed to run)."""
        ...


def parse_error(device: str, command: str | None, message: str) -> CollectError:
    """A parse failure, as one line (the first line of ``message``)."""
    line = message.strip().splitlines()[0] if message.strip() else "unreadable output"
    return CollectError(device=device, command=command, kind="parse", message=line[:500])


T = TypeVar("T")


def read(
    outputs: Mapping[str, str],
    command: Command,
    parse: Callable[[str], T],
    device: str,
    errors: list[CollectError],
    *,
    catch: tuple[type[Exception], ...] = (ValueError,),  # every parser's error and pydantic's are ValueErrors
    describe: Callable[[Exception], str] = str,
) -> T | None:
    """``parse`` of ``command``'s output; None when the command did not run, or when its output could not be
    read: then a parse error naming the command is added to ``errors`` (the exceptions in ``catch``).

    >>> errors: list[CollectError] = []
    >>> read({"lsmod": "x"}, Command("lsmod"), int, "h1", errors), errors[0].message
    (None, "invalid literal for int() with base 10: 'x'")
    """
    if command.text not in outputs:
        return None
    try:
        return parse(outputs[command.text])
    except catch as exc:
        errors.append(parse_error(device, command.text, describe(exc)))
        return None


def refused(output: str) -> str | None:
    """The refusal line if the CLI refused the command, else None."""
    if not any(marker in output for marker in REFUSALS):  # most outputs: one pass per marker, no line split
        return None
    for line in output.splitlines():
        if any(marker in line for marker in REFUSALS):
            return line.strip()
    return None
