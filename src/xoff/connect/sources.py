"""Target sources: a running fabric that says how to reach it (its FabricState, secrets, known_hosts).

Push, collect and validate build targets from the intent's plan; with ``--lab NAME`` (or any other
source kind) they take them from a provider instead: the FabricState the devices really run (a lab
remaps management addresses), the secrets file and the known_hosts file to trust. A provider can
also say how to run commands on the fabric's subnet manager host (``SubnetManagerHost``: InfiniBand
is read there, not over a switch's SSH).

Providers plug in through the entry-point group ``xoff.sources`` (name -> a callable taking the
source's name and returning a ``TargetSource``), so connect/ imports none of them: the lab registers
``lab`` in xoff's own ``pyproject.toml``, and a site can add its own (a CMDB, a remote lab) as a
separate package with one entry point.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Protocol

from xoff.connect.batch import Ran, ScriptRunner, run_batch
from xoff.desired.models import FabricState
from xoff.errors import InputError, Location, Problem

ENTRY_POINT_GROUP = "xoff.sources"


class SourceError(RuntimeError):
    """The source cannot give what was asked (no InfiniBand fabric, its subnet manager not reachable)."""


@dataclass(frozen=True)
class SubnetManagerHost:
    """How to run commands on the host of a fabric's subnet manager, and what the provider knows of it.

    The provider gives ``run_script`` (one sh script there); ``run`` and ``run_batch`` are how xoff
    runs commands on it: one argv, or many in one script framed by ``connect.batch`` (a fresh nonce per
    call, so no output, a forged end line included, can split the results).
    """

    host: str  # its name, for error messages
    source: str  # what the observation says it was read from ("lab NAME, HOST")
    run_script: ScriptRunner  # one POSIX sh script there (infiniband-diags on its PATH and fabric)
    timeout_s: float  # for one command; a batch of n gets n seconds more
    opensm_log: str | None = None  # the running OpenSM's log text, when readable
    opensm_argv: list[str] | None = None  # its command line (None: not running, or not known)
    speed_cap: str | None = None  # the fastest link speed the fabric can show (a simulator's limit)

    def run(self, argv: list[str]) -> Ran:
        return self.run_script(shlex.join(argv), self.timeout_s)

    def run_batch(self, argvs: list[list[str]]) -> list[Ran | None]:
        """Each command's result in order (None: the batch ended before it did)."""
        results, _ = run_batch(self.run_script, [shlex.join(a) for a in argvs], self.timeout_s + len(argvs))
        return results


class TargetSource(Protocol):
    """What a provider gives a client for one running fabric."""

    @property
    def name(self) -> str: ...

    @property
    def fabric(self) -> FabricState:
        """The FabricState the devices run: its addresses are the ones that answer."""
        ...

    @property
    def secrets_file(self) -> Path | None: ...

    @property
    def known_hosts(self) -> Path | None: ...

    @property
    def lock_dir(self) -> Path | None:
        """Where a push takes the fabric's lock (None: the default place)."""
        ...

    @property
    def address_map(self) -> list[tuple[str, str]]:
        """Source block -> the block the fabric runs it in (a lab's --remap; empty: the intent's own addresses).
        ``collect`` records it in the snapshot, so a later ``validate --snapshot`` maps the intent the same way."""
        ...

    def subnet_manager(self) -> SubnetManagerHost:
        """The subnet manager host; SourceError if the fabric has none this source can reach."""
        ...


Opener = Callable[[str], TargetSource]


def openers() -> dict[str, Opener]:
    """Every installed provider, by kind (the entry points of ``xoff.sources``)."""
    return {ep.name: ep.load() for ep in entry_points(group=ENTRY_POINT_GROUP)}


def open_source(kind: str, name: str, option: str | None = None) -> TargetSource:
    """The source ``name`` of provider ``kind`` (``--lab NAME``: kind "lab"); bad input, located at
    ``option``, when no such provider is installed or it has no such source."""
    where = option or f"--{kind}"
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == kind]
    if not found:
        installed = ", ".join(sorted(openers())) or "none"
        hint = (
            "; reinstall xoff (`make`, or pip install -e .) to register its entry points" if installed == "none" else ""
        )
        message = f"no {kind} provider is installed (installed: {installed}){hint}"
        raise InputError([Problem(Location(where, 1, 1), name, message)])
    opener: Opener = found[0].load()
    return opener(name)
