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


def test_configuration_lines_in_one_write_each_run_by_real_bgpd(labs_root: Path) -> None:
    """The lines of a commit go to bgpd in one write: the daemon runs each in turn, a refused one is reported
    with bgpd's words, and the lines after it still reach the configuration (as an EOS commit's would)."""
    name = f"t{os.getpid()}-vtycfg"
    up(MINIMAL, name, remap_addresses=True, root=labs_root)
    try:
        vty_dir = daemons.frr_dir(resolve(name, labs_root).dir, "leaf1")
        before = frr_vty.show(vty_dir, "bgpd", "show running-config") or ""
        asn = re.search(r"^router bgp (\d+)", before, re.MULTILINE)
        assert asn is not None, before
        lines = [
            f"router bgp {asn.group(1)}",
            "neighbor 198.18.99.1 remote-as 65099",
            "neighbor 198.18.99.2 no-such-keyword",
            "neighbor 198.18.99.3 remote-as 65099",
            "exit",
        ]
        errors = frr_vty.configure(vty_dir, lines)
        assert errors is not None and len(errors) == 1, errors
        assert errors[0].startswith("% Error: bgpd: neighbor 198.18.99.2 no-such-keyword: %"), errors
        after = frr_vty.show(vty_dir, "bgpd", "show running-config") or ""
        assert " neighbor 198.18.99.1 remote-as 65099" in after
        assert " neighbor 198.18.99.3 remote-as 65099" in after  # typed after the refused line
    finally:
        down(name, labs_root)
