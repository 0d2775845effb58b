"""Helpers shared by the SONiC emulator tests."""

from __future__ import annotations

import json
from typing import Any

from tests.support.paths import ROOT
from xoff.lab.emulators.base import Reply
from xoff.lab.emulators.sonic import Emulator

FIXTURES = ROOT / "tests" / "fixtures" / "sonic-cli"


def put(emulator: Emulator, path: str, content: Any) -> None:
    """A file on the switch (what scp or a here-document would leave there)."""
    file = emulator.store.host_path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")


def run(emulator: Emulator, line: str) -> Reply:
    return emulator.step(line)
