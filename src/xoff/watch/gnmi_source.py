"""``xoff watch --source gnmi``: switch counters over gNMI through pygnmi, one request per device per round.

SONiC (its telemetry service, target ``COUNTERS_DB``): one ``Get`` of ``COUNTERS/Ethernet*``, its ``Queues`` and
its ``Pfcwd``. Cumulus (its gNMI server answers no Get): one ``Subscribe`` STREAM (SAMPLE) of the QoS leaves,
read up to its ``sync_response`` and closed. Each device keeps one gRPC channel across rounds. The username and
password are the inventory's (``CredentialSet``, as SSH gets them) and never printed: a device that fails is a
``Sample`` with ``error`` (one line, secrets masked) and the others carry on. Paths and their metrics:
``xoff.watch.gnmi_paths``.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pygnmi.client import gNMIclient, telemetryParser
from pygnmi.spec.v080.gnmi_pb2_grpc import gNMIStub

from xoff.connect.credentials import CredentialSet, mask
from xoff.desired.models import FabricState
from xoff.watch.gnmi_paths import (
    CUMULUS_PATHS,
    SONIC_PATHS,
    SONIC_TARGET,
    Unmodelled,
    cumulus_readings,
    sonic_readings,
)
from xoff.watch.sample import Reading, Sample

# pygnmi.client logs every failed RPC to its own stdout handler; here a failure is the Sample's error, said where
# samples are reported (stdout may be JSON), so its log stays quiet
logging.getLogger("pygnmi.client").setLevel(logging.CRITICAL + 1)

SONIC_PORT = 8080  # SONiC's telemetry service as its document runs it (doc/system-telemetry/grpc_telemetry.md)
CUMULUS_PORT = 9339  # NVIDIA: "the gNMI agent listens over port 9339"
# per NOS: the port, and whether it is plain gRPC (SONiC's --insecure) rather than TLS
TRANSPORT = {"sonic": (SONIC_PORT, True), "cumulus": (CUMULUS_PORT, False)}
SAMPLE_NS = 10_000_000_000  # the sample interval asked for; only the first round (to sync_response) is read


@dataclass(frozen=True)
class GnmiTarget:
    device: str
    platform: str  # "sonic" | "cumulus"
    address: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    insecure: bool = False  # plain gRPC (SONiC's --insecure); else TLS
    skip_verify: bool = True  # TLS against a switch's self-signed certificate (Cumulus' default)


Client = Any  # pygnmi.client.gNMIclient, connected
Connect = Callable[[GnmiTarget, float], Client]


def connect(target: GnmiTarget, timeout: float) -> Client:
    client = gNMIclient(
        target=(target.address, target.port),
        username=target.username,
        password=target.password,
        insecure=target.insecure,
        skip_verify=target.skip_verify and not target.insecure,
        gnmi_timeout=timeout,
        show_diff="",
    )
    client.connect(timeout=timeout)
    return client


def read_sonic(client: Client, _timeout: float) -> tuple[list[Reading], Unmodelled]:
    response = client.get(path=list(SONIC_PATHS), target=SONIC_TARGET, encoding="json_ietf")
    return sonic_readings(response.get("notification", []) if isinstance(response, Mapping) else [])


def read_cumulus(client: Client, timeout: float) -> tuple[list[Reading], Unmodelled]:
    """One STREAM (SAMPLE) subscription, read up to its ``sync_response`` and cancelled. pygnmi builds the
    request, holds the channel and decodes the messages; the call is made here so that it can be cancelled
    (pygnmi's own subscriber threads outlive a closed subscription until the server ends the stream)."""
    request = client._build_subscriptionrequest(
        {
            "subscription": [{"path": p, "mode": "sample", "sample_interval": SAMPLE_NS} for p in CUMULUS_PATHS],
            "mode": "stream",
            "encoding": "proto",
        }
    )
    stub = gNMIStub(client._gNMIclient__channel)
    call = stub.Subscribe(iter([request]), metadata=client._gNMIclient__metadata, timeout=timeout)
    notes: list[Mapping[str, Any]] = []
    try:
        for message in call:
            parsed = telemetryParser(message)
            if "update" in parsed:
                notes.append(parsed["update"])
            if parsed.get("sync_response"):
                break
        else:
            raise ConnectionError("the stream ended before its sync_response")
    finally:
        call.cancel()
    return cumulus_readings(notes)


def targets_for(fabric: FabricState, credentials: CredentialSet) -> dict[str, GnmiTarget]:
    """Every SONiC and Cumulus switch of the fabric, at its management address and its NOS's gNMI port, with the
    inventory's credentials for it (as SSH gets them): SONiC's telemetry without TLS (its ``--insecure``, how
    the lab and SONiC's own document run it), Cumulus over TLS, its self-signed certificate accepted."""
    out: dict[str, GnmiTarget] = {}
    for name, device in sorted(fabric.devices.items()):
        if device.kind != "switch" or device.platform not in TRANSPORT:
            continue
        creds = credentials.for_device(device.platform, device.kind)
        out[name] = GnmiTarget(
            device=name,
            platform=device.platform,
            address=device.mgmt_address.split("/", 1)[0],
            port=TRANSPORT[device.platform][0],
            username=creds.username if creds else None,
            password=creds.password if creds else None,
            insecure=TRANSPORT[device.platform][1],
        )
    return out


READERS: dict[str, Callable[[Client, float], tuple[list[Reading], Unmodelled]]] = {
    "sonic": read_sonic,
    "cumulus": read_cumulus,
}


def _one_line(exc: BaseException, secrets: Iterable[str]) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return mask(f"gNMI: {text}"[:300], secrets)


class GnmiCounterSource:
    """The ``CounterSource`` over gNMI. ``targets``: device -> where and how to reach its gNMI server."""

    name = "gnmi"

    def __init__(
        self, targets: Mapping[str, GnmiTarget], timeout: float = 10.0, workers: int = 16, dial: Connect = connect
    ) -> None:
        self.targets = dict(targets)
        self.timeout = timeout
        self.workers = workers
        self.dial = dial
        self.clients: dict[str, Client] = {}

    def read(self, devices: Sequence[str]) -> list[Sample]:
        if len(devices) <= 1:
            return [self._read_one(d) for d in devices]
        with ThreadPoolExecutor(max_workers=min(self.workers, len(devices))) as pool:
            return list(pool.map(self._read_one, devices))

    def _read_one(self, device: str) -> Sample:
        target = self.targets.get(device)
        if target is None or target.platform not in READERS:
            why = "no gNMI target" if target is None else f"platform {target.platform} has no gNMI reader in xoff"
            return Sample(device, time.time(), error=why, source=self.name)
        secrets = [target.password] if target.password else []
        try:
            client = self.clients.get(device)
            if client is None:
                client = self.clients[device] = self.dial(target, self.timeout)
            readings, unmodelled = READERS[target.platform](client, self.timeout)
        except Exception as exc:  # any failure of one device is its Sample's error; the others carry on
            self._drop(device)
            return Sample(device, time.time(), error=_one_line(exc, secrets), source=self.name)
        return Sample(device, time.time(), tuple(readings), source=self.name, unmodelled=unmodelled)

    def _drop(self, device: str) -> None:
        client = self.clients.pop(device, None)
        if client is not None:
            with contextlib.suppress(Exception):  # a channel that is already gone
                client.close()

    def close(self) -> None:
        for device in list(self.clients):
            self._drop(device)
