"""The lab's gNMI server: ``python -m xoff.lab.gnmi.server --dialect sonic|cumulus --state-dir DIR --listen
HOST:PORT [--credentials FILE] [--tls-dir DIR]``, run in a switch's namespace beside its SSH emulator.

``sonic``: SONiC's telemetry service (port 8080, ``--insecure`` as its documentation runs it for testing):
Capabilities, Get and Subscribe ONCE, POLL and STREAM (SAMPLE) on target ``COUNTERS_DB`` (see ``sonic.py``).
``cumulus``: Cumulus Linux's gNMI server (port 9339, TLS with a self-signed certificate): Capabilities and
Subscribe STREAM (SAMPLE), and Get refused as NVIDIA documents it (see ``cumulus.py``). Every answer is read
from the device's ``counters.json`` when it is sent, so a counter that rises moves between samples.

A ``--credentials`` file (``username`` and ``password`` lines, as the lab's secrets hold them) makes every
RPC require that pair in its metadata, as the real servers' password authentication does.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from xoff.lab.gnmi import cumulus, sonic

ONCE, POLL, STREAM = "ONCE", "POLL", "STREAM"
DEFAULT_SAMPLE_NS = 10_000_000_000


def _now_ns() -> int:
    return time.time_ns()


def _names(path: Any) -> list[str]:
    return [e.name for e in path.elem] or list(path.element)


class Dialect(ABC):
    """What one NOS serves: its notifications for a prefix and paths, and whether it answers Get."""

    name = ""
    get_supported = True
    modes: frozenset[str] = frozenset({ONCE, POLL, STREAM})

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir

    @abstractmethod
    def notifications(self, prefix: Any, paths: list[Any]) -> list[Any]: ...


class Sonic(Dialect):
    name = "sonic"

    def notifications(self, prefix: Any, paths: list[Any]) -> list[Any]:
        db = sonic.CountersDb(self.state_dir, time.time())
        updates = []
        for path in paths:
            target = prefix.target or path.target
            if target != sonic.TARGET:
                raise LookupError(f"unsupported target {target!r} (this server serves {sonic.TARGET})")
            value = sonic.lookup(db, _names(prefix) + _names(path))
            val = (
                gnmi_pb2.TypedValue(string_val=value)
                if isinstance(value, str)
                else gnmi_pb2.TypedValue(json_ietf_val=json.dumps(value, indent=2, sort_keys=True).encode())
            )
            updates.append(gnmi_pb2.Update(path=gnmi_pb2.Path(elem=list(path.elem)), val=val))
        return [gnmi_pb2.Notification(timestamp=_now_ns(), prefix=gnmi_pb2.Path(target=sonic.TARGET), update=updates)]


class Cumulus(Dialect):
    name = "cumulus"
    get_supported = False
    modes = frozenset({STREAM})

    def notifications(self, prefix: Any, paths: list[Any]) -> list[Any]:
        """One notification per list entry (a port's switch priority, a queue), its path the prefix and the
        leaves relative to it, as NVIDIA's subscription response example shows (``prefix`` + ``state/...``)."""
        wanted = [tuple(_elems(prefix)) + tuple(_elems(p)) for p in paths]
        groups: dict[tuple[cumulus.Elem, ...], list[Any]] = {}
        for leaf in cumulus.leaves(self.state_dir, time.time()):
            if any(cumulus.matches(w, leaf.elems) for w in wanted):
                head, tail = leaf.elems[: leaf.split], leaf.elems[leaf.split :]
                groups.setdefault(head, []).append(
                    gnmi_pb2.Update(path=_path(tail), val=gnmi_pb2.TypedValue(uint_val=leaf.value))
                )
        if not groups:
            raise LookupError("no such path")
        stamp = _now_ns()
        return [gnmi_pb2.Notification(timestamp=stamp, prefix=_path(h), update=u) for h, u in groups.items()]


def _path(elems: tuple[cumulus.Elem, ...]) -> Any:
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n, key=dict(k)) for n, k in elems])


def _elems(path: Any) -> list[cumulus.Elem]:
    return [(e.name, tuple(sorted(e.key.items()))) for e in path.elem]


class Service(gnmi_pb2_grpc.gNMIServicer):  # type: ignore[misc]
    def __init__(self, dialect: Dialect, credentials: tuple[str, str] | None) -> None:
        self.dialect = dialect
        self.credentials = credentials

    def _auth(self, context: Any) -> None:
        if self.credentials is None:
            return
        meta = dict(context.invocation_metadata())
        if (meta.get("username"), meta.get("password")) != self.credentials:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "authentication failed")

    def Capabilities(self, _request: Any, context: Any) -> Any:  # noqa: N802 (the gNMI service's method name)
        self._auth(context)
        if self.dialect.name == "sonic":
            return gnmi_pb2.CapabilityResponse(supported_encodings=[gnmi_pb2.JSON_IETF], gNMI_version="0.7.0")
        encodings = [gnmi_pb2.JSON, gnmi_pb2.JSON_IETF, gnmi_pb2.PROTO]  # NVIDIA's capabilities example
        return gnmi_pb2.CapabilityResponse(supported_encodings=encodings, gNMI_version="0.10.0")

    def Get(self, request: Any, context: Any) -> Any:  # noqa: N802
        self._auth(context)
        if not self.dialect.get_supported:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "Get is not supported")
        try:
            return gnmi_pb2.GetResponse(notification=self.dialect.notifications(request.prefix, list(request.path)))
        except LookupError as exc:
            context.abort(grpc.StatusCode.NOT_FOUND, str(exc))

    def Subscribe(self, request_iterator: Iterator[Any], context: Any) -> Iterator[Any]:  # noqa: N802
        self._auth(context)
        first = next(request_iterator)
        subs = first.subscribe
        mode = gnmi_pb2.SubscriptionList.Mode.Name(subs.mode)
        if mode not in self.dialect.modes:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, f"subscription mode {mode} is not supported")
        paths = [s.path for s in subs.subscription]
        try:
            yield from self._round(subs.prefix, paths)
        except LookupError as exc:
            context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
        if mode == POLL:
            for req in request_iterator:
                if req.HasField("poll"):
                    yield from self._round(subs.prefix, paths)
        elif mode == STREAM:
            intervals = [s.sample_interval for s in subs.subscription if s.sample_interval]
            interval = (min(intervals) if intervals else DEFAULT_SAMPLE_NS) / 1e9
            stop = threading.Event()
            context.add_callback(stop.set)
            while not stop.wait(interval):  # the sample interval the client asked for, until it goes away
                for note in self.dialect.notifications(subs.prefix, paths):
                    yield gnmi_pb2.SubscribeResponse(update=note)

    def _round(self, prefix: Any, paths: list[Any]) -> Iterator[Any]:
        for note in self.dialect.notifications(prefix, paths):
            yield gnmi_pb2.SubscribeResponse(update=note)
        yield gnmi_pb2.SubscribeResponse(sync_response=True)


DIALECTS: dict[str, type[Dialect]] = {"sonic": Sonic, "cumulus": Cumulus}


def build(dialect: str, state_dir: Path, credentials: tuple[str, str] | None = None, workers: int = 4) -> Any:
    """A server for one device, not yet bound or started."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers))
    gnmi_pb2_grpc.add_gNMIServicer_to_server(Service(DIALECTS[dialect](state_dir), credentials), server)
    return server


def bind(server: Any, listen: str, tls: Path | None = None) -> int:
    """Bind ``listen`` (in the calling thread's network namespace), with TLS from ``tls/server.{key,crt}`` or
    without; the port bound (``listen`` may say port 0)."""
    if tls is None:
        return int(server.add_insecure_port(listen))
    key, cert = (tls / "server.key").read_bytes(), (tls / "server.crt").read_bytes()
    return int(server.add_secure_port(listen, grpc.ssl_server_credentials([(key, cert)])))


def serve(
    dialect: str, state_dir: Path, listen: str, credentials: tuple[str, str] | None = None, tls: Path | None = None
) -> tuple[Any, int]:
    """Start a server; returns it and the port it bound."""
    server = build(dialect, state_dir, credentials)
    port = bind(server, listen, tls)
    server.start()
    return server, port


def read_credentials(path: Path) -> tuple[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[0].strip(), lines[1].strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xoff.lab.gnmi.server")
    parser.add_argument("--dialect", choices=sorted(DIALECTS), required=True)
    parser.add_argument("--state-dir", type=Path, required=True)
    parser.add_argument("--listen", required=True)
    parser.add_argument("--credentials", type=Path)
    parser.add_argument("--tls-dir", type=Path)
    args = parser.parse_args(argv)
    creds = read_credentials(args.credentials) if args.credentials else None
    server, port = serve(args.dialect, args.state_dir, args.listen, creds, args.tls_dir)
    print(f"gnmi {args.dialect} listening on port {port}", flush=True)
    server.wait_for_termination()
    return 0


if __name__ == "__main__":
    sys.exit(main())
