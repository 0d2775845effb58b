"""The EOS emulator against the real world: for every command the EOS collector runs, the emulator's output
goes through xoff's EOS parser for that command, and the parsed value's shape (keys, value types; see
``tests/support/corpus.py``) has nothing that no real sample has. The samples are the real-format corpus
(``tests/fixtures/real/eos/<slug>/``, sources in its README), so the emulator is held to real switches,
not to xoff's renderer. Two states of lab-mini's spine2: as it boots (factory) and after a push (xoff's
file through ``configure replace``), with the lab's tools answered by real captured output."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lab_offline.emulators.eos.test_eos_formats import _frr, _ip_link, _lldp
from tests.support.corpus import corpus_shape, covers, jsonable, read_sample, sample_ids, samples, shape
from tests.support.eos_cli_helpers import INVENTORY, Cli, RecordingContext, rendered
from xoff.contracts.collect import Command
from xoff.contracts.fib import as_routes
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.lab.emulators.eos import Emulator, commands
from xoff.lab.emulators.eos.store import clean
from xoff.platforms.eos import counters, fib
from xoff.platforms.eos.collect import BGP, LLDP, RUNNING, Collector, parse_bgp, parse_lldp
from xoff.platforms.eos.parse import parse_running_config

COUNTERS = {"pfc": {"Ethernet1/1": {"3": {"rxFrames": 1200, "txFrames": 35}}}}  # a data plane's traffic
FRR_ROUTES = {  # FRR's ``show ip route json`` (its documented JSON) for one eBGP route over two fabric ports
    "198.18.255.11/32": [
        {
            "prefix": "198.18.255.11/32",
            "protocol": "bgp",
            "selected": True,
            "installed": True,
            "distance": 20,
            "metric": 0,
            "nexthops": [
                {"ip": "198.18.0.3", "interfaceName": "Ethernet1_1", "active": True, "fib": True},
                {"ip": "198.18.0.7", "interfaceName": "Ethernet2_1", "active": True, "fib": True},
            ],
        }
    ]
}


def parser_for(command: Command) -> Callable[[str], Any]:
    """xoff's EOS parser of one collected command (the counters module's ``parse_<name>`` for its commands)."""
    fixed: dict[str, Callable[[str], Any]] = {
        RUNNING.slug: parse_running_config,
        LLDP.slug: parse_lldp,
        BGP.slug: parse_bgp,
        Command(fib.COMMAND).slug: lambda text: as_routes(fib.parse_route_json(text)),
    }
    if command.slug in fixed:
        return fixed[command.slug]
    (name,) = [k for k, v in vars(counters).items() if isinstance(v, Command) and v == command]
    parse: Callable[[str], Any] = getattr(counters, f"parse_{name.lower()}")
    return parse


def _spine2() -> Any:
    return build_fabric_state(load_intent(INVENTORY / "lab-mini")).devices["spine2"]


COMMANDS = Collector().commands(_spine2())


def _cli(root: Path, pushed: bool) -> Cli:
    (root / "lldpd").mkdir(parents=True)
    (root / "lldpd" / "lldpd.sock").touch()
    fabric = root / "fabric.json"
    fabric.write_text(build_fabric_state(load_intent(INVENTORY / "lab-mini")).model_dump_json(), encoding="utf-8")
    ctx = RecordingContext(
        device="spine2",
        state_dir=root / "state",
        netns="xl-test-spine2",
        frr_vty_dir=root / "frr",
        fabric_state=fabric,
        answers={
            "ip -j link show": _ip_link(),
            "show ip bgp summary json": _frr(),
            "show ip route json": json.dumps(FRR_ROUTES),
            "lldpcli": _lldp(),
        },
    )
    cli = Cli(Emulator(ctx))
    cli.quiet("enable")
    if pushed:
        (root / "state" / "files" / "mnt" / "flash" / "x.cfg").write_text(rendered("lab-mini", "spine2"))
        cli.quiet("configure replace flash:x.cfg")
        (root / "state" / "counters.json").write_text(json.dumps(COUNTERS), encoding="utf-8")
    return cli


@pytest.fixture(scope="module", params=["factory", "pushed"])
def spine2(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Cli:
    return _cli(tmp_path_factory.mktemp(request.param), pushed=request.param == "pushed")


def test_every_collected_command_has_a_parser() -> None:
    assert {c.slug: callable(parser_for(c)) for c in COMMANDS} == {c.slug: True for c in COMMANDS}
    assert RUNNING in COMMANDS and len(COMMANDS) >= 7


@pytest.mark.parametrize("command", COMMANDS, ids=[c.slug for c in COMMANDS])
def test_the_emulators_output_has_the_corpus_shape(spine2: Cli, command: Command) -> None:
    out = spine2.run(command.text)
    assert not out.startswith("%"), out
    parsed = jsonable(parser_for(command)(out))
    assert covers(corpus_shape("eos", command.slug), shape(parsed)) == []


def test_a_pushed_switch_has_something_to_say_for_each_command(tmp_path: Path) -> None:
    """After a push every command but the watchdog's (no event yet, as on a quiet real switch) prints data."""
    cli = _cli(tmp_path, pushed=True)
    empty = [c.slug for c in COMMANDS if not jsonable(parser_for(c)(cli.run(c.text)))]
    assert empty == [counters.WATCHDOG.slug]


def test_the_running_config_reads_without_errors(spine2: Cli) -> None:
    """EOS's own lines (clean-config, users, management) are unmodelled for xoff, never a parse error."""
    config = jsonable(parse_running_config(spine2.run(RUNNING.text)))
    assert config.get("errors", []) == []
    assert config["hostname"] == "spine2" and "Management1" in config["interfaces"]


# features of real configurations the lab's EOS does not model (none is what a GPU fabric's routed switch
# carries); a corpus line refused for any other reason is a gap in the emulator's grammar
UNSUPPORTED = re.compile(
    r"^(vlan |mlag |vrf (?!instance)|interface (Port-Channel|Vlan|Vxlan|Tunnel)|interface Ethernet\S+\.\d+|"
    r"router (ospf|isis)|ip virtual-router|ipv6 (address|route|nd)|.*(ip ospf|channel-group|switchport trunk|"
    r"mlag|vxlan|encapsulation|address virtual|spanning-tree link-type|address-family (evpn|ipv6)))"
)
RUNNING_SAMPLES = samples("eos", RUNNING.slug)


def _section_of(lines: list[str], index: int) -> list[str]:
    """The line and the section headers above it (less indented)."""
    out, depth = [lines[index]], len(lines[index]) - len(lines[index].lstrip())
    for line in reversed(lines[:index]):
        d = len(line) - len(line.lstrip())
        if line.strip() and not line.strip().startswith("!") and d < depth:
            out.append(line)
            depth = d
    return [ln.strip() for ln in out]


@pytest.mark.parametrize("sample", RUNNING_SAMPLES, ids=sample_ids(RUNNING_SAMPLES))
def test_a_real_running_config_loads(sample: Path) -> None:
    """Every line of a real switch's configuration is taken, but for features the lab does not model."""
    text = read_sample(sample)
    _cfg, errors = commands.load(text, clean())
    lines = text.splitlines()
    gaps = [e.line for e in errors if not any(UNSUPPORTED.match(s) for s in _section_of(lines, e.line_no - 1))]
    assert gaps == []


# the samples with no line of an unmodelled feature: each must come back from the emulator as it went in
WHOLE = [p for p in RUNNING_SAMPLES if not commands.load(read_sample(p), clean())[1]]


@pytest.mark.parametrize("sample", WHOLE, ids=sample_ids(WHOLE))
def test_a_real_running_config_survives_the_emulator(sample: Path, tmp_path: Path) -> None:
    """Loaded with configure replace and shown again, a real configuration reads (xoff's parser) as it did."""
    text = read_sample(sample)
    cli = _cli(tmp_path, pushed=False)
    (tmp_path / "state" / "files" / "mnt" / "flash" / "real.cfg").write_text(text, encoding="utf-8")
    cli.quiet("configure replace flash:real.cfg")
    keys = ("hostname", "dscp_to_tc", "watchdog", "static_routes", "bgp")
    before, after = (jsonable(parse_running_config(t)) for t in (text, cli.run(RUNNING.text)))
    assert {k: after.get(k) for k in keys} == {k: before.get(k) for k in keys}
    # the emulated switch's own ports (lab-mini's spine2) stay, at their defaults, beside the sample's
    assert {n: after["interfaces"].get(n) for n in before["interfaces"]} == before["interfaces"]


def test_some_real_running_configs_are_whole() -> None:
    """At least a third of the corpus' running-configs (the GPU-fabric ones) need nothing the lab leaves out."""
    assert RUNNING_SAMPLES and 3 * len(WHOLE) >= len(RUNNING_SAMPLES)
