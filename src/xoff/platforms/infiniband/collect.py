"""Collect an InfiniBand fabric's running state with infiniband-diags on the subnet manager host.

``collect_infiniband(run)`` needs only a way to run one diags command on a host attached to the
fabric (``run(argv) -> stdout``, raising :class:`CollectError` when the command fails): the lab's
runner (:func:`lab_runner`: the SM host's namespace, ibsim's umad2sim preloaded) or, on a real
fabric, an SSH session to the SM host. First the fabric-wide dumps (ibnetdiscover, dump_fts,
iblinkinfo), then per port: SL2VL and VL arbitration on every cabled switch port and CA port,
PKeys on CA ports. Returns the raw captures (the dump directory's layout, see ``observe``) and the
parsed :class:`IbObservation`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from xoff.platforms.infiniband import observe
from xoff.platforms.infiniband.model import IbObservation
from xoff.platforms.infiniband.observe import Captures

Runner = Callable[[list[str]], str]
BatchRunner = Callable[[list[list[str]]], list[str]]  # many commands in one session, outputs in order
_END = "@@xoff-ib-end"  # a line after each command's output in a batch, with its exit status
WORKERS = 2  # ibsim answers one MAD at a time (~20 ms a query): more clients in flight gain nothing
# Which per-port smpquery tables to read, by node kind: everything the checks judge, or only what the
# credit-loop analysis needs (switch SL2VL: host links never lie on a credit loop).
ALL_TABLES: Mapping[str, Collection[str]] = {"switch": ("sl2vl", "vlarb"), "ca": ("sl2vl", "vlarb", "pkeys")}
ROUTING_TABLES: Mapping[str, Collection[str]] = {"switch": ("sl2vl",), "ca": ()}
IBSIM_SPEED_CAP = "HDR"  # xoff.lab.ibsim.IBSIM_FASTEST: ibsim 0.10 models links up to HDR


class CollectError(RuntimeError):
    """A diags command failed (not a parse error: the fabric could not be read)."""


@dataclass(frozen=True)
class Collected:
    observation: IbObservation
    captures: Captures


def _port_queries(obs: IbObservation, tables: Mapping[str, Collection[str]]) -> list[tuple[str, list[str]]]:
    """(capture name, argv) of every per-port smpquery the observation's topology calls for."""
    out: list[tuple[str, list[str]]] = []
    for node in obs.nodes.values():
        for port in node.ports.values():
            if port.peer is None:
                continue  # an uncabled port carries no traffic
            lid = node.lid if node.kind == "switch" else port.lid
            if lid is None:
                continue  # no LID yet: the SM has not brought the port up
            for kind in tables.get(node.kind, ()):
                out.append(
                    (observe.per_port_name(kind, lid, port.number), ["smpquery", kind, str(lid), str(port.number)])
                )
    return out


def collect_infiniband(
    run: Runner,
    source: str,
    opensm_log: str | None = None,
    speed_cap: str | None = None,
    workers: int = WORKERS,
    tables: Mapping[str, Collection[str]] = ALL_TABLES,
    run_batch: BatchRunner | None = None,
) -> Collected:
    """Read the fabric through ``run`` (per-port queries through ``run_batch`` when given);
    ``opensm_log`` is the SM's log text when it can be read."""
    captures: Captures = {
        observe.IBNETDISCOVER: run(["ibnetdiscover"]),
        observe.DUMP_FTS: run(["dump_fts"]),
        observe.IBLINKINFO: run(["iblinkinfo"]),
    }
    if opensm_log is not None:
        captures[observe.OPENSM_LOG] = opensm_log
    topology = observe.observation(captures, source, speed_cap)
    queries = _port_queries(topology, tables)
    argvs = [argv for _, argv in queries]
    if run_batch is not None and argvs:  # one session per worker: process start-up dominates a query
        size = -(-len(argvs) // max(1, workers))
        chunks = [argvs[i : i + size] for i in range(0, len(argvs), size)]
        with ThreadPoolExecutor(len(chunks)) as pool:
            outputs = [out for part in pool.map(run_batch, chunks) for out in part]
    else:
        with ThreadPoolExecutor(max(1, workers)) as pool:
            outputs = list(pool.map(run, argvs))
    captures.update({name: text for (name, _), text in zip(queries, outputs, strict=True)})
    return Collected(observe.observation(captures, source, speed_cap), captures)


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


def lab_runner(lab: str, root: Path | None = None) -> tuple[Runner, BatchRunner, str, str | None]:
    """(runner and batch runner on the lab's SM host, source label, OpenSM's log text) for a lab that is up."""
    from xoff.lab.lab import LabError, resolve  # noqa: PLC0415 (the lab layer only when a lab is read)
    from xoff.lab.observe import TIMEOUT_S, run_in  # noqa: PLC0415

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
    return run, run_batch, f"lab {state.name}, {sm_host}", text


def collect_lab(lab: str, root: Path | None = None, tables: Mapping[str, Collection[str]] = ALL_TABLES) -> Collected:
    """``collect_infiniband`` on a lab's SM host (ibsim: link speeds capped at HDR)."""
    run, run_batch, source, log = lab_runner(lab, root)
    return collect_infiniband(
        run, source, opensm_log=log, speed_cap=IBSIM_SPEED_CAP, tables=tables, run_batch=run_batch
    )


def save(collected: Collected, directory: Path) -> None:
    """The raw captures as a dump directory (``--ib-dump DIR``) and the observation as JSON beside them."""
    observe.save_captures(
        collected.captures,
        directory,
        meta={"source": collected.observation.source, "speed_cap": collected.observation.speed_cap},
    )


def to_json(obs: IbObservation) -> str:
    return obs.model_dump_json(indent=2)


def from_json(text: str) -> IbObservation:
    return IbObservation.model_validate_json(text)
