"""Collect an InfiniBand fabric's running state with infiniband-diags on the subnet manager host.

``collect_infiniband(run)`` needs only a way to run one diags command on a host attached to the
fabric (``run(argv) -> stdout``, raising :class:`CollectError` when the command fails).
:func:`collect_sm` builds it from the subnet manager host a target source gives (``SmHost``: the
lab's runs in its SM host's namespace; on a real fabric, an SSH session to the SM host would), whose
batches are ``xoff.connect.batch``'s (a nonce per call); this module only builds commands and parses.
First the fabric-wide dumps (ibnetdiscover, dump_fts, iblinkinfo), then per port: SL2VL and VL arbitration on every cabled switch port and CA port, and
the PKey table of every cabled port, switches' included, as the SA has it (``saquery --smkey KEY
PKeyTableRecord LID/PORT``, trusted with the running OpenSM's SA key, see ``sakey``). Returns the raw
captures (the dump directory's layout, see ``observe``) and the parsed :class:`IbObservation`.

PKeyTableRecords are asked per port, not fabric-wide: a fabric-wide answer spans many MADs (RMPP),
and ibsim delivers only the first (two records) without an error, so a fabric-wide dump would read
as complete when it is not. When the SA refuses the query (SA_ERR_REQ_INVALID: the key is not its
sa_key), the tables are read per port through the SMP (``smpquery pkeys``) and a note says so. The SA
key is masked (``SaKey.mask``) in every capture and error message.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from xoff.contracts.infiniband import IbObservation
from xoff.platforms.infiniband import observe, sakey
from xoff.platforms.infiniband.observe import Captures
from xoff.platforms.infiniband.sakey import OpenSmConfig, SaKey
from xoff.progress import ProgressHook, no_progress, stage

Runner = Callable[[list[str]], str]
BatchRunner = Callable[[list[list[str]]], list[str]]  # many commands in one session, outputs in order
A = TypeVar("A")  # what a runner takes: one command, or a batch
R = TypeVar("R")  # ... and gives back
WORKERS = 2  # ibsim answers one MAD at a time (~20 ms a query): more clients in flight gain nothing
# Per-port queries per batch, at most: a batch is one session, so a long dump shows progress batch by batch (a
# session's start is a few ms, a batch of this size some seconds)
BATCH_MAX = 64
# Which per-port tables to read, by node kind: everything the checks judge, or only what the
# credit-loop analysis needs (switch SL2VL: host links never lie on a credit loop). "pkeys" is read
# from the SA (saquery), the others through the SMP (smpquery).
ALL_TABLES: Mapping[str, Collection[str]] = {
    "switch": ("sl2vl", "vlarb", "pkeys"),
    "ca": ("sl2vl", "vlarb", "pkeys"),
}
# What saquery prints when the SA does not trust the key: an untrusted (zero) key is answered with an
# error, a wrong non-zero key is ignored by OpenSM ("SA MAD ignored", its log), so the query times out.
SA_REFUSED = {
    "SA_ERR_REQ_INVALID": "the SA refused saquery PKeyTableRecord (SA_ERR_REQ_INVALID)",
    "Query SA failed: Connection timed out": "the SA did not answer saquery PKeyTableRecord (OpenSM ignores "
    "a query whose key is not its sa_key)",
}
ROUTING_TABLES: Mapping[str, Collection[str]] = {"switch": ("sl2vl",), "ca": ()}


class CollectError(RuntimeError):
    """A diags command failed (not a parse error: the fabric could not be read)."""


@dataclass(frozen=True)
class Collected:
    observation: IbObservation
    captures: Captures


def _ports(obs: IbObservation, tables: Mapping[str, Collection[str]], kind: str) -> list[tuple[int, int]]:
    """(LID, port) of every cabled port whose node kind ``tables`` reads ``kind`` on (a switch port by the
    switch's LID)."""
    out: list[tuple[int, int]] = []
    for node in obs.nodes.values():
        if kind not in tables.get(node.kind, ()):
            continue
        for port in node.ports.values():
            if port.peer is None:
                continue  # an uncabled port carries no traffic
            lid = node.lid if node.kind == "switch" else port.lid
            if lid is not None:  # no LID yet: the SM has not brought the port up
                out.append((lid, port.number))
    return out


def _port_queries(obs: IbObservation, tables: Mapping[str, Collection[str]]) -> list[tuple[str, list[str]]]:
    """(capture name, argv) of every per-port smpquery the observation's topology calls for (PKeys aside)."""
    return [
        (observe.per_port_name(kind, lid, port), ["smpquery", kind, str(lid), str(port)])
        for kind in ("sl2vl", "vlarb")
        for lid, port in _ports(obs, tables, kind)
    ]


def _sa_pkey_query(key: SaKey, lid: int, port: int) -> tuple[str, list[str]]:
    argv = ["saquery", "--smkey", key.argument, "PKeyTableRecord", f"{lid}/{port}"]
    return observe.per_port_name(observe.SA_PKEYS, lid, port), argv


def _pkey_queries(
    run: Runner, obs: IbObservation, tables: Mapping[str, Collection[str]], key: SaKey
) -> tuple[list[tuple[str, list[str]]], Captures, list[str]]:
    """(queries still to run, captures already read, notes): the first port asks the SA, which tells
    whether it trusts the key; if it refuses, every port is read with ``smpquery pkeys`` instead."""
    ports = _ports(obs, tables, "pkeys")
    if not ports:
        return [], {}, []
    name, argv = _sa_pkey_query(key, *ports[0])
    try:
        first = run(argv)
    except CollectError as exc:
        why = next((text for sign, text in SA_REFUSED.items() if sign in str(exc)), None)
        if why is None:
            raise
        note = f"PKey tables read per port with smpquery pkeys: {why} with the key of the running OpenSM ({key.origin})"
        return (
            [(observe.per_port_name("pkeys", lid, p), ["smpquery", "pkeys", str(lid), str(p)]) for lid, p in ports],
            {},
            [note],
        )
    return [_sa_pkey_query(key, lid, p) for lid, p in ports[1:]], {name: first}, []


def _masking(call: Callable[[A], R], key: SaKey | None) -> Callable[[A], R]:
    """``call`` (one command or a batch) whose errors never show the SA key (they name the command, which carries
    it)."""
    if key is None:
        return call

    def masked(argv: A) -> R:
        try:
            return call(argv)
        except CollectError as exc:
            raise CollectError(key.mask(str(exc))) from None
        except Exception as exc:  # a timeout names the command, and the command carries the key
            raise CollectError(key.mask(f"{type(exc).__name__}: {exc}")) from None

    return masked


def opensm_config(run: Runner, opensm_argv: list[str] | None) -> OpenSmConfig:
    """The running OpenSM's SA key and part_enforce: its config file read on the SM host through ``run``."""

    def read(path: str) -> str | None:
        try:
            return run(["cat", "--", path])
        except CollectError:
            return None

    return sakey.read_config(read, opensm_argv)


def _query_ports(
    run: Runner, batch: BatchRunner | None, argvs: list[list[str]], workers: int, progress: ProgressHook
) -> list[str]:
    """The per-port queries' outputs in order, in ``workers`` sessions (one batch each when ``batch`` is given); a
    step of the stage ``LFT dump`` per batch or query done."""
    if batch is not None and argvs:  # batches of queries in sessions: process start-up dominates a query
        size = min(-(-len(argvs) // max(1, workers)), BATCH_MAX)
        chunks = [argvs[i : i + size] for i in range(0, len(argvs), size)]
        with stage(progress, "LFT dump", len(chunks) + 1) as steps:
            steps.step("dump_fts")

            def one_batch(chunk: list[list[str]]) -> list[str]:
                out = batch(chunk)
                steps.step(f"{len(chunk)} port queries")
                return out

            with ThreadPoolExecutor(min(len(chunks), max(1, workers))) as pool:
                return [out for part in pool.map(one_batch, chunks) for out in part]
    with stage(progress, "LFT dump", len(argvs) + 1) as steps:
        steps.step("dump_fts")

        def one(argv: list[str]) -> str:
            out = run(argv)
            steps.step(" ".join(argv[:2]))
            return out

        with ThreadPoolExecutor(max(1, workers)) as pool:
            return list(pool.map(one, argvs))


def collect_infiniband(
    run: Runner,
    source: str,
    opensm_log: str | None = None,
    speed_cap: str | None = None,
    workers: int = WORKERS,
    tables: Mapping[str, Collection[str]] = ALL_TABLES,
    run_batch: BatchRunner | None = None,
    opensm_argv: list[str] | None = None,
    progress: ProgressHook = no_progress,
) -> Collected:
    """Read the fabric through ``run`` (per-port queries through ``run_batch`` when given);
    ``opensm_log`` is the SM's log text when it can be read; ``opensm_argv`` the running OpenSM's
    command line (its config file holds the SA key; None: OpenSM's default config file). ``progress`` hears the
    stages ``SM sweep`` (the fabric as the SM swept it: ibnetdiscover, iblinkinfo) and ``LFT dump`` (dump_fts, then
    the per-port tables)."""
    wants_pkeys = any("pkeys" in kinds for kinds in tables.values())
    config = opensm_config(run, opensm_argv) if wants_pkeys else None
    key = config.sa_key if config else None
    run = _masking(run, key)
    with stage(progress, "SM sweep", 2) as sweep:
        captures: Captures = {observe.IBNETDISCOVER: run(["ibnetdiscover"])}
        sweep.step("ibnetdiscover")
        captures[observe.IBLINKINFO] = run(["iblinkinfo"])
        sweep.step("iblinkinfo")
    captures[observe.DUMP_FTS] = run(["dump_fts"])
    if opensm_log is not None:
        captures[observe.OPENSM_LOG] = opensm_log
    topology = observe.observation(captures, source, speed_cap)
    queries = _port_queries(topology, tables)
    notes: list[str] = []
    if key is not None:
        pkey_queries, read, notes = _pkey_queries(run, topology, tables, key)
        queries += pkey_queries
        captures.update(read)
    batch = _masking(run_batch, key) if run_batch is not None else None
    outputs = _query_ports(run, batch, [argv for _, argv in queries], workers, progress)
    captures.update({name: text for (name, _), text in zip(queries, outputs, strict=True)})
    enforcement = config.partition_enforcement if config else None
    observation = observe.observation(captures, source, speed_cap, enforcement, notes)
    if key is not None:  # nothing read should show the key; OpenSM's log does when a query was refused
        captures = {name: key.mask(text) for name, text in captures.items()}
    return Collected(observation, captures)


class CommandResult(Protocol):
    """What one command left: its exit status and output (``xoff.connect.batch.Ran``)."""

    @property
    def status(self) -> int: ...

    @property
    def stdout(self) -> str: ...

    @property
    def stderr(self) -> str: ...


class SmHost(Protocol):
    """The subnet manager host as a target source gives it (``xoff.connect.sources.SubnetManagerHost``):
    the collector builds the commands and parses; the connection layer runs them."""

    @property
    def host(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def opensm_log(self) -> str | None: ...

    @property
    def opensm_argv(self) -> list[str] | None: ...

    @property
    def speed_cap(self) -> str | None: ...

    def run(self, argv: list[str]) -> CommandResult: ...

    def run_batch(self, argvs: list[list[str]]) -> Sequence[CommandResult | None]: ...


def sm_runners(sm: SmHost) -> tuple[Runner, BatchRunner]:
    """``Runner`` and ``BatchRunner`` on the SM host: a failed command is a CollectError."""

    def run(argv: list[str]) -> str:
        done = sm.run(argv)
        if done.status != 0:
            raise CollectError(f"{sm.host}: {' '.join(argv)} exited {done.status}: {done.stderr.strip()[:200]}")
        return done.stdout

    def run_batch(argvs: list[list[str]]) -> list[str]:
        outputs: list[str] = []
        for argv, one in zip(argvs, sm.run_batch(argvs), strict=True):
            if one is None:
                raise CollectError(f"{' '.join(argv)}: no output (the batch ended early)")
            if one.status != 0:
                raise CollectError(f"{' '.join(argv)} exited {one.status}")
            outputs.append(one.stdout)
        return outputs

    return run, run_batch


def collect_sm(
    sm: SmHost, tables: Mapping[str, Collection[str]] = ALL_TABLES, progress: ProgressHook = no_progress
) -> Collected:
    """``collect_infiniband`` on a subnet manager host a target source gives (``TargetSource.subnet_manager``)."""
    run, run_batch = sm_runners(sm)
    return collect_infiniband(
        run,
        sm.source,
        opensm_log=sm.opensm_log,
        speed_cap=sm.speed_cap,
        tables=tables,
        run_batch=run_batch,
        opensm_argv=sm.opensm_argv,
        progress=progress,
    )


def save(collected: Collected, directory: Path) -> None:
    """The raw captures as a dump directory (``--ib-dump DIR``) and the observation as JSON beside them."""
    obs = collected.observation
    observe.save_captures(
        collected.captures,
        directory,
        meta={
            "source": obs.source,
            "speed_cap": obs.speed_cap,
            "partition_enforcement": obs.partition_enforcement,
            "notes": obs.notes,
        },
    )


def to_json(obs: IbObservation) -> str:
    return obs.model_dump_json(indent=2)


def from_json(text: str) -> IbObservation:
    return IbObservation.model_validate_json(text)
