"""A switch emulator's FRR show commands asked on the daemon's vty socket (``emulators.frr_vty``) give what
``vtysh -c`` prints, byte for byte, on a running lab's real FRR; other commands, and a directory without
the daemons' sockets, are left to vtysh (None)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.labs import labs_under_run
from tests.support.paths import ROOT
from xoff.lab import daemons
from xoff.lab.emulators import frr_vty
from xoff.lab.lab import resolve, up
from xoff.lab.observe import run_in
from xoff.lab.teardown import down

pytestmark = pytest.mark.lab
MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
# values that change between two asks (session and route ages, message counts): compared as present only
CLOCKED = re.compile(r'("\w*(?:[Uu]ptime|Msec|[Mm]sg|[Tt]ime|[Tt]imer)\w*":\s*)("[^"]*"|[\d.]+)')


def _unclocked(text: str | None) -> str | None:
    return None if text is None else CLOCKED.sub(r"\1_", text)


@pytest.fixture
def labs_root() -> Iterator[Path]:
    """A labs directory of this test's own (under /run: FRR, running as user frr, must reach it)."""
    with labs_under_run("-vty") as root:
        yield root


def test_show_commands_on_the_vty_socket_are_what_vtysh_prints(labs_root: Path) -> None:
    name = f"t{os.getpid()}-vty"
    up(MINIMAL, name, remap_addresses=True, root=labs_root)
    try:
        state = resolve(name, labs_root)
        vty_dir = daemons.frr_dir(state.dir, "leaf1")
        for command in sorted(frr_vty.SINGLE_DAEMON):
            shown = run_in(state, "leaf1", daemons.vtysh_argv(state.dir, "leaf1", command))
            assert shown.returncode == 0, shown.stderr
            assert _unclocked(frr_vty.ask(vty_dir, command)) == _unclocked(shown.stdout), command
        assert json.loads(frr_vty.ask(vty_dir, "show ip route json") or "{}")  # zebra answered: connected routes
        assert frr_vty.ask(vty_dir, "show running-config") is None  # every daemon's: vtysh's to merge
        assert frr_vty.ask(labs_root / "nowhere", "show ip route json") is None
    finally:
        down(name, labs_root)
