"""``collect`` (read every device's running state into a snapshot) and ``validate`` (a catalog's checks
over the desired state: offline, on a saved snapshot, or live after a collect)."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.api.intent import IntentSource, load
from xoff.errors import InputError, Problem

if TYPE_CHECKING:
    from xoff.connect.sources import TargetSource
    from xoff.contracts.infiniband import IbObservation
    from xoff.contracts.observed import Snapshot
    from xoff.desired.models import FabricState
    from xoff.validate.run import Source, Validation


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
    limit: tuple[str, ...] = ()  # device, role or group
    workers: int = 20
    timeout_s: float = 20.0
    output: Path | None = None  # write the snapshot here (JSON), raw captures beside it in <output>.raw
    from_captures: Path | None = None  # read DIR/<device>/<slug>.txt instead of connecting (docs/captures.md)


@dataclass(frozen=True)
class CollectResult:
    snapshot: Snapshot
    desired: FabricState  # with --lab, the lab's copy (its remapped addresses)
    targets: int
    elapsed_s: float
    output: Path | None = None

    @property
    def complete(self) -> bool:
        """Every device read (else ``snapshot.errors`` says which and why)."""
        return not self.snapshot.errors


def _collect(
    source: IntentSource,
    lab: str | None,
    secrets: Path | None,
    known_hosts: Path | None,
    limit: list[str],
    workers: int,
    timeout: float,
    raw_dir: Path | None,
) -> tuple[FabricState, Snapshot, int]:
    from xoff.collect.engine import CollectOptions as EngineOptions  # noqa: PLC0415
    from xoff.collect.engine import collect as run_collect  # noqa: PLC0415
    from xoff.connect.credentials import load_credentials  # noqa: PLC0415
    from xoff.connect.sources import open_source  # noqa: PLC0415
    from xoff.connect.targets import build_targets, select  # noqa: PLC0415

    desired = load(source).state
    target_source: TargetSource | None = None
    if lab is not None:
        target_source = open_source("lab", lab)
        desired = target_source.fabric  # the lab's copy: its (remapped) addresses are the ones that answer
        secrets = secrets or target_source.secrets_file
        known_hosts = known_hosts or target_source.known_hosts
    creds = load_credentials(secrets)
    targets = select(build_targets(desired), limit)
    snapshot = run_collect(
        desired,
        targets,
        creds,
        known_hosts,
        EngineOptions(workers=workers, timeout_s=timeout, raw_dir=raw_dir),
        infiniband=infiniband_reader(desired, target_source),
    )
    # the lab's --remap, recorded so validate --snapshot compares in the same addresses (a provider written
    # before TargetSource had address_map has none)
    address_map = getattr(target_source, "address_map", None) if target_source is not None else None
    if address_map:
        snapshot = snapshot.model_copy(update={"address_map": [(str(a), str(b)) for a, b in address_map]})
    return desired, snapshot, len(targets)


def _from_captures(source: IntentSource, captures: Path, limit: list[str]) -> tuple[FabricState, Snapshot, int]:
    from xoff.collect.captures import collect_from_captures  # noqa: PLC0415
    from xoff.connect.targets import build_targets, select  # noqa: PLC0415

    desired = load(source).state
    targets = select(build_targets(desired), limit)
    try:
        snapshot = collect_from_captures(desired, targets, captures)
    except FileNotFoundError as exc:
        raise InputError(
            [Problem(None, "--from-captures", f"{exc} (allowed: a directory of <device>/<slug>.txt)")]
        ) from None
    return desired, snapshot, len(targets)


def collect(source: IntentSource, options: CollectOptions = CollectOptions()) -> CollectResult:
    """Read every targeted device (or its saved captures, ``from_captures``); a device that cannot be read is an
    error in the snapshot, not a raise; one without captures is not observed (``Snapshot.captures_absent``)."""
    from xoff.collect.engine import raw_dir_for  # noqa: PLC0415

    started = time.monotonic()
    if options.from_captures is not None:
        if options.lab is not None:
            raise InputError([Problem(None, "collect", "give one of --lab NAME, --from-captures DIR (allowed: one)")])
        desired, snapshot, targets = _from_captures(source, options.from_captures, list(options.limit))
    else:
        raw_dir = raw_dir_for(options.output) if options.output is not None else None
        desired, snapshot, targets = _collect(
            source,
            options.lab,
            options.secrets,
            options.known_hosts,
            list(options.limit),
            options.workers,
            options.timeout_s,
            raw_dir,
        )
    if options.output is not None:
        options.output.parent.mkdir(parents=True, exist_ok=True)
        options.output.write_text(snapshot.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return CollectResult(snapshot, desired, targets, time.monotonic() - started, options.output)


@dataclass(frozen=True)
class ValidateOptions:
    offline: bool = False  # judge the intent alone (no device contacted)
    snapshot: Path | None = None  # judge a snapshot file (xoff collect -o)
    lab: str | None = None  # collect the running lab of this name, then judge
    catalog: str = "default"  # default | pre-change | audit | a catalog file
    save_snapshot: Path | None = None  # live: also write the snapshot
    secrets: Path | None = None
    known_hosts: Path | None = None
    workers: int = 20
    timeout_s: float = 20.0


@dataclass(frozen=True)
class ValidateResult:
    validation: Validation

    @property
    def source(self) -> Source:
        return self.validation.source

    @property
    def blocking(self) -> bool:
        return self.validation.blocking

    @property
    def not_collected(self) -> bool:
        """Live, and some device could not be read."""
        snap = self.validation.snapshot
        return self.source == "live" and snap is not None and bool(snap.errors)


def validate(source: IntentSource, options: ValidateOptions = ValidateOptions()) -> ValidateResult:
    """Offline with ``offline=True``, on ``snapshot``, else live (collect first; ``lab``: the lab's copy)."""
    from xoff.desired.addressmap import map_fabric  # noqa: PLC0415
    from xoff.validate.catalog import load_catalog  # noqa: PLC0415
    from xoff.validate.run import load_snapshot  # noqa: PLC0415
    from xoff.validate.run import validate as run_checks  # noqa: PLC0415

    snapshot, lab, offline = options.snapshot, options.lab, options.offline
    if sum((offline, snapshot is not None, lab is not None)) > 1:
        raise InputError(
            [Problem(None, "validate", "give one of --offline, --snapshot FILE, --lab NAME (allowed: one)")]
        )
    cat = load_catalog(options.catalog)
    loaded = load(source)
    desired = loaded.state
    snap: Snapshot | None = None
    where: Source = "offline"
    if snapshot is not None:
        snap, where = load_snapshot(snapshot, desired.fabric), "snapshot"
        desired = map_fabric(desired, snap.address_map)  # collected under a lab's --remap: compare in its addresses
    elif not offline:
        desired, snap, _ = _collect(
            loaded,
            lab,
            options.secrets,
            options.known_hosts,
            [],
            options.workers,
            options.timeout_s,
            None,
        )
        where = "live"
    if options.save_snapshot is not None and snap is not None and where == "live":
        options.save_snapshot.parent.mkdir(parents=True, exist_ok=True)
        options.save_snapshot.write_text(snap.model_dump_json(indent=2) + "\n", encoding="utf-8")
    from xoff.report.meta import intent_hash  # noqa: PLC0415

    validation = run_checks(desired, cat, snap, where)
    validation.intent_hash = intent_hash(loaded.intent)
    validation.lab = lab if where == "live" else None
    saved = options.save_snapshot if where == "live" else None
    validation.origin = next((str(p) for p in (snapshot, saved) if p is not None), None)
    return ValidateResult(validation)
