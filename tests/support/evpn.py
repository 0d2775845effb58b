"""lab-mini with both spines SONiC (an all-SONiC compute network; with its EOS spine, tests/platforms/eos/
test_eos_evpn.py), its tenants carried by VXLAN-EVPN; and how a leaf read back from a NOS's output is judged."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.paths import ROOT
from xoff.api import ValidateOptions, validate
from xoff.collect.engine import DeviceRun, assemble
from xoff.connect.targets import Target
from xoff.contracts.collect import DeviceObservation
from xoff.desired.models import FabricState
from xoff.validate.model import Status

EOS_SPINE = "  - {name: spine2, role: spine, platform: eos, asic: tomahawk5, mgmt: 198.19.252.12,\n"
EOS_PORTS = '     ports: [{name: "Ethernet{1..4}/1", speed: 400G, use: downlink}]}\n'
SONIC_SPINE = "  - {name: spine2, role: spine, mgmt: 198.19.252.12}\n"
TENANTS = (
    "- {name: blue, hosts: ['gpu{1..2}'], vni: 50001}\n  - {name: red, hosts: ['gpu{3..4}'], share_lossless: true}"
)


def sonic_only(tmp_path: Path, items: str) -> Path:
    """lab-mini with both spines SONiC and two tenants."""
    target = tmp_path / "lab-mini"
    shutil.copytree(ROOT / "inventory" / "lab-mini", target)
    devices = target / "devices.yaml"
    text = devices.read_text(encoding="utf-8")
    assert EOS_SPINE + EOS_PORTS in text
    devices.write_text(text.replace(EOS_SPINE + EOS_PORTS, SONIC_SPINE), encoding="utf-8")
    (target / "tenants.yaml").write_text(f"tenants:\n  {items}\n", encoding="utf-8")
    return target


def drift_judged(
    intent: Path, fabric: FabricState, tmp_path: Path, platform: str, obs: DeviceObservation
) -> tuple[list[tuple[str, ...]], Status]:
    """leaf1 as ``obs`` read it, in a snapshot validated against ``intent``: drift.state's findings (device, object,
    expected, actual) and status; tenant.evpn_consistent agrees with it."""
    device = fabric.devices["leaf1"]
    target = Target(device.name, platform, "switch", device.role, device.network, "198.18.0.1")
    path = tmp_path / "snap.json"
    path.write_text(assemble(fabric, [DeviceRun(target=target, observation=obs)]).model_dump_json())
    result = validate(intent, ValidateOptions(snapshot=path))
    (drift,) = [r for r in result.validation.results if r.id == "drift.state"]
    (evpn,) = [r for r in result.validation.results if r.id == "tenant.evpn_consistent"]
    assert evpn.status is (Status.SUCCESS if drift.status is Status.SUCCESS else Status.FAILURE)
    return [(f.device, f.object, f.expected, f.actual) for f in drift.findings], drift.status
