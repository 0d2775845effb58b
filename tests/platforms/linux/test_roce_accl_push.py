"""The push side of ROCE_ACCL on a lab host's mlxreg shim: the push's read (SNAPSHOT_SCRIPT) records the register,
the diff names the differing fields, the change script sets only those in one mlxreg call, a second read finds
nothing to change, and the rollback's restore script puts the backup's values back."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.support.shim_host import ShimHost
from xoff.desired.builders.host import SPECTRUM_X_AR
from xoff.platforms.linux.observe import SNAPSHOT_SCRIPT, parse_snapshot, state_diff
from xoff.platforms.linux.restore import restore_script
from xoff.platforms.linux.roce_accl import register_values
from xoff.platforms.linux.writes import write_script

DESIRED: dict[str, Any] = {
    "roce_accl": [{"rdma": "mlx5_0", "netdev": "eth0", "fields": register_values(SPECTRUM_X_AR)}]
}


def _bash(host: ShimHost, script: str) -> subprocess.CompletedProcess[str]:
    env = host.env() | {"XOFF_HOST_ROOT": str(host.root)}
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120, check=False)


def _read(host: ShimHost) -> dict[str, Any]:
    proc = _bash(host, SNAPSHOT_SCRIPT)
    assert proc.returncode == 0, proc.stderr
    return parse_snapshot(proc.stdout)


def test_read_change_verify_and_restore(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    before = _read(host)
    assert set(before["roce_accl"]) == {"mlx5_0", "mlx5_1", "mlx5_2"}
    assert before["roce_accl"]["mlx5_0"]["adaptive_routing_forced_en"] == 0
    assert state_diff(before, DESIRED, None) == [
        "~ mlx5_0 ROCE_ACCL roce_tx_window_en 0 -> 1",
        "~ mlx5_0 ROCE_ACCL roce_slow_restart_en 1 -> 0",
        "~ mlx5_0 ROCE_ACCL adaptive_routing_forced_en 0 -> 1",
    ]
    script = write_script(before, DESIRED, None)
    assert "mlxreg -d mlx5_0 --reg_name ROCE_ACCL --set roce_tx_window_en=0x1,roce_slow_restart_en=0x0," \
        "adaptive_routing_forced_en=0x1 --yes >/dev/null" in script  # fmt: skip
    proc = _bash(host, script)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stdout
    after = _read(host)
    assert state_diff(after, DESIRED, None) == [] and write_script(after, DESIRED, None) == ""
    assert after["roce_accl"]["mlx5_1"] == before["roce_accl"]["mlx5_1"]  # the other NICs untouched
    # the rollback's restore puts the backup's fields back (run here alone: the rest restores this machine's links)
    (line,) = [x for x in restore_script(before).splitlines() if "mlxreg -d mlx5_0" in x]
    proc = _bash(host, f'run() {{ "$@" >/dev/null; }}\n{line}')
    assert proc.returncode == 0, proc.stderr
    assert _read(host)["roce_accl"]["mlx5_0"] == before["roce_accl"]["mlx5_0"]
