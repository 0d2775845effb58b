"""``xoff collect INTENT --from-captures DIR``: saved output (``DIR/<device>/<slug>.txt``) through the collectors'
own parsers instead of a connection; what has no capture is not observed (``Snapshot.captures_absent``), not an
error. The library API, the CLI, and an auditor's flow collect --from-captures -> validate --snapshot; the
collect summary names unmodelled names per device; docs/captures.md is generated from the platform registry.

The captures here are xoff's rendered configuration for the lab-mini switches: they exercise the layout and the
flow only, and are no claim about a real device's output (that is the corpus under tests/fixtures/real/).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import INVENTORY, ROOT
from xoff import api
from xoff.cli.collect import _summary
from xoff.collect.captures import INFINIBAND_DUMP, capture_path
from xoff.collect.captures_doc import render
from xoff.contracts.collect import Command
from xoff.desired import FabricState, build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.platforms.eos.collect import RUNNING as EOS_RUNNING
from xoff.platforms.sonic import collect as sonic
from xoff.platforms.sonic import counters as sonic_counters
from xoff.platforms.sonic.config_db import build_config_db
from xoff.render import render_fabric
from xoff.validate.mirror import mirror_snapshot

LAB_MINI = INVENTORY / "lab-mini"
SONIC = ("spine1", "leaf1", "leaf2")


@pytest.fixture(scope="module")
def state() -> FabricState:
    return build_fabric_state(load_intent(LAB_MINI))


def _write(captures: Path, device: str, command: Command, text: str) -> None:
    path = capture_path(captures, device, command)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def captures(state: FabricState, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The running configuration of every SONiC and EOS switch of lab-mini; nothing else (no counters, no LLDP,
    no Cumulus switch, no host)."""
    folder = tmp_path_factory.mktemp("captures")
    for name in SONIC:
        dump = build_config_db(state.devices[name], state)
        dump["bgpraw"] = {f.name: f.content for f in render_fabric(state, devices=[name])}["frr.conf"]
        _write(folder, name, sonic.RUNNING, json.dumps(dump, indent=4))
    (eos,) = [f.content for f in render_fabric(state, devices=["spine2"]) if f.name == "running-config"]
    _write(folder, "spine2", EOS_RUNNING, eos)
    return folder


def test_layout_is_the_raw_capture_layout(tmp_path: Path) -> None:
    assert capture_path(tmp_path, "leaf1", Command("show pfc counters")) == tmp_path / "leaf1" / "show_pfc_counters.txt"


def test_api_reads_captures_and_what_is_absent_is_not_observed(captures: Path, tmp_path: Path) -> None:
    out = tmp_path / "snap.json"
    result = api.collect(LAB_MINI, api.CollectOptions(from_captures=captures, output=out))
    snap = result.snapshot
    assert result.complete and snap.errors == []  # a missing capture is not an error
    assert sorted(snap.observed.devices) == sorted([*SONIC, "spine2"])
    assert {"qos.dscp_to_tc", "interfaces.*.mtu"} <= set(snap.observed_fields["leaf1"])
    # devices with no capture at all: every command absent, and not in the observed state
    for host in ("gpu1", "gpu2", "gpu3", "gpu4", "sleaf1"):
        assert host not in snap.observed.devices and snap.captures_absent[host]
    # a device with some captures: the others named
    assert sonic_counters.PFC_COUNTERS.text in snap.captures_absent["leaf1"]
    assert sonic.RUNNING.text not in snap.captures_absent["leaf1"]
    assert snap.counters == {} and snap.lldp == {}  # never values made up for what was not captured
    assert json.loads(out.read_text())["captures_absent"]["leaf1"] == snap.captures_absent["leaf1"]


def test_a_captured_refusal_is_a_command_error(state: FabricState, tmp_path: Path) -> None:
    _write(tmp_path, "leaf1", sonic_counters.PFC_COUNTERS, "bash: show: command not found\n")
    result = api.collect(LAB_MINI, api.CollectOptions(from_captures=tmp_path, limit=("leaf1",)))
    assert [(e.device, e.command, e.kind) for e in result.snapshot.errors] == [
        ("leaf1", sonic_counters.PFC_COUNTERS.text, "command")
    ]
    assert "leaf1" not in result.snapshot.observed.devices  # the running configuration was not captured


def test_no_such_directory_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such directory of captures"):
        api.collect(LAB_MINI, api.CollectOptions(from_captures=tmp_path / "nope"))
    with pytest.raises(InputError, match="allowed: one"):
        api.collect(LAB_MINI, api.CollectOptions(from_captures=tmp_path, lab="x"))


def _xoff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xoff", *args], capture_output=True, text=True, cwd=ROOT, check=False)


def test_auditor_flow_collect_from_captures_then_validate_snapshot(captures: Path, tmp_path: Path) -> None:
    snap = tmp_path / "audit.json"
    collected = _xoff("collect", str(LAB_MINI), "--from-captures", str(captures), "-o", str(snap))
    assert collected.returncode == 0, collected.stderr
    assert "collected 4/9 devices" in collected.stdout and f"captures: {captures}" in collected.stdout
    (gpu1,) = [line for line in collected.stdout.splitlines() if line.startswith("gpu1: ")]
    assert gpu1.startswith("gpu1: no capture of ") and " command(s), not observed: ip -j link show, " in gpu1
    report = _xoff("validate", str(LAB_MINI), "--snapshot", str(snap), "--format", "json")
    results = {r["check"]: r for r in json.loads(report.stdout)["results"]}
    assert results["drift.state"]["status"] == "success"  # the switches run what was rendered
    assert results["collect.complete"]["status"] == "success"
    # nothing observed for them: skipped, saying so (never a success)
    assert results["cabling.lldp"]["status"] == "skipped"
    assert results["bgp.sessions"]["status"] == "skipped"
    assert results["lossless.nic_trust_pfc"]["status"] == "skipped"
    assert results["lossless.nic_trust_pfc"]["message"] == "not judged on gpu1, gpu2, gpu3, gpu4: device not observed"
    # EOS does not show pfc_priority_to_queue: spine2 is named, the SONiC switches judged
    assert results["lossless.cnp_strict"]["status"] == "success"
    assert results["lossless.cnp_strict"]["message"] == (
        "not judged on sleaf1: device not observed; on spine2: qos.pfc_priority_to_queue not observed"
    )
    assert report.returncode in (0, 1), report.stderr


def test_cli_from_captures_bad_input_exits_2(tmp_path: Path) -> None:
    done = _xoff("collect", str(LAB_MINI), "--from-captures", str(tmp_path / "nope"), "-o", str(tmp_path / "s.json"))
    assert done.returncode == 2 and "no such directory of captures" in done.stderr


def test_collect_summary_names_unmodelled_names_per_device(
    state: FabricState, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    names = {f"FEATURE.{i}": 1 for i in range(7)} | {"PORT.fec": 32}
    snap = mirror_snapshot(state).model_copy(update={"unmodelled": {"leaf1": names}})
    _summary(snap, 9, 0.5, tmp_path / "s.json", None)
    out = capsys.readouterr().out
    assert "leaf1: 8 unmodelled name(s), kept in the snapshot: FEATURE.0, FEATURE.1, FEATURE.2, FEATURE.3, " in out
    assert "... 3 more" in out


def test_docs_captures_md_is_fresh() -> None:
    committed = (ROOT / "docs" / "captures.md").read_text(encoding="utf-8")
    assert committed == render(), (
        "docs/captures.md is stale: run `python -m xoff.collect.captures_doc > docs/captures.md`"
    )
    assert "`mlnx_qos_-i_NETDEV.txt`" in committed and "`show_runningconfiguration_all.txt`" in committed


IB_FATTREE = ROOT / "tests" / "fixtures" / "intents" / "ib-fattree"
IB_DUMP = ROOT / "tests" / "fixtures" / "deadlock" / "ib" / "fattree_ftree"


def test_infiniband_from_its_dump_directory(tmp_path: Path) -> None:
    """DIR/infiniband/ is the infiniband-diags dump ``deadlock --ib-dump`` reads; without it: not observed."""
    empty = tmp_path / "empty"
    empty.mkdir()
    absent = api.collect(IB_FATTREE, api.CollectOptions(from_captures=empty)).snapshot
    assert absent.infiniband is None and list(absent.captures_absent["infiniband"]) == [INFINIBAND_DUMP]
    shutil.copytree(IB_DUMP, tmp_path / "full" / "infiniband")
    snap = api.collect(IB_FATTREE, api.CollectOptions(from_captures=tmp_path / "full")).snapshot
    assert snap.infiniband is not None and snap.infiniband.nodes and "infiniband" not in snap.captures_absent
    (tmp_path / "bad" / "infiniband").mkdir(parents=True)
    (tmp_path / "bad" / "infiniband" / "ibnetdiscover.txt").write_text("not a topology\n")
    bad = api.collect(IB_FATTREE, api.CollectOptions(from_captures=tmp_path / "bad")).snapshot
    assert bad.infiniband is None and [(e.device, e.kind) for e in bad.errors] == [("infiniband", "parse")]


def test_captures_of_no_device_is_not_a_clean_audit(tmp_path: Path) -> None:
    """An empty captures directory reads no device: collect and validate exit 4 (not collected), and
    ``collect.complete`` is skipped saying so, never a success."""
    empty = tmp_path / "captures"
    empty.mkdir()
    snap = tmp_path / "empty.json"
    collected = _xoff("collect", str(LAB_MINI), "--from-captures", str(empty), "-o", str(snap))
    assert collected.returncode == 4, collected.stdout + collected.stderr
    assert "collected 0/9 devices" in collected.stdout
    report = _xoff("validate", str(LAB_MINI), "--snapshot", str(snap), "--format", "json")
    assert report.returncode == 4, report.stderr
    results = {r["check"]: r for r in json.loads(report.stdout)["results"]}
    assert results["collect.complete"]["status"] == "skipped"
    assert "nothing was collected" in results["collect.complete"]["message"]
