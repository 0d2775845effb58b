"""Collect from saved captures instead of connecting (``xoff collect --from-captures DIR``).

The layout is the one ``collect`` writes beside a snapshot (``<snapshot>.raw/``), so any backup or capture system
can feed it: ``DIR/<device>/<slug>.txt``, one file per command, ``<slug>`` being ``Command(text).slug`` of a command
the device's platform collector runs (``docs/captures.md`` lists them). Each capture goes through the collector's
own ``parse``, as live output would. A device or command without a capture is not observed (listed in
``Snapshot.captures_absent``), never an error and never a value; a capture holding a CLI's refusal is a
``command`` error, as it would be live. A fabric with an InfiniBand network is read from ``DIR/infiniband/``, an
infiniband-diags dump directory as ``xoff deadlock --ib-dump`` reads it (absent: not observed).
"""

from __future__ import annotations

import time
from pathlib import Path

from xoff.collect.engine import DeviceRun, assemble
from xoff.connect.targets import Target
from xoff.contracts.collect import Collector, Command, refused
from xoff.contracts.infiniband import IbObservation
from xoff.contracts.observed import CollectError, Snapshot
from xoff.desired.models import FabricState
from xoff.platforms.registry import collector_for, get_platform


def capture_path(captures: Path, device: str, command: Command) -> Path:
    """Where the capture of ``command`` on ``device`` lives."""
    return captures / device / f"{command.slug}.txt"


def _collector(platform: str) -> Collector | None:
    """The platform's collector; None for a platform that has none (read another way, e.g. InfiniBand)."""
    if get_platform(platform).collector is None:
        return None
    return collector_for(platform)


def read_device(target: Target, desired: FabricState, captures: Path) -> tuple[DeviceRun, list[str]]:
    """One device from its captures: the run (observation and errors), and the commands that had no capture."""
    started = time.monotonic()
    run = DeviceRun(target)
    device = desired.devices[target.name]
    collector = _collector(target.platform)
    if collector is None:
        return run, []
    outputs: dict[str, str] = {}
    absent: list[str] = []
    for command in collector.commands(device):
        path = capture_path(captures, target.name, command)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            absent.append(command.text)
            continue
        refusal = refused(text)
        if refusal is not None:
            run.errors.append(CollectError(device=target.name, command=command.text, kind="command", message=refusal))
            continue
        outputs[command.text] = text
    if outputs:  # a device with no capture at all is not observed: no observation, not an empty device
        run.observation = collector.parse(outputs, device)
    run.elapsed_s = time.monotonic() - started
    return run, absent


INFINIBAND = "infiniband"  # DIR/infiniband/: the InfiniBand fabric's infiniband-diags dump directory
INFINIBAND_DUMP = "infiniband-diags dump (ibnetdiscover, dump_fts, ... as xoff deadlock --ib-dump reads it)"


def read_infiniband(desired: FabricState, captures: Path) -> tuple[IbObservation | None, list[CollectError], bool]:
    """The InfiniBand observation of ``DIR/infiniband/`` (None: the fabric has no InfiniBand network, or no dump),
    its parse error, and whether the dump was absent where the fabric has an InfiniBand network."""
    if not any(n.kind == "infiniband" for n in desired.networks.values()):
        return None, [], False
    directory = captures / INFINIBAND
    if not directory.is_dir():
        return None, [], True
    from xoff.platforms.infiniband.observe import observation_from_dump  # noqa: PLC0415 - only for IB fabrics

    try:
        return observation_from_dump(directory), [], False
    except ValueError as exc:  # IbParseError and the model's ValidationError are ValueErrors
        line = (str(exc).strip().splitlines() or ["unreadable dump"])[0][:300]
        return None, [CollectError(device=INFINIBAND, command=None, kind="parse", message=line)], False


def collect_from_captures(desired: FabricState, targets: list[Target], captures: Path) -> Snapshot:
    """The snapshot the captures under ``captures`` give for ``targets`` (no device is contacted)."""
    if not captures.is_dir():
        raise FileNotFoundError(f"{captures}: no such directory of captures")
    runs: list[DeviceRun] = []
    absent: dict[str, list[str]] = {}
    for target in targets:
        run, missing = read_device(target, desired, captures)
        runs.append(run)
        if missing:
            absent[target.name] = missing
    infiniband, errors, ib_absent = read_infiniband(desired, captures)
    if ib_absent:
        absent[INFINIBAND] = [INFINIBAND_DUMP]
    snapshot = assemble(desired, runs, infiniband, errors)
    return snapshot.model_copy(update={"captures_absent": dict(sorted(absent.items()))})
