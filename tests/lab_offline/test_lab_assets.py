"""lab/clab/ holds the containerlab topology of every example intent in inventory/, exactly what `xoff lab export`
prints for it today: regenerated here and compared, so a change to the exporter or to an example fails until
`make lab-clab` is run; and each committed file passes containerlab's own JSON Schema."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.clab_schema import errors
from tests.support.paths import INVENTORY, ROOT

CLAB = ROOT / "lab" / "clab"
EXAMPLES = sorted(p.name for p in INVENTORY.iterdir() if p.is_dir())
STALE = "is stale: run `make lab-clab` and commit lab/clab/"


def test_every_example_has_a_topology_and_nothing_else_does() -> None:
    assert EXAMPLES, f"no example intents in {INVENTORY}"
    committed = sorted(p.name.removesuffix(".clab.yml") for p in CLAB.glob("*.clab.yml"))
    assert committed == EXAMPLES, f"lab/clab/ has {committed}, inventory/ has {EXAMPLES}: run `make lab-clab`"


@pytest.mark.parametrize("example", EXAMPLES)
def test_topology_is_what_xoff_lab_export_prints(example: str, tmp_path: Path) -> None:
    """The same command `make lab-clab` runs, into a scratch directory (with its rendered configs)."""
    out = tmp_path / f"{example}.clab.yml"
    done = subprocess.run(
        [sys.executable, "-m", "xoff", "lab", "export", str(INVENTORY / example), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    committed = CLAB / f"{example}.clab.yml"
    assert committed.is_file(), f"{committed} is missing: run `make lab-clab`"
    assert committed.read_text(encoding="utf-8") == out.read_text(encoding="utf-8"), f"{committed} {STALE}"


@pytest.mark.parametrize("example", EXAMPLES)
def test_topology_validates_against_containerlabs_schema(example: str) -> None:
    doc = yaml.safe_load((CLAB / f"{example}.clab.yml").read_text(encoding="utf-8"))
    assert errors(doc) == []
    assert doc["name"] and doc["topology"]["nodes"]
