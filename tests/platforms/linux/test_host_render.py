"""Host renderer: golden files, determinism, the state file and nccl.env as the FabricState says, safe names,
and every rendered script parses (bash -n) and passes shellcheck at its default severity."""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.models import Device
from xoff.intent import load_intent
from xoff.platforms.linux import builders
from xoff.platforms.linux.render import APPLY_SCRIPT, NCCL_ENV, STATE_FILE, render

INVENTORY = ROOT / "inventory"
EXAMPLES = ("lab-mini", "roce-pod", "ib-pod")
GOLDEN_CASES = [
    ("lab-mini", "gpu1"),  # 2 compute rails + 1 storage NIC, all RoCE
    ("roce-pod", "gpu01"),  # HGX: 8 compute rails + 2 storage rails
    ("ib-pod", "gpu01"),  # InfiniBand compute HCAs (verified only) + RoCE storage
    ("ib-pod", "sm01"),  # InfiniBand only: no Ethernet QoS at all
]


@cache
def fabric(example: str) -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / example))


def hosts(example: str) -> list[Device]:
    return [d for d in fabric(example).devices.values() if d.platform == "linux"]


@pytest.mark.parametrize(("example", "device"), GOLDEN_CASES)
def test_golden(golden, example: str, device: str) -> None:  # type: ignore[no-untyped-def]
    state = fabric(example)
    golden(render(state.devices[device], state), f"render/host/{example}-{device}")


@pytest.mark.parametrize("example", EXAMPLES)
def test_deterministic(example: str) -> None:
    """Byte-identical output from two independently built FabricStates."""
    again = build_fabric_state(load_intent(INVENTORY / example))
    for device in hosts(example):
        assert render(device, fabric(example)) == render(again.devices[device.name], again), device.name


def test_state_file_is_the_desired_values() -> None:
    state = fabric("lab-mini")
    device = state.devices["gpu1"]
    host = device.host
    assert host is not None
    doc = json.loads(render(device, state)[STATE_FILE])
    assert list(doc) == [
        "schema", "device", "fabric", "profile", "preflight", "links", "routing", "qos", "roce", "ecn", "nccl",
        "rdma", "gpudirect",
    ]  # fmt: skip
    assert doc == builders.host_config(device, state)
    eth0 = host.nics["eth0"]
    assert doc["links"][0] == {"netdev": "eth0", "mtu": 9000, "admin": "up", "addresses": ["198.18.0.9/31"]}
    assert doc["qos"][0] == {
        "netdev": "eth0",
        "trust": "dscp",
        "pfc": [0, 0, 0, 1, 0, 0, 0, 0],
        # all 64 DSCPs, as on the switches: 26 -> 3, 48 -> 6, the rest to the default class's 0
        "dscp_to_priority": [{"dscp": d, "priority": {26: 3, 48: 6}.get(d, 0)} for d in range(64)],
        "cable_m": 5,  # the host link's length: the NIC sizes its lossless headroom for it
    }
    assert doc["qos"][2]["pfc"] == host.nics["eth2"].pfc  # storage: lossless priority 4
    assert doc["roce"][0] == {
        "rdma": "mlx5_0",
        "port": 1,
        "netdev": "eth0",
        "mode": "RoCE v2",
        "mode_flag": 2,
        "tos": 106,
        "traffic_class": 106,
    }
    assert doc["ecn"][0]["np_priorities"] == eth0.ecn_np_priorities == [3]
    assert (doc["ecn"][0]["cnp_dscp"], doc["ecn"][0]["cnp_priority"]) == (48, 6)
    assert doc["routing"]["tables"][0] == {
        "table": 100,
        "routes": [
            {"destination": "198.18.0.0/24", "via": "198.18.0.8", "device": "eth0"},
            {"destination": "198.18.255.0/24", "via": "198.18.0.8", "device": "eth0"},
        ],
    }
    assert doc["routing"]["rules"][0] == {"priority": 1000, "source": "198.18.0.9/32", "table": 100}
    assert doc["nccl"] == {"path": "/etc/xoff/nccl.env", "env": dict(sorted(host.nccl_env.items()))}
    assert doc["gpudirect"] == {"nvidia_peermem": True, "acs_disabled": True, "iommu": "passthrough"}


@pytest.mark.parametrize("example", EXAMPLES)
def test_nccl_env_file(example: str) -> None:
    for device in hosts(example):
        assert device.host is not None
        files = render(device, fabric(example))
        lines = files[NCCL_ENV].splitlines()
        body = [line for line in lines if not line.startswith("#")]
        assert lines[0].startswith("# NCCL environment for ")
        assert body == [f"{k}={v}" for k, v in sorted(device.host.nccl_env.items())]
        # the script installs exactly this text
        assert f"<<'XOFF_NCCL_ENV'\n{files[NCCL_ENV]}XOFF_NCCL_ENV\n" in files[APPLY_SCRIPT]


def test_infiniband_only_host_gets_no_ethernet_qos() -> None:
    state = fabric("ib-pod")
    device = state.devices["sm01"]
    assert device.host is not None
    assert all(n.roce_mode is None for n in device.host.nics.values())
    files = render(device, state)
    script = files[APPLY_SCRIPT]
    for word in ("mlnx_qos", "cma_roce", "traffic_class", "roce_np", "ip -o", "ip route", "xoff_link "):
        assert word not in script, word  # neither a step nor a helper for Ethernet QoS
    assert "xoff_link_layer mlx5_0 1 InfiniBand\n" in script
    assert "NCCL_IB_SL=0\n" in files[NCCL_ENV]
    doc = json.loads(files[STATE_FILE])
    assert doc["links"] == doc["qos"] == doc["roce"] == doc["ecn"] == []
    assert doc["preflight"] == {"tools": [], "netdevs": [], "rdma": []}


def test_mixed_host_applies_ethernet_qos_only_to_its_roce_nics() -> None:
    state = fabric("ib-pod")
    script = render(state.devices["gpu01"], state)[APPLY_SCRIPT]
    dscp_map = " ".join(f"{d}:{ {34: 4, 48: 6}.get(d, 0) }" for d in range(64))
    assert f"xoff_qos stor0 dscp 0,0,0,0,1,0,0,0 {dscp_map}\n" in script
    assert "xoff_qos ib0" not in script and "xoff_link ib0" not in script
    assert "xoff_link_layer mlx5_0 1 InfiniBand\n" in script and "xoff_link_layer mlx5_8 1 Ethernet\n" in script


@pytest.mark.parametrize(
    ("field", "value"),
    [("netdev", "eth0;reboot"), ("rdma", "mlx5_0 $(id)"), ("address", "198.18.0.9/31\nreboot")],
)
def test_unsafe_names_are_refused(field: str, value: str) -> None:
    state = fabric("lab-mini")
    device = state.devices["gpu1"]
    assert device.host is not None
    nic = device.host.nics["eth0"].model_copy(update={field: value})
    nics = {**device.host.nics, "eth0": nic}
    interfaces = dict(device.interfaces)
    if field == "address":
        interfaces["eth0"] = interfaces["eth0"].model_copy(update={"addresses": [value]})
    bad = device.model_copy(update={"host": device.host.model_copy(update={"nics": nics}), "interfaces": interfaces})
    with pytest.raises(ValueError, match="not safe to print into a shell script"):
        render(bad, state)


def test_unsafe_nccl_value_is_refused() -> None:
    state = fabric("lab-mini")
    device = state.devices["gpu1"]
    assert device.host is not None
    env = {**device.host.nccl_env, "NCCL_DEBUG": "INFO; reboot"}
    bad = device.model_copy(update={"host": device.host.model_copy(update={"nccl_env": env})})
    with pytest.raises(ValueError, match="value of NCCL_DEBUG"):
        render(bad, state)


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_rendered_script_parses(tmp_path: Path, example: str) -> None:
    for device in hosts(example):
        script = tmp_path / f"{device.name}.sh"
        script.write_text(render(device, fabric(example))[APPLY_SCRIPT], encoding="utf-8")
        proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
        assert proc.returncode == 0, f"{example}/{device.name}: {proc.stderr}"


def test_shellcheck_clean(tmp_path: Path) -> None:
    """One script per distinct host profile of every example; shellcheck's default severity, no disables."""
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is not installed: apt-get install shellcheck (Makefile APT_PACKAGES)"
    scripts = []
    for example in EXAMPLES:
        seen: set[str] = set()
        for device in hosts(example):
            assert device.host is not None
            if device.host.profile in seen:
                continue
            seen.add(device.host.profile)
            script = tmp_path / f"{example}-{device.name}.sh"
            script.write_text(render(device, fabric(example))[APPLY_SCRIPT], encoding="utf-8")
            scripts.append(str(script))
    assert len(scripts) >= 6
    proc = subprocess.run([shellcheck, "--shell=bash", *scripts], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for script in scripts:
        assert "shellcheck disable" not in Path(script).read_text(encoding="utf-8")
