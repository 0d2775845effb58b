"""Every key xoff writes into opensm.conf is one the real OpenSM knows: `opensm --create-config`
writes every option it has, with its default, so its keys are the allowed set."""

from __future__ import annotations

import subprocess
from pathlib import Path

from xoff.platforms.opensm.render import render


def opensm_keys(opensm: str, workdir: Path) -> set[str]:
    """The option names of the installed OpenSM (no root, no ibsim needed: it only writes a file)."""
    target = workdir / "dump.conf"
    run = subprocess.run(
        [opensm, "--create-config", str(target)], cwd=workdir, capture_output=True, text=True, timeout=30, check=False
    )
    assert run.returncode == 0 and target.exists(), f"opensm --create-config failed:\n{run.stdout}{run.stderr}"
    keys = set()
    for raw in target.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            keys.add(line.split()[0])
    return keys


def rendered_keys(text: str) -> list[str]:
    return [line.split()[0] for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_every_rendered_key_exists_in_opensm(ib_pod, tool, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    known = opensm_keys(tool("opensm"), tmp_path)
    assert {"routing_engine", "qos_sl2vl", "partition_config_file"} <= known, "not an OpenSM config dump"
    _, state = ib_pod
    written = rendered_keys(render(state.devices["sm01"], state)["opensm.conf"])
    assert written, "nothing rendered"
    unknown = [k for k in written if k not in known]
    assert not unknown, f"opensm.conf keys the installed OpenSM does not know: {', '.join(unknown)}"


def test_the_key_check_catches_a_misspelt_key(tool, tmp_path: Path) -> None:
    known = opensm_keys(tool("opensm"), tmp_path)
    assert "qos_max_vl" not in known and "routing_engines" not in known
