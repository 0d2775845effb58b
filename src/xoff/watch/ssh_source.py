"""``SshCounterSource``: one read of each device's counters over SSH, one batch per device per round.

Each device's commands are its platform's counter commands only (``Platform.watch``, a ``CounterReader``: never
the whole collect), run through the connection layer the collector uses (``connect.session.open_session``, the
same netmiko options, exec-channel batches where the platform has them) and parsed into ``Reading``s named by the
metric catalogue. A host's commands and parse are ``xoff.watch.host_readings`` (``host_commands`` and
``host_readings``), looked up by name at run time: without that module, hosts are read as errors saying so.

One session per device is opened on its first read and kept for the next rounds; a session whose read failed
(unreachable, timed out, refused) is closed and dropped, and the next round opens a new one. ``close`` (or the
``with`` block's end) closes them all. A device that cannot be read is a ``Sample`` with ``error`` (one line,
secrets masked) and no readings; the other devices carry on. A command that failed while others were read leaves
its series out (not observed); the Sample's ``error`` is set only when nothing at all was read.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Any

from xoff.connect.credentials import CredentialSet, mask
from xoff.connect.session import CommandSession, Connector, ConnectSpec, classify, open_session
from xoff.connect.targets import Target, build_targets
from xoff.contracts.collect import Command, refused
from xoff.desired.models import Device, FabricState
from xoff.platforms.registry import get_platform
from xoff.watch.readings import CounterReader, Read
from xoff.watch.sample import Sample

HOST_MODULE = "xoff.watch.host_readings"
LOST = ("unreachable", "timeout", "auth")  # a session that failed so is not kept


class ReadError(RuntimeError):
    """One device could not be read (the message is the Sample's error)."""


class _HostReader:
    """``xoff.watch.host_readings`` as a ``CounterReader`` (its ``host_commands`` and ``host_readings``)."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def commands(self, device: Device) -> list[Command]:
        return list(self.module.host_commands(device))

    def read(self, outputs: Mapping[str, str], device: Device) -> Read:
        got = self.module.host_readings(outputs, device)
        return Read(list(got.readings), dict(got.unmodelled), list(got.errors))


def reader_for(target: Target) -> CounterReader:
    """The counter commands of ``target``'s platform (a host's: ``xoff.watch.host_readings``); ReadError if none."""
    if target.kind == "host":
        try:
            return _HostReader(importlib.import_module(HOST_MODULE))
        except ImportError:
            raise ReadError(f"hosts are not watched in this build ({HOST_MODULE} is missing)") from None
    record = get_platform(target.platform).watch
    if record is None:
        raise ReadError(f"platform {target.platform} has no counter commands for xoff watch")
    return record.load()


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


class SshCounterSource:
    """Counters over SSH for the devices of ``fabric`` (see the module doc)."""

    name = "ssh"

    def __init__(
        self,
        fabric: FabricState,
        creds: CredentialSet,
        *,
        known_hosts: Path | None = None,
        timeout_s: float = 20.0,
        workers: int = 16,
        connect: Connector = open_session,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.fabric, self.creds, self.known_hosts = fabric, creds, known_hosts
        self.timeout_s, self.workers, self.connect, self.clock = timeout_s, workers, connect, clock
        self.targets = {t.name: t for t in build_targets(fabric)}
        self.sessions: dict[str, CommandSession] = {}
        self._lock = threading.Lock()

    # --- the protocol ------------------------------------------------------------------------------------------

    def read(self, devices: Sequence[str]) -> list[Sample]:
        if not devices:
            return []
        with ThreadPoolExecutor(max(1, min(self.workers, len(devices)))) as pool:
            return list(pool.map(self.read_one, devices))

    def read_one(self, name: str) -> Sample:
        try:
            target = self.targets.get(name)
            if target is None:
                raise ReadError(f"{name} is not a device xoff reaches over SSH in this intent")
            device = self.fabric.devices[name]
            reader = reader_for(target)
            outputs, failed = self._outputs(target, reader.commands(device))
            got = reader.read(outputs, device)
            got.errors[:0] = failed
        except Exception as exc:  # every failure is this device's Sample, never the round's
            text = str(exc) if isinstance(exc, ReadError) else f"{type(exc).__name__}: {exc}"
            return Sample(name, self.clock(), error=_one_line(mask(text, self.creds.secrets())), source=self.name)
        observed = any(r.value is not None for r in got.readings)
        error = _one_line(mask("; ".join(got.errors), self.creds.secrets())) if got.errors and not observed else None
        return Sample(name, self.clock(), tuple(got.readings), error, self.name, dict(got.unmodelled))

    # --- sessions ----------------------------------------------------------------------------------------------

    def _session(self, target: Target) -> CommandSession:
        with self._lock:
            kept = self.sessions.get(target.name)
        if kept is not None:
            return kept
        transport = get_platform(target.platform).transport
        if transport is None:
            raise ReadError(f"platform {target.platform} is not reached over SSH")
        spec = ConnectSpec(
            target=target,
            credentials=self.creds.for_device(target.platform, target.kind),
            known_hosts=self.known_hosts,
            timeout_s=self.timeout_s,
            enable=transport.enable,
            exec_channel=transport.exec_channel,
        )
        session = self.connect(spec)
        with self._lock:
            self.sessions[target.name] = session
        return session

    def _drop(self, name: str) -> None:
        with self._lock:
            session = self.sessions.pop(name, None)
        if session is not None:
            with contextlib.suppress(Exception):  # a failed goodbye loses nothing
                session.disconnect()

    def _outputs(self, target: Target, commands: list[Command]) -> tuple[dict[str, str], list[str]]:
        """Each command's output, and a line per command that failed or was refused (its series not observed);
        ReadError when the session is lost or nothing could be run."""
        try:
            session = self._session(target)
        except ReadError:
            raise
        except Exception as exc:
            raise ReadError(f"{classify(exc)}: {type(exc).__name__}: {exc}") from exc
        outputs: dict[str, str] = {}
        failed: list[str] = []
        for command, result in _run(session, commands, self.timeout_s):
            if isinstance(result, Exception):
                failed.append(f"{command.text}: {classify(result)}: {type(result).__name__}: {result}")
                if classify(result) in LOST:
                    self._drop(target.name)
                    raise ReadError(failed[-1])
                continue
            refusal = refused(result)
            if refusal is not None:
                failed.append(f"{command.text}: {refusal}")
                continue
            outputs[command.text] = result
        if commands and not outputs:
            raise ReadError("; ".join(failed))
        return outputs, failed

    def close(self) -> None:
        for name in list(self.sessions):
            self._drop(name)

    def __enter__(self) -> SshCounterSource:
        return self

    def __exit__(self, *_exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()


def _run(
    session: CommandSession, commands: list[Command], timeout_s: float
) -> Iterator[tuple[Command, str | Exception]]:
    """Each command with its output or its exception: one exec-channel batch where the session has one, else one
    command after the other on the CLI session (stopping at the first lost connection)."""
    run_batch = getattr(session, "run_batch", None)
    if run_batch is not None and len(commands) > 1:
        try:
            results: list[str | Exception] = run_batch([c.text for c in commands], timeout_s)
        except Exception as exc:  # the channel itself failed
            yield commands[0], exc
            return
        yield from zip(commands, results, strict=True)
        return
    for command in commands:
        try:
            yield command, str(session.send_command(command.text, read_timeout=timeout_s))
        except Exception as exc:
            yield command, exc
            if classify(exc) in LOST:
                return
