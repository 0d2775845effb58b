"""``show runningconfiguration all`` -> what it says, read faithfully (no desired state involved).

The output is ``sonic-cfggen -d --print-data`` (the CONFIG_DB as nested JSON) with, since sonic-utilities
PR #2537 (2023, release 202305), FRR's ``show running-config`` as the string ``bgpraw``; a multi-ASIC
switch prints one CONFIG_DB per namespace (``multi_asic.py``). Older images print no ``bgpraw``: FRR's part
(router id, max-paths, networks) is then not observed, which is no error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from xoff.platforms.frr.observe import FrrBgp, FrrParseError, parse_router_bgp
from xoff.platforms.sonic.multi_asic import one_config_db
from xoff.platforms.sonic.parse import ConfigDbReading, read_config_db
from xoff.platforms.sonic.parse_common import ConfigDbParseError


@dataclass
class RunningConfig:
    reading: ConfigDbReading
    config_db: dict[str, Any]  # the CONFIG_DB read (the namespaces' merged on a multi-ASIC switch)
    frr: FrrBgp | None  # FRR's default-VRF ``router bgp``; None: no bgpraw, or none in it
    bgpraw: bool  # whether the output carried FRR's running config at all
    errors: list[str] = field(default_factory=list)  # every located error (CONFIG_DB, namespaces, bgpraw)


def read_running_config(text: str) -> RunningConfig:
    """The output's CONFIG_DB and FRR config; not JSON or not an object raises ConfigDbParseError."""
    try:
        dump: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigDbParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(dump, dict):
        raise ConfigDbParseError("show runningconfiguration all: expected a JSON object")
    config_db, bgpraw, conflicts, unmodelled = one_config_db(dump)
    reading = read_config_db(config_db)
    reading.unmodelled = dict(sorted({**reading.unmodelled, **unmodelled}.items()))
    errors = conflicts + reading.errors
    frr = None
    try:
        frr = parse_router_bgp(bgpraw)
    except FrrParseError as exc:
        errors.append(f"bgpraw: {exc}")
    return RunningConfig(reading=reading, config_db=config_db, frr=frr, bgpraw=bool(bgpraw), errors=errors)
