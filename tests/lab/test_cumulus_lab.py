"""lab-mini for real (``--remap``, a private lab name and XOFF_LAB_DIR): real netmiko (``cumulus_linux``)
over the lab's switch SSH server to sleaf1, the rendered nvue-commands.txt applied and read back, and an
applied change and its rollback seen in sleaf1's namespace."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from netmiko import ConnectHandler

from tests.support.collect_drift import differing_fields
from tests.support.paths import ROOT
from xoff.desired.models import FabricState
from xoff.lab import credentials, netns
from xoff.lab.lab import LabError, resolve, up
from xoff.lab.state import FABRIC_FILE, LabState
from xoff.lab.teardown import down, leftovers_of
from xoff.platforms.cumulus.collect import Collector
from xoff.render import render_fabric

pytestmark = pytest.mark.lab
INVENTORY = ROOT / "inventory"

LAB = f"t{os.getpid()}-cl"


@pytest.fixture
def lab(monkeypatch: pytest.MonkeyPatch) -> Iterator[LabState]:
    # a short private root: FRR's and lldpd's unix sockets live under it (sun_path holds 107 bytes)
    root = Path(tempfile.mkdtemp(prefix="xcl-", dir="/tmp"))
    root.chmod(0o755)  # FRR runs as user frr and must reach its directory
    monkeypatch.setenv("XOFF_LAB_DIR", str(root))
    try:
        up(INVENTORY / "lab-mini", LAB, remap_addresses=True, root=root)
        yield resolve(LAB, root)
    finally:
        state = None
        with contextlib.suppress(LabError):
            state = resolve(LAB, root)
        if state is not None:
            down(LAB, root)
            assert leftovers_of(state) == []
        shutil.rmtree(root, ignore_errors=True)


def _mtu(state: LabState, port: str) -> int:
    out = netns.ip(["-j", "link", "show", port], netns=state.devices["sleaf1"].netns).stdout
    return int(json.loads(out)[0]["mtu"])


def test_push_rendered_nvue_to_sleaf1(lab: LabState) -> None:
    fabric = FabricState.model_validate_json((lab.dir / FABRIC_FILE).read_text(encoding="utf-8"))
    (commands,) = [f.content for f in render_fabric(fabric, devices=["sleaf1"]) if f.name == "nvue-commands.txt"]
    lines = [line for line in commands.splitlines() if line.startswith("nv ")]
    secrets = credentials.Secrets.load(lab.dir)
    conn = ConnectHandler(
        device_type="cumulus_linux",
        host=lab.devices["sleaf1"].mgmt_address.split("/")[0],
        username=secrets.switch_username,
        password=secrets.switch_password,
        secret=secrets.switch_password,
    )
    try:
        assert conn.find_prompt() == "cumulus@sleaf1:mgmt:~$"  # provisioned for the underlay (factory.py)
        factory = str(conn.send_command("nv config show -o commands"))
        assert "nv set router bgp autonomous-system" in factory and " qos " not in factory
        out = conn.send_config_set(lines, enter_config_mode=False, exit_config_mode=False, error_pattern=r"Error:")
        assert "Error" not in out
        assert "applied [rev_id: 2]" in conn.save_config(cmd="nv config apply -y")
        shown = str(conn.send_command("nv config show -o commands")).splitlines()
        assert sorted(shown) == sorted(lines)
        # a change reaches the namespace, and applying the previous revision takes it back
        assert _mtu(lab, "swp1") == 9100
        conn.send_command("nv set interface swp1 link mtu 9000")
        assert "applied [rev_id: 3]" in conn.send_command("nv config apply -y")
        assert _mtu(lab, "swp1") == 9000
        assert "applied [rev_id: 2]" in conn.send_command("nv config apply 2 -y")
        assert _mtu(lab, "swp1") == 9100
        ifaces = json.loads(str(conn.send_command("nv show interface -o json")))
        assert ifaces["swp1"]["link"]["oper-status"] == "up" and ifaces["swp5"]["link"]["admin-status"] == "down"
        # collect as xoff does (root via sudo -s): what runs equals desired, LLDP from the real lldpd
        conn.enable()
        desired = fabric.devices["sleaf1"]
        outputs = {c.text: str(conn.send_command(c.text)) for c in Collector().commands(desired)}
        obs = Collector().parse(outputs, desired)
        assert obs.errors == [] and obs.device is not None
        assert differing_fields(desired, obs.device, obs.fields) == []
        assert obs.bgp_sessions == [] and {(n.port, n.neighbor) for n in obs.lldp} >= {("swp1", "gpu1")}
    finally:
        conn.disconnect()
