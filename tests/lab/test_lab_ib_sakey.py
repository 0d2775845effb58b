"""The SA key in the lab: ib-ring's OpenSM restarted with a non-default ``sa_key`` (and another ``sm_key``)
in the opensm.conf it runs with. ``xoff collect --lab`` reads every PKey table, switch ports' included,
from the SA with that key (taken from the config of the running OpenSM, never from the intent), and the key
shows nowhere xoff writes: not in the snapshot, the captures (OpenSM's log, which names a wrongly keyed
query's key, included), the command output or the validation report. A config that no longer matches the
running OpenSM (edited, not restarted) makes the SA ignore the query: the tables come from ``smpquery
pkeys`` and a note says so."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from xoff.cli.collect import collect_command
from xoff.cli.validate import validate_command
from xoff.lab.disrupt import stop_process
from xoff.lab.lab import resolve, up
from xoff.lab.observe import run_in
from xoff.lab.provider import from_lab
from xoff.lab.state import LabState
from xoff.platforms.infiniband.collect import collect_sm, save

pytestmark = pytest.mark.lab
INTENT = ROOT / "tests" / "fixtures" / "intents" / "ib-ring"
LAB = f"sk{os.getpid()}"
SA_KEY = 0x5EC2E7C0FFEE4242
SM_KEY = 0x00000000ABCDEF99  # OpenSM's SM-to-SM key: not the one its SA checks
WRONG = 0x0000000077AA55EE


def spellings(*keys: int) -> list[str]:
    return [s for k in keys for s in (f"{k:x}", str(k))]


def leaks(text: str, *keys: int) -> list[str]:
    return [s for s in spellings(*keys) if s.lower() in text.lower()]


def conf_path(state: LabState) -> Path:
    assert state.ib is not None
    return Path(state.ib.opensm_log).parent / "opensm.conf"


def set_keys(path: Path, **keys: int) -> None:
    text = path.read_text(encoding="utf-8")
    for name, value in keys.items():
        text = re.sub(rf"^{name} .*\n", "", text, flags=re.M) + f"{name} 0x{value:016x}\n"
    path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def lab() -> Iterator[LabState]:
    with running_lab(INTENT, LAB, prefix="xoff-sakey-"):
        state = resolve(LAB)
        set_keys(conf_path(state), sa_key=SA_KEY, sm_key=SM_KEY)
        stop_process(state, "sm01/opensm")  # OpenSM reads its keys at start: restarted by `lab up`
        report = up(INTENT, LAB, remap_addresses=True)
        assert "sm01/opensm" in report.started
        yield resolve(LAB)


def invoke(command: object, args: list[str]) -> tuple[int, str]:
    app = typer.Typer()
    app.command()(command)
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output


def test_the_sa_answers_only_its_sa_key(lab: LabState) -> None:
    """The real OpenSM: sa_key is trusted, sm_key is not (it ignores the query; saquery times out)."""

    def query(key: int) -> int:
        return run_in(lab, "sm01", ["saquery", "--smkey", f"0x{key:x}", "PKeyTableRecord", "2/1"]).returncode

    assert (query(SA_KEY), query(SM_KEY)) == (0, 110)


def test_collect_reads_pkeys_from_the_sa_with_the_running_key(lab: LabState, tmp_path: Path) -> None:
    run_in(lab, "sm01", ["saquery", "--smkey", f"0x{WRONG:x}", "PKeyTableRecord", "2/1"])  # into OpenSM's log
    code, output = invoke(collect_command, [str(INTENT), "--lab", LAB, "-o", str(tmp_path / "snap.json")])
    assert code == 0, output
    snapshot = json.loads((tmp_path / "snap.json").read_text(encoding="utf-8"))
    ib = snapshot["infiniband"]
    assert (ib["pkey_source"], ib["partition_enforcement"], ib["notes"]) == ("saquery", "both", [])
    by_name = {n["description"]: g for g, n in ib["nodes"].items()}
    assert ib["pkeys"][by_name["ibsw3"]]["1"] == [0x7FFF, 0x8001]  # the switch port facing gpu3 enforces jobs
    assert ib["pkeys"][by_name["gpu3 mlx5_0"]]["1"] == [0x7FFF, 0x8001]
    collected = collect_sm(from_lab(LAB).subnet_manager())
    save(collected, tmp_path / "dump")
    log = (tmp_path / "dump" / "opensm.log").read_text(encoding="utf-8")
    assert f"0x{WRONG:x}" in log and "!= SM_Key: ********;" in log  # OpenSM logged the key: masked
    code, report = invoke(validate_command, [str(INTENT), "--lab", LAB, "--catalog", "audit", "-f", "json"])
    doc = json.loads(report[report.index("{") :])
    part = next(r for r in doc["results"] if r["check"] == "infiniband.partitions")
    assert part["status"] == "success" and "saquery" in part["message"], part
    written = [output, report, (tmp_path / "snap.json").read_text(encoding="utf-8")]
    written += [p.read_text(encoding="utf-8") for p in (tmp_path / "dump").rglob("*") if p.is_file()]
    raw = tmp_path / "snap.json.raw"  # the hosts' raw captures of `xoff collect`
    written += [p.read_text(encoding="utf-8") for p in raw.rglob("*") if p.is_file()]
    assert len(written) > 40  # the outputs, the snapshot, the InfiniBand captures and the hosts' captures
    assert [leaks(text, SA_KEY) for text in written] == [[]] * len(written)


def test_a_config_the_running_opensm_does_not_use_falls_back_to_smpquery(lab: LabState) -> None:
    path = conf_path(lab)
    kept = path.read_text(encoding="utf-8")
    set_keys(path, sa_key=WRONG)  # edited, OpenSM not restarted: it still trusts SA_KEY only
    try:
        obs = collect_sm(from_lab(LAB).subnet_manager()).observation
    finally:
        path.write_text(kept, encoding="utf-8")
    assert obs.pkey_source == "smpquery"
    assert [n.split(":")[0] for n in obs.notes] == ["PKey tables read per port with smpquery pkeys"]
    assert "the SA did not answer" in obs.notes[0] and not leaks(obs.model_dump_json(), SA_KEY, WRONG)
    switch_tables = [g for g in obs.pkeys if obs.nodes[g].kind == "switch"]
    assert len(switch_tables) == 5  # the fallback reads switch ports too
