"""``deadlock``: PFC deadlock risk (cyclic buffer dependency) of an intent's fabric from its routing model
(after link failures too), of a forwarding snapshot file, or InfiniBand credit loops of the LFTs and
SL2VL tables OpenSM programmed (a running lab, or saved infiniband-diags captures)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from xoff.api.collect import NotCollectedError
from xoff.api.intent import IntentSource, load
from xoff.errors import InputError, usage_error
from xoff.progress import ProgressHook, no_progress, stage

if TYPE_CHECKING:
    from xoff.deadlock.routing import Routing
    from xoff.desired.models import FabricState

Kind = Literal["intent", "snapshot", "infiniband"]
FAILURES = (0, 1, 2)


@dataclass(frozen=True)
class DeadlockOptions:
    """Exactly one input: ``intent``, ``snapshot``, ``ib_lab`` or ``ib_dump``."""

    intent: IntentSource | None = None
    snapshot: Path | None = None  # forwarding snapshot file (YAML or JSON)
    ib_lab: str | None = None  # InfiniBand: read this running lab's fabric
    ib_dump: Path | None = None  # InfiniBand: a directory of saved infiniband-diags captures
    failures: int = 0  # intent: also every single (1) / the filtered double (2) link failures
    routing: str = "bgp"  # intent: bgp (RFC 7938 eBGP) or igp (shortest path)
    workers: int = 1  # intent: processes judging the failures (0: one per available core)
    network: str = "compute"  # intent: the RoCE network to analyse
    export_snapshot: Path | None = None  # intent: also write the baseline forwarding snapshot
    sl: tuple[int, ...] | None = None  # InfiniBand: service levels (default all 16)
    save: Path | None = None  # with ib_lab: keep the diag captures here


@dataclass(frozen=True)
class DeadlockResult:
    kind: Kind
    report: Any  # intent: failures.SweepReport; snapshot: analysis.Result; infiniband: credit.IbResult
    exported: int | None = None  # destinations written to ``export_snapshot``

    @property
    def risk(self) -> bool:
        """Deadlock risk (RoCE) or a credit loop (InfiniBand)."""
        return bool(self.report.credit_loop if self.kind == "infiniband" else self.report.deadlock_risk)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = self.report.to_json()
        return data

    def to_text(self) -> str:
        if self.kind == "intent":
            return str(self.report.to_text())
        if self.kind == "snapshot":
            from xoff.deadlock.render import render_text  # noqa: PLC0415

            return render_text(self.report)
        from xoff.deadlock.ib.credit import render_text as ib_text  # noqa: PLC0415

        return ib_text(self.report)


def deadlock(options: DeadlockOptions, progress: ProgressHook = no_progress) -> DeadlockResult:
    """``progress`` hears the stages of an InfiniBand run: ``lab`` (its subnet manager host), ``SM sweep``
    (ibnetdiscover, iblinkinfo), ``LFT dump`` (dump_fts, then the per-port SL2VL and partition queries) and
    ``analysis`` (``read dump`` instead of the first three with ``ib_dump``)."""
    sources = [x for x in (options.intent, options.snapshot, options.ib_lab, options.ib_dump) if x is not None]
    if len(sources) != 1:
        raise usage_error("deadlock: give one input (allowed: INTENT, --snapshot FILE, --ib-lab NAME or --ib-dump DIR)")
    if options.ib_lab is not None or options.ib_dump is not None:
        return _infiniband(options, progress)
    if options.snapshot is not None:
        return _snapshot(options.snapshot)
    assert options.intent is not None
    return _intent(options.intent, options)


def _snapshot(path: Path) -> DeadlockResult:
    from xoff.deadlock.analysis import analyse  # noqa: PLC0415
    from xoff.deadlock.snapshot_file import load_snapshot  # noqa: PLC0415

    return DeadlockResult("snapshot", analyse(load_snapshot(path)))


def export_snapshot_file(state: FabricState, path: Path, *, routing: Routing, network: str) -> int:
    """Write the baseline forwarding snapshot of ``network`` to ``path``; returns the number of destinations."""
    import yaml  # noqa: PLC0415

    from xoff.deadlock.forwarding import build_snapshot, describe  # noqa: PLC0415
    from xoff.deadlock.index_state import fabric_of  # noqa: PLC0415
    from xoff.deadlock.routing import route_all  # noqa: PLC0415
    from xoff.deadlock.snapshot_file import to_document  # noqa: PLC0415

    fab = fabric_of(state, network)
    routes = route_all(fab, routing, fab.down)
    snap = build_snapshot(fab, routes, fab.down, description=describe(fab, routing, ()))
    doc: dict[str, Any] = to_document(snap)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".json":
        text = json.dumps(doc, indent=1) + "\n"
    else:
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        text = yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=None, width=160)
    path.write_text(text, encoding="utf-8")
    return len(snap.forwarding)


def _intent(source: IntentSource, options: DeadlockOptions) -> DeadlockResult:
    from xoff.deadlock.failures import sweep  # noqa: PLC0415
    from xoff.deadlock.index_state import fabric_of  # noqa: PLC0415
    from xoff.deadlock.routing import ROUTINGS  # noqa: PLC0415

    if options.routing not in ROUTINGS:
        raise usage_error(f"--routing: {options.routing!r} is not known (allowed: {', '.join(ROUTINGS)})")
    if options.failures not in FAILURES:
        raise usage_error(f"--failures: {options.failures} is not supported (allowed: 0, 1, 2)")
    if options.workers < 0:
        raise usage_error(f"--workers: {options.workers} is negative (allowed: 0 for one per core, or a count)")
    model: Routing = "bgp" if options.routing == "bgp" else "igp"
    loaded = load(source)
    try:
        fabric_of(loaded.state, options.network)
    except ValueError as exc:
        raise usage_error(f"{loaded.path}: --network: {exc}") from None
    exported = None
    if options.export_snapshot is not None:
        exported = export_snapshot_file(loaded.state, options.export_snapshot, routing=model, network=options.network)
    from xoff.deadlock.pool import default_workers  # noqa: PLC0415

    workers = options.workers or default_workers()
    report = sweep(loaded.state, routing=model, max_failures=options.failures, network=options.network, workers=workers)
    return DeadlockResult("intent", report, exported)


def _infiniband(options: DeadlockOptions, progress: ProgressHook) -> DeadlockResult:
    from xoff.connect.sources import SourceError, open_source  # noqa: PLC0415
    from xoff.contracts.infiniband import IbObservation  # noqa: PLC0415
    from xoff.deadlock.ib.credit import IbAnalysisError, analyse_ib  # noqa: PLC0415
    from xoff.platforms.infiniband.collect import CollectError, collect_sm, save  # noqa: PLC0415
    from xoff.platforms.infiniband.observe import observation_from_dump  # noqa: PLC0415
    from xoff.platforms.infiniband.parse import IbParseError  # noqa: PLC0415

    ib_lab, ib_dump = options.ib_lab, options.ib_dump
    if (ib_lab is None) == (ib_dump is None):
        raise usage_error("give exactly one of --ib-lab NAME or --ib-dump DIR")
    obs: IbObservation
    try:
        if ib_dump is not None:
            with stage(progress, "read dump"):
                obs = observation_from_dump(ib_dump)
        else:
            assert ib_lab is not None
            with stage(progress, "lab"):
                sm_host = open_source("lab", ib_lab, "--ib-lab").subnet_manager()
            collected = collect_sm(sm_host, progress=progress)
            if options.save is not None:
                save(collected, options.save)
            obs = collected.observation
        with stage(progress, "analysis"):
            result = analyse_ib(obs, list(options.sl) if options.sl else None)
    except (IbParseError, IbAnalysisError) as exc:
        raise usage_error(f"{ib_dump or ib_lab}: {exc}") from None
    except InputError as exc:  # no such lab is up
        why = "; ".join(p.message for p in exc.sorted())
        raise NotCollectedError(f"{ib_lab}: could not read the fabric: {why}") from None
    except (CollectError, SourceError, OSError) as exc:
        raise NotCollectedError(f"{ib_lab}: could not read the fabric: {exc}") from None
    return DeadlockResult("infiniband", result)
