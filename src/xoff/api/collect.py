"""``collect``: read every device's running state into a snapshot (``validate`` is ``api/validate.py``)."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.api.intent import IntentSource, Loaded, load
from xoff.errors import InputError, Problem
from xoff.progress import ProgressHook, no_progress

if TYPE_CHECKING:
    from xoff.connect.sources import TargetSource
    from xoff.connect.targets import Target
    from xoff.contracts.infiniband import IbObservation
    from xoff.contracts.observed import Snapshot
    from xoff.desired.models import FabricState
    from xoff.desired.shard import Shard


class NotCollectedError(Exception):
    """A fabric could not be read at all (the InfiniBand fabric of ``deadlock --ib-lab``)."""


def infiniband_reader(fabric: FabricState, source: TargetSource | None) -> Callable[[], IbObservation] | None:
    """The reader of the fabric's InfiniBand state on the SM host ``source`` gives (None: no IB network)."""
    if not any(n.kind == "infiniband" for n in fabric.networks.values()):
        return None

    def read() -> IbObservation:
        if source is None:
            raise RuntimeError("InfiniBand outside the lab: no runner on the subnet manager host is wired yet")
        # the InfiniBand platform is loaded only for fabrics that have an InfiniBand network
        collect_sm = importlib.import_module("xoff.platforms.infiniband.collect").collect_sm
        observation: IbObservation = collect_sm(source.subnet_manager()).observation
        return observation

    return read


@dataclass(frozen=True)
class CollectOptions:
    lab: str | None = None  # collect the running lab of this name (its addresses, secrets, keys)
    secrets: Path | None = None  # 0600 secrets file (else XOFF_* environment)
    known_hosts: Path | None = None  # the only host keys trusted
    limit: tuple[str, ...] = ()  # device names or globs, roles, platforms, groups (push's --limit)
    workers: int = 20
    timeout_s: float = 20.0
    output: Path | None = None  # write the snapshot here (JSON), raw captures beside it in <output>.raw
    from_captures: Path | None = None  # read DIR/<device>/<slug>.txt instead of connecting (docs/captures.md)
    shard: Shard | None = None  # only this controller's part of the devices (``--shard K/N``), after ``limit``


@dataclass(frozen=True)
class CollectResult:
    snapshot: Snapshot
    desired: FabricState  # with --lab, the lab's copy (its remapped addresses)
    targets: int
    elapsed_s: float
    output: Path | None = None

    @property
    def complete(self) -> bool:
        """Every device read (else ``snapshot.errors`` says which and why), and at least one: a collect that read
        nothing (an empty captures directory) is not complete."""
        return not self.snapshot.errors and bool(self.snapshot.observed.devices)


@dataclass(frozen=True)
class Reach:
    """How ``read_devices`` reaches the devices (collect's and live validate's options)."""

    lab: str | None
    secrets: Path | None
    known_hosts: Path | None
    workers: int
    timeout_s: float


def read_devices(
    source: IntentSource,
    reach: Reach,
    limit: list[str] | frozenset[str],
    raw_dir: Path | None,
    progress: ProgressHook = no_progress,
    shard: Shard | None = None,
) -> tuple[FabricState, Snapshot, int]:
    """Load, find the targets (``limit``: ``--limit`` terms, or the exact device names validate selected), read them;
    each device a step of the stage ``collect``."""
    from xoff.collect.engine import CollectOptions as EngineOptions  # noqa: PLC0415
    from xoff.collect.engine import collect as run_collect  # noqa: PLC0415
    from xoff.connect.credentials import load_credentials  # noqa: PLC0415
    from xoff.connect.sources import open_source  # noqa: PLC0415
    from xoff.connect.targets import build_targets, select  # noqa: PLC0415

    loaded = load(source)
    desired = loaded.state
    target_source: TargetSource | None = None
    secrets, known_hosts = reach.secrets, reach.known_hosts
    if reach.lab is not None:
        target_source = open_source("lab", reach.lab)
        desired = target_source.fabric  # the lab's copy: its (remapped) addresses are the ones that answer
        secrets = secrets or target_source.secrets_file
        known_hosts = known_hosts or target_source.known_hosts
    creds = load_credentials(secrets)
    if isinstance(limit, frozenset):
        targets = [t for t in build_targets(desired) if t.name in limit]
    else:
        targets = select(build_targets(desired), limit)
    targets = sharded(desired, targets, shard)
    limited = (bool(limit) or shard is not None) and len(targets) < len(build_targets(desired))
    snapshot = run_collect(
        desired,
        targets,
        creds,
        known_hosts,
        EngineOptions(workers=reach.workers, timeout_s=reach.timeout_s, raw_dir=raw_dir, progress=progress),
        infiniband=infiniband_reader(desired, target_source) if _sm_chosen(desired, targets, limited) else None,
    )
    # the lab's --remap, recorded so validate --snapshot compares in the same addresses (a provider written
    # before TargetSource had address_map has none)
    address_map = getattr(target_source, "address_map", None) if target_source is not None else None
    if address_map:
        snapshot = snapshot.model_copy(update={"address_map": [(str(a), str(b)) for a, b in address_map]})
    return desired, stamped(snapshot, loaded), len(targets)


def stamped(snapshot: Snapshot, loaded: Loaded) -> Snapshot:
    """The snapshot with the intent it was collected under (``xoff.intent.fingerprint``) and the xoff that read it."""
    from xoff import __version__  # noqa: PLC0415
    from xoff.intent.fingerprint import document_sha256  # noqa: PLC0415

    return snapshot.model_copy(update={"intent_sha256": document_sha256(loaded.intent), "xoff_version": __version__})


def sharded(desired: FabricState, targets: list[Target], shard: Shard | None) -> list[Target]:
    """The targets that are ``shard``'s part of the fabric (every SSH device split the same way on each controller)."""
    if shard is None:
        return targets
    from xoff.connect.targets import build_targets  # noqa: PLC0415
    from xoff.desired.shard import shard_names  # noqa: PLC0415

    mine = shard_names(desired, [t.name for t in build_targets(desired)], shard)
    return [t for t in targets if t.name in mine]


def _sm_chosen(desired: FabricState, targets: list[Target], limited: bool) -> bool:
    """The InfiniBand fabric is read on the subnet manager host: under a ``--limit`` only when that host is chosen
    (a device not chosen is not contacted)."""
    if not limited:
        return True
    sm = next((d.name for d in desired.devices.values() if d.subnet_manager is not None), None)
    return sm is not None and any(t.name == sm for t in targets)


def _from_captures(
    source: IntentSource, captures: Path, limit: list[str], shard: Shard | None
) -> tuple[FabricState, Snapshot, int]:
    from xoff.collect.captures import collect_from_captures  # noqa: PLC0415
    from xoff.connect.targets import build_targets, select  # noqa: PLC0415

    loaded = load(source)
    desired = loaded.state
    targets = sharded(desired, select(build_targets(desired), limit), shard)
    try:
        snapshot = collect_from_captures(desired, targets, captures)
    except FileNotFoundError as exc:
        raise InputError(
            [Problem(None, "--from-captures", f"{exc} (allowed: a directory of <device>/<slug>.txt)")]
        ) from None
    return desired, stamped(snapshot, loaded), len(targets)


def collect(
    source: IntentSource, options: CollectOptions = CollectOptions(), progress: ProgressHook = no_progress
) -> CollectResult:
    """Read every targeted device (or its saved captures, ``from_captures``); a device that cannot be read is an
    error in the snapshot, not a raise; one without captures is not observed (``Snapshot.captures_absent``).
    ``progress`` hears the stage ``collect`` and each device as it is read (``xoff.progress``)."""
    from xoff.collect.engine import raw_dir_for  # noqa: PLC0415

    started = time.monotonic()
    if options.from_captures is not None:
        if options.lab is not None:
            raise InputError([Problem(None, "collect", "give one of --lab NAME, --from-captures DIR (allowed: one)")])
        desired, snapshot, targets = _from_captures(source, options.from_captures, list(options.limit), options.shard)
    else:
        raw_dir = raw_dir_for(options.output) if options.output is not None else None
        reach = Reach(options.lab, options.secrets, options.known_hosts, options.workers, options.timeout_s)
        desired, snapshot, targets = read_devices(source, reach, list(options.limit), raw_dir, progress, options.shard)
    if options.shard is not None:  # the merge checks that every part is there, once
        snapshot = snapshot.model_copy(update={"shard": str(options.shard)})
    if options.output is not None:
        options.output.parent.mkdir(parents=True, exist_ok=True)
        options.output.write_text(snapshot.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return CollectResult(snapshot, desired, targets, time.monotonic() - started, options.output)
