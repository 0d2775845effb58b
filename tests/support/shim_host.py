"""A lab host's NIC tool shims in a temporary directory, for tests: install() them, run a tool by name
through its wrapper (as the host script does), read the files under the state root."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.lab.shims import install

REPO = ROOT
INVENTORY = REPO / "inventory"
FIXTURES = REPO / "tests" / "fixtures" / "host-tools"


@cache
def fabric(example: str) -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / example))


@dataclass(frozen=True)
class Result:
    rc: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"rc={self.rc}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}"


class ShimHost:
    def __init__(self, tmp: Path, example: str = "lab-mini", device: str = "gpu1", **options: Any) -> None:
        self.device = fabric(example).devices[device]
        self.bin = tmp / "bin"
        self.root = tmp / "root"
        install(self.bin, self.root, self.device, **options)

    def env(self) -> dict[str, str]:
        return {
            "PATH": f"{self.bin}:/usr/sbin:/usr/bin:/sbin:/bin",
            "LC_ALL": "C",
            "HOME": os.environ.get("HOME", "/root"),
        }

    def run(self, tool: str, *args: str) -> Result:
        proc = subprocess.run([tool, *args], env=self.env(), capture_output=True, text=True, timeout=60, check=False)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def ok(self, tool: str, *args: str) -> str:
        r = self.run(tool, *args)
        assert (r.rc, r.stderr) == (0, ""), r
        return r.stdout

    def file(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    def state(self) -> dict[str, Any]:
        return json.loads((self.root / "var/lib/xoff-shims/state.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def fixture(*parts: str) -> str:
    return (FIXTURES.joinpath(*parts)).read_text(encoding="utf-8")
