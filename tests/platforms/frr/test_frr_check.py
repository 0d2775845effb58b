"""Every rendered frr.conf passes the real FRR 8.4 (vtysh --dryrun + bgpd --dryrun), and the check
really rejects a broken config, with FRR's own error in the message."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.paths import ROOT
from xoff.desired.models import FabricState
from xoff.platforms.frr import check as frr_check
from xoff.platforms.frr.check import FrrCheck, FrrNotInstalledError, check_frr_conf, frr_binaries
from xoff.platforms.frr.render import render_frr_conf

INVENTORY = ROOT / "inventory"


@pytest.fixture(scope="module")
def frr() -> None:
    """The real FRR must be there: a missing tool is a failure (make test installs it), never a skip."""
    try:
        frr_binaries()
    except FrrNotInstalledError as exc:
        pytest.fail(str(exc))


def _rendered(name: str) -> dict[str, str]:
    from xoff.desired import build_fabric_state
    from xoff.intent import load_intent

    fabric: FabricState = build_fabric_state(load_intent(INVENTORY / name))
    return {d.name: render_frr_conf(d, fabric) for d in fabric.devices.values() if d.kind == "switch"}


@pytest.fixture(scope="module")
def lab_mini_leaf1() -> str:
    return _rendered("lab-mini")["leaf1"]


@pytest.mark.parametrize("inventory", ["lab-mini", "roce-pod"])
def test_every_switch_passes_real_frr(frr: None, inventory: str) -> None:
    """All switches (SONiC, EOS and Cumulus alike: the lab runs FRR for each of them)."""
    files = _rendered(inventory)
    assert files, f"{inventory}: no switches rendered"
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = dict(zip(files, pool.map(check_frr_conf, files.values()), strict=True))
    wall = time.perf_counter() - start
    failed = {name: r.report() for name, r in results.items() if not r.ok}
    assert not failed, "FRR rejected:\n" + "\n\n".join(f"== {n}/frr.conf\n{msg}" for n, msg in failed.items())
    slowest = max(r.seconds for r in results.values())
    print(f"{inventory}: {len(files)} files checked by FRR in {wall:.2f} s wall, slowest file {slowest:.3f} s")


def _broken(text: str, old: str, new: str) -> str:
    assert old in text, f"test setup: {old!r} not in the rendered config"
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "frr_says"),
    [
        # grammar: vtysh rejects an unknown keyword and an out-of-range number
        (" remote-as 65100", " remote-ass 65100", "Unknown command"),
        ("maximum-paths 64", "maximum-paths 999", "Unknown command"),
        ("bgp router-id 198.18.255.3", "bgp router-id 198.18.255.300", "Unknown command"),
        # semantics only the daemon knows: the grammar accepts 'ge 8', bgpd's validation does not
        ("198.18.255.0/24 ge 32", "198.18.255.0/24 ge 8", "Invalid prefix range"),
        # a neighbour put in a peer group that does not exist
        (" neighbor FABRIC peer-group\n", "", "Config Failed"),
    ],
    ids=["unknown-keyword", "maximum-paths-range", "bad-router-id", "prefix-list-ge", "missing-peer-group"],
)
def test_broken_config_is_rejected_with_frr_error(
    frr: None, lab_mini_leaf1: str, old: str, new: str, frr_says: str
) -> None:
    result = check_frr_conf(_broken(lab_mini_leaf1, old, new))
    assert not result.ok, f"FRR accepted a broken config ({old!r} -> {new!r}):\n{result.output}"
    assert any(frr_says in p for p in result.problems), f"expected FRR to say {frr_says!r}; it said:\n{result.report()}"


def test_good_config_has_no_problems(frr: None, lab_mini_leaf1: str) -> None:
    result = check_frr_conf(lab_mini_leaf1)
    assert isinstance(result, FrrCheck)
    assert result.ok and result.problems == (), result.report()


def test_grammar_error_names_the_line(frr: None, lab_mini_leaf1: str) -> None:
    """vtysh's message carries the file line number and the offending text."""
    broken = _broken(lab_mini_leaf1, " bgp bestpath as-path multipath-relax", " bgp bestpath as-path multipath-relaxed")
    number = broken.splitlines().index(" bgp bestpath as-path multipath-relaxed") + 1
    result = check_frr_conf(broken)
    assert f"vtysh: line {number}: % Unknown command" in "\n".join(result.problems), result.report()
    assert "multipath-relaxed" in "\n".join(result.problems)


def test_missing_frr_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frr_check, "BGPD", "/nonexistent/bgpd")
    with pytest.raises(FrrNotInstalledError, match="apt-get install frr"):
        check_frr_conf("hostname x\n")
