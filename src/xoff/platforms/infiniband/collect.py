"""Collect an InfiniBand fabric's running state with infiniband-diags on the subnet manager host.

``collect_infiniband(run)`` needs only a way to run one diags command on a host attached to the
fabric (``run(argv) -> stdout``, raising :class:`CollectError` when the command fails): the lab's
runner (:func:`lab_runner`: the SM host's namespace, ibsim's umad2sim preloaded) or, on a real
fabric, an SSH session to the SM host. First the fabric-wide dumps (ibnetdiscover, dump_fts,
iblinkinfo), then per port: SL2VL and VL arbitration on every cabled switch port and CA port, and
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

import shlex
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from xoff.contracts.infiniband import IbObservation
from xoff.platforms.infiniband import observe, sakey
from xoff.platforms.infiniband.observe import Captures
from xoff.platforms.infiniband.sakey import OpenSmConfig, SaKey

Runner = Callable[[list[str]], str]
BatchRunner = Callable[[list[list[str]]], list[str]]  # many commands in one session, outputs in order
_END = "@@xoff-ib-end"  # a line after each command's output in a batch, with its exit status
WORKERS = 2  # ibsim answers one MAD at a time (~20 ms a query): more clients in flight gain nothing
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
IBSIM_SPEED_CAP = "HDR"  # xoff.lab.ibsim.IBSIM_FASTEST: ibsim 0.10 models links up to HDR


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


def _masking(run: Runner, key: SaKey | None) -> Runner:
    """``run`` whose errors never show the SA key (they name the command, which carries it)."""
    if key is None:
        return run

    def masked(argv: list[str]) -> str:
        try:
            return run(argv)
        except CollectError as exc:
            raise CollectError(key.mask(str(exc))) from None
        except Exception as exc:  # a timeout names the command, and the command carries the key
            raise CollectError(key.mask(f"{type(exc).__name__}: {exc}")) from None

    return masked


def _masking_batch(run_batch: BatchRunner, key: SaKey | None) -> BatchRunner:
    if key is None:
        return run_batch

    def masked(argvs: list[list[str]]) -> list[str]:
        try:
            return run_batch(argvs)
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


def collect_infiniband(
    run: Runner,
    source: str,
    opensm_log: str | None = None,
    speed_cap: str | None = None,
    workers: int = WORKERS,
    tables: Mapping[str, Collection[str]] = ALL_TABLES,
    run_batch: BatchRunner | None = None,
    opensm_argv: list[str] | None = None,
) -> Collected:
    """Read the fabric through ``run`` (per-port queries through ``run_batch`` when given);
    ``opensm_log`` is the SM's log text when it can be read; ``opensm_argv`` the running OpenSM's
    command line (its config file holds the SA key; None: OpenSM's default config file)."""
    wants_pkeys = any("pkeys" in kinds for kinds in tables.values())
    config = opensm_config(run, opensm_argv) if wants_pkeys else None
    key = config.sa_key if config else None
    run = _masking(run, key)
    captures: Captures = {
        observe.IBNETDISCOVER: run(["ibnetdiscover"]),
        observe.DUMP_FTS: run(["dump_fts"]),
        observe.IBLINKINFO: run(["iblinkinfo"]),
    }
    if opensm_log is not None:
        captures[observe.OPENSM_LOG] = opensm_log
    topology = observe.observation(captures, source, speed_cap)
    queries = _port_queries(topology, tables)
    notes: list[str] = []
    if key is not None:
        pkey_queries, read, notes = _pkey_queries(run, topology, tables, key)
        queries += pkey_queries
        captures.update(read)
    argvs = [argv for _, argv in queries]
    if run_batch is not None and argvs:  # one session per worker: process start-up dominates a query
        batch = _masking_batch(run_batch, key)
        size = -(-len(argvs) // max(1, workers))
        chunks = [argvs[i : i + size] for i in range(0, len(argvs), size)]
        with ThreadPoolExecutor(len(chunks)) as pool:
            outputs = [out for part in pool.map(batch, chunks) for out in part]
    else:
        with ThreadPoolExecutor(max(1, workers)) as pool:
            outputs = list(pool.map(run, argvs))
    captures.update({name: text for (name, _), text in zip(queries, outputs, strict=True)})
    enforcement = config.partition_enforcement if config else None
    observation = observe.observation(captures, source, speed_cap, enforcement, notes)
    if key is not None:  # nothing read should show the key; OpenSM's log does when a query was refused
        captures = {name: key.mask(text) for name, text in captures.items()}
    return Collected(observation, captures)


def split_batch(argvs: list[list[str]], text: str) -> list[str]:
    """The outputs of a batch run by :func:`batch_script`; raises CollectError on a failed command."""
    outputs: list[str] = []
    rest = text
    for argv in argvs:
        out, sep, rest = rest.partition(f"{_END} ")
        status, _, rest = rest.partition("\n")
        if not sep:
            raise CollectError(f"{' '.join(argv)}: no output (the batch ended early)")
        if status.strip() != "0":
            raise CollectError(f"{' '.join(argv)} exited {status.strip()}")
        outputs.append(out)
    return outputs


def batch_script(argvs: list[list[str]]) -> str:
    """A POSIX shell script running each command, each output followed by an end line with its status."""
    return "".join(f'{shlex.join(a)}; echo "{_END} $?"\n' for a in argvs)


@dataclass(frozen=True)
class LabSm:
    """How to read a lab's fabric on its SM host."""

    run: Runner
    run_batch: BatchRunner
    source: str
    opensm_log: str | None  # OpenSM's log text
    opensm_argv: list[str] | None  # the running OpenSM's command line (None: not running)


def _running_argv(pid: int) -> list[str] | None:
    """A process's command line as the kernel has it (the lab shares the controller's PID namespace)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [a.decode("utf-8", errors="replace") for a in raw.split(b"\0") if a] or None


def lab_runner(lab: str, root: Path | None = None) -> LabSm:
    """Runners on the lab's SM host, source label, OpenSM's log and command line, for a lab that is up."""
    from xoff.lab.lab import LabError, resolve  # noqa: PLC0415 (the lab layer only when a lab is read)
    from xoff.lab.observe import TIMEOUT_S, run_in  # noqa: PLC0415
    from xoff.lab.processes import alive  # noqa: PLC0415

    try:
        state = resolve(lab, root)
    except LabError as exc:
        raise CollectError(str(exc)) from None
    if state.ib is None:
        raise CollectError(f"lab {state.name} has no InfiniBand fabric")
    sm_host = state.ib.sm_host

    def run(argv: list[str]) -> str:
        done = run_in(state, sm_host, argv, timeout=TIMEOUT_S)
        if done.returncode != 0:
            raise CollectError(f"{sm_host}: {' '.join(argv)} exited {done.returncode}: {done.stderr.strip()[:200]}")
        return done.stdout

    def run_batch(argvs: list[list[str]]) -> list[str]:
        done = run_in(state, sm_host, ["sh", "-c", batch_script(argvs)], timeout=TIMEOUT_S + len(argvs))
        return split_batch(argvs, done.stdout)

    log = Path(state.ib.opensm_log)
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else None
    record = state.processes.get(f"{sm_host}/opensm")
    argv = _running_argv(record.pid) if record is not None and alive(record) else None
    return LabSm(run, run_batch, f"lab {state.name}, {sm_host}", text, argv)


def collect_lab(lab: str, root: Path | None = None, tables: Mapping[str, Collection[str]] = ALL_TABLES) -> Collected:
    """``collect_infiniband`` on a lab's SM host (ibsim: link speeds capped at HDR)."""
    sm = lab_runner(lab, root)
    return collect_infiniband(
        sm.run,
        sm.source,
        opensm_log=sm.opensm_log,
        speed_cap=IBSIM_SPEED_CAP,
        tables=tables,
        run_batch=sm.run_batch,
        opensm_argv=sm.opensm_argv,
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
