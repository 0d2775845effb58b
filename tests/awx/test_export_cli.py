"""``xoff inventory export --shard-by``: the command's output and its bad input (one line, exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from xoff.cli import app


def test_export_names_the_shards(intent: Path, tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["inventory", "export", str(intent), "-o", str(tmp_path), "--shard-by", "su"])
    assert done.exit_code == 0, done.output
    assert done.output.strip() == (
        f"wrote the AWX project of 16 devices in 3 shards by su (su1: 4, su2: 4, shared: 8) to {tmp_path}/"
        " (no credentials in it)"
    )
    assert sorted(p.parent.name for p in tmp_path.glob("inventories/*/hosts.yml")) == ["shared", "su1", "su2"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shard-by", "rack"], "Invalid value for '--shard-by'"),
        (["--shard-by", "pod", "--format", "nornir"], "--shard-by writes Ansible inventories in an AWX project"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(intent: Path, tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "out"
    done = CliRunner().invoke(app, ["inventory", "export", str(intent), "-o", str(out), *args])
    assert done.exit_code == 2
    assert message in done.output
    assert not out.exists()
