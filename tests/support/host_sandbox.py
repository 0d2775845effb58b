"""A sandboxed GPU host for xoff-host-apply.sh: fake tools first on PATH, sysfs/procfs/etc under XOFF_HOST_ROOT.

The starting point is a factory-fresh ConnectX host: netdevs down at MTU 1500 without addresses,
mlnx_qos trusting pcp with PFC off, RDMA-CM in RoCE v1 with ToS 0, no global traffic class, DCQCN
off on every priority, the firmware's CNP defaults (DSCP 48, priority 6), GPUDirect prerequisites met.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xoff.desired.models import Device

FAKE_TOOLS = Path(__file__).with_name("fake_host_tools.py")
ALL_TOOLS = ("mlnx_qos", "cma_roce_mode", "cma_roce_tos", "ip", "lspci", "modprobe")
PROBLEM = re.compile(r"^(gpudirect|rdma|ecn|roce): ")
# calls that change state; a run in sync must make none of them
MUTATING = re.compile(
    r"^(mlnx_qos .*--(trust|pfc|dscp2prio|cable_len)|cma_roce_mode .* -m |cma_roce_tos .* -t |ip (link set|addr (replace|del)|"
    r"route (replace|del)|rule (add|del))|modprobe)"
)


@dataclass(frozen=True)
class Run:
    rc: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()

    @property
    def changed(self) -> list[str]:
        return [line.removeprefix("changed: ") for line in self.lines if line.startswith("changed: ")]

    @property
    def would(self) -> list[str]:
        return [line.removeprefix("would change: ") for line in self.lines if line.startswith("would change: ")]

    @property
    def problems(self) -> list[str]:
        return [line for line in self.lines if PROBLEM.match(line)]

    def __str__(self) -> str:
        return f"rc={self.rc}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}"


class Sandbox:
    def __init__(
        self, tmp: Path, device: Device, script: str | None = None, tools: tuple[str, ...] = ALL_TOOLS
    ) -> None:
        """A factory-fresh host in ``tmp``; with ``script`` None, the sandbox already in ``tmp`` (see ``copy``)."""
        assert device.host is not None
        self.device = device
        self.dir = tmp
        self.root = tmp / "root"
        self.bin = tmp / "bin"
        self.state_dir = tmp / "state"
        self.script = tmp / "xoff-host-apply.sh"
        if script is None:
            return
        for d in (self.root, self.bin, self.state_dir):
            d.mkdir(parents=True)
        self.script.write_text(script, encoding="utf-8")
        for tool in tools:
            wrapper = self.bin / tool
            # the state directory is found from the wrapper's own path, so a copied sandbox works as is
            wrapper.write_text(
                "#!/bin/sh\n"
                f"exec {shlex.quote(sys.executable)} -I -S {shlex.quote(str(FAKE_TOOLS))} "
                f'"${{0%/bin/*}}/state" {tool} "$@"\n',
                encoding="utf-8",
            )
            wrapper.chmod(0o755)
        (self.state_dir / "calls.log").write_text("", encoding="utf-8")
        self.save(self._factory_state())
        self._factory_sysfs()

    def copy(self, tmp: Path) -> Sandbox:
        """An independent copy of this sandbox (state, files, tools) in ``tmp`` (which must not exist)."""
        shutil.copytree(self.dir, tmp, symlinks=True)
        return Sandbox(tmp, self.device)

    # ------------------------------------------------------------------------------------ state
    def _factory_state(self) -> dict[str, Any]:
        host = self.device.host
        assert host is not None
        state: dict[str, Any] = {"links": {}, "routes": {}, "rules": [], "qos": {}, "rdma_cm": {}}
        state["links"]["eno1"] = {"index": 2, "mtu": 1500, "up": True, "mac": "02:00:00:00:01:02", "addrs": []}
        for k, nic in enumerate(host.nics.values(), start=3):
            if nic.roce_mode is None:
                continue
            state["links"][nic.netdev] = {
                "index": k,
                "mtu": 1500,
                "up": False,
                "mac": f"02:00:00:00:01:{k:02x}",
                "addrs": [],
            }
            state["qos"][nic.netdev] = {
                "trust": "pcp",
                "pfc": [0] * 8,
                "dscp2prio": {str(d): d >> 3 for d in range(64)},
            }
            assert nic.rdma
            state["rdma_cm"][nic.rdma] = {"1": {"mode": "IB/RoCE v1", "tos": 0}}
        state["pci"] = [
            {"bdf": "00:01.1", "desc": "PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)", "acs": "SrcValid-"},
            {"bdf": "17:00.0", "desc": "Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
             "acs": None, "driver": "mlx5_core"},
        ]  # fmt: skip
        return state

    def _factory_sysfs(self) -> None:
        host = self.device.host
        assert host is not None
        for nic in host.nics.values():
            assert nic.rdma
            port = self.root / "sys/class/infiniband" / nic.rdma / "ports/1"
            port.mkdir(parents=True)
            (port / "link_layer").write_text("Ethernet\n" if nic.roce_mode else "InfiniBand\n", encoding="utf-8")
            if nic.roce_mode is None:
                continue
            tc = self.root / "sys/class/infiniband" / nic.rdma / "tc/1"
            tc.mkdir(parents=True)
            (tc / "traffic_class").write_text("", encoding="utf-8")
            ecn = self.root / "sys/class/net" / nic.netdev / "ecn"
            for point in ("roce_np", "roce_rp"):
                (ecn / point / "enable").mkdir(parents=True)
                for prio in range(8):
                    (ecn / point / "enable" / str(prio)).write_text("0\n", encoding="utf-8")
            (ecn / "roce_np/cnp_dscp").write_text("48\n", encoding="utf-8")
            (ecn / "roce_np/cnp_802p_prio").write_text("6\n", encoding="utf-8")
        (self.root / "sys/module/nvidia_peermem").mkdir(parents=True)
        (self.root / "sys/class/iommu/dmar0").mkdir(parents=True)
        (self.root / "proc").mkdir()
        (self.root / "proc/cmdline").write_text(
            "BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=/dev/nvme0n1p2 ro intel_iommu=on iommu=pt\n", encoding="utf-8"
        )

    def state(self) -> dict[str, Any]:
        return json.loads((self.state_dir / "state.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]

    def save(self, state: dict[str, Any]) -> None:
        (self.state_dir / "state.json").write_text(json.dumps(state, indent=1, sort_keys=True), encoding="utf-8")

    def forget_calls(self) -> None:
        (self.state_dir / "calls.log").write_text("", encoding="utf-8")

    def calls(self) -> list[str]:
        return (self.state_dir / "calls.log").read_text(encoding="utf-8").splitlines()

    def file(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    # -------------------------------------------------------------------------------------- runs
    def run(self, *args: str, env: dict[str, str] | None = None, prefix: list[str] | None = None) -> Run:
        environ = {"PATH": f"{self.bin}:/usr/bin:/bin", "XOFF_HOST_ROOT": str(self.root), "LC_ALL": "C"}
        environ.update(env or {})
        proc = subprocess.run(
            [*(prefix or []), "bash", str(self.script), *args],
            env=environ,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        self.settle()
        return Run(proc.returncode, proc.stdout, proc.stderr)

    def tool(self, *argv: str) -> str:
        """Run a fake tool by hand, as an operator would (e.g. to put a value back to the factory one)."""
        proc = subprocess.run(
            [str(self.bin / argv[0]), *argv[1:]], capture_output=True, text=True, timeout=30, check=True
        )
        return proc.stdout

    def settle(self) -> None:
        """Kernel attribute semantics for plain files: MLNX_OFED's tc/<port>/traffic_class takes a number
        and shows it back as "Global tclass=<n>" (traffic_class_show in the mlx5 driver's sysfs code)."""
        for f in self.root.glob("sys/class/infiniband/*/tc/*/traffic_class"):
            text = f.read_text(encoding="utf-8").strip()
            if text.isdigit():
                f.write_text(f"Global tclass={text}\n", encoding="utf-8")

    def mutating_calls(self, since: int = 0) -> list[str]:
        return [c for c in self.calls()[since:] if MUTATING.match(c)]
