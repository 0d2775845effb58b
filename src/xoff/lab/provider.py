"""The lab as a target source (``xoff.connect.sources``): ``--lab NAME`` anywhere resolves here.

Registered in ``pyproject.toml`` under the entry-point group ``xoff.sources`` as ``lab``; connect/,
push/, collect/ and validate/ never import this module. A running lab gives its FabricState (remapped
addresses: the ones that answer), its secrets file, its known_hosts (host keys stay checked), its
directory (the push lock), and its subnet manager host: commands run in that host's namespace, with
ibsim's umad2sim preloaded (``observe.exec_env``), so infiniband-diags read the simulated fabric.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from xoff.connect.batch import Ran, ScriptRunner
from xoff.connect.sources import SourceError, SubnetManagerHost
from xoff.desired.models import FabricState
from xoff.errors import InputError, Location, Problem
from xoff.lab import credentials, names
from xoff.lab.ibsim import IBSIM_FASTEST
from xoff.lab.processes import alive
from xoff.lab.state import FABRIC_FILE, LabState, load


@dataclass(frozen=True)
class LabConnection:
    """What a running lab gives a client: its FabricState, secrets file and known_hosts."""

    fabric: FabricState
    secrets_file: Path
    known_hosts: Path
    lab_dir: Path
    address_map: list[tuple[str, str]]  # the lab's --remap blocks (lab.json), source -> lab

    @property
    def name(self) -> str:
        return self.lab_dir.name

    @property
    def lock_dir(self) -> Path:
        return self.lab_dir

    def subnet_manager(self) -> SubnetManagerHost:
        return subnet_manager(self.lab_dir)


def from_lab(lab: str, root: Path | None = None) -> LabConnection:
    """The lab named ``lab`` (under ``root``, else XOFF_LAB_DIR or /run/xoff/labs); bad input if it is not up."""
    lab_dir = names.lab_dir(lab, root)
    fabric_file = lab_dir / FABRIC_FILE
    if not fabric_file.exists():
        raise InputError([Problem(Location("--lab", 1, 1), lab, f"no lab of that name is up (looked in {lab_dir})")])
    fabric = FabricState.model_validate_json(fabric_file.read_text(encoding="utf-8"))
    state = load(lab_dir)
    return LabConnection(
        fabric=fabric,
        secrets_file=lab_dir / credentials.SECRETS_FILE,
        known_hosts=credentials.known_hosts(lab_dir),
        lab_dir=lab_dir,
        address_map=[(a, b) for a, b in state.remap] if state is not None else [],
    )


def _running_argv(pid: int) -> list[str] | None:
    """A process's command line as the kernel has it (the lab shares the controller's PID namespace)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [a.decode("utf-8", errors="replace") for a in raw.split(b"\0") if a] or None


def _script_runner(state: LabState, host: str) -> ScriptRunner:
    from xoff.lab.observe import run_in  # noqa: PLC0415 - the lab's daemons and renderers, only with InfiniBand

    def run_script(script: str, timeout: float) -> Ran:
        # on stdin: a batch of every port's query of a large fabric is over the 128 KiB one argument may have
        done: subprocess.CompletedProcess[str] = run_in(state, host, ["sh", "-s"], timeout=timeout, stdin=script)
        return Ran(done.returncode, done.stdout, done.stderr)

    return run_script


def subnet_manager(lab_dir: Path) -> SubnetManagerHost:
    """The lab's SM host: a runner in its namespace, OpenSM's log and command line, ibsim's speed cap."""
    from xoff.lab.observe import TIMEOUT_S  # noqa: PLC0415 - see _script_runner

    state = load(lab_dir)
    if state is None:
        raise SourceError(f"no lab named {lab_dir.name!r} is up (looked in {lab_dir})")
    if state.ib is None:
        raise SourceError(f"lab {state.name} has no InfiniBand fabric")
    sm_host = state.ib.sm_host
    log = Path(state.ib.opensm_log)
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else None
    record = state.processes.get(f"{sm_host}/opensm")
    argv = _running_argv(record.pid) if record is not None and alive(record) else None
    return SubnetManagerHost(
        host=sm_host,
        source=f"lab {state.name}, {sm_host}",
        run_script=_script_runner(state, sm_host),
        timeout_s=TIMEOUT_S,
        opensm_log=text,
        opensm_argv=argv,
        speed_cap=IBSIM_FASTEST,  # ibsim 0.10 models links up to HDR
    )
