"""``xoff collect INTENT -o SNAPSHOT``: read the running state of every device into a snapshot file.

Exit status: 0 every device read, 2 bad input (nothing contacted), 4 could not collect (some device
unreachable, refused, timed out, or gave output that could not be parsed; the snapshot is still
written, with those errors in it).
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from xoff.collect.engine import CollectOptions, collect, raw_dir_for
from xoff.connect.credentials import load_credentials
from xoff.connect.sources import TargetSource, open_source
from xoff.connect.targets import build_targets, select
from xoff.contracts.infiniband import IbObservation
from xoff.contracts.observed import Snapshot
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.errors import InputError
from xoff.intent import load_intent

EXIT_OK, EXIT_INPUT, EXIT_NOT_COLLECTED = 0, 2, 4


def infiniband_reader(fabric: FabricState, source: TargetSource | None) -> Any:
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


def collect_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    output: Annotated[Path, typer.Option("--output", "-o", help="snapshot file to write (JSON)")],
    lab: Annotated[str | None, typer.Option("--lab", help="collect the running lab of this name")] = None,
    secrets: Annotated[Path | None, typer.Option("--secrets", help="0600 secrets file (else XOFF_* env)")] = None,
    known_hosts: Annotated[Path | None, typer.Option("--known-hosts", help="the only host keys trusted")] = None,
    limit: Annotated[list[str] | None, typer.Option("--limit", help="device, role or group; repeatable")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="devices read at once")] = 20,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="seconds per connect and command")] = 20.0,
) -> None:
    """Read every device's running state (FabricState + LLDP, BGP, counters, host facts) into SNAPSHOT."""
    source: TargetSource | None = None
    try:
        desired = build_fabric_state(load_intent(intent))
        if lab is not None:
            source = open_source("lab", lab)
            desired = source.fabric  # the lab's copy: its (remapped) addresses are the ones that answer
            secrets = secrets or source.secrets_file
            known_hosts = known_hosts or source.known_hosts
        creds = load_credentials(secrets)
        targets = select(build_targets(desired), limit or [])
    except InputError as exc:
        for problem in exc.sorted():
            print(str(problem), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT) from None
    started = time.monotonic()
    snapshot = collect(
        desired,
        targets,
        creds,
        known_hosts,
        CollectOptions(workers=workers, timeout_s=timeout, raw_dir=raw_dir_for(output)),
        infiniband=infiniband_reader(desired, source),
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(snapshot.model_dump_json(indent=2) + "\n", encoding="utf-8")
    _summary(snapshot, len(targets), time.monotonic() - started, output)
    raise typer.Exit(EXIT_NOT_COLLECTED if snapshot.errors else EXIT_OK)


def _summary(snapshot: Snapshot, targets: int, elapsed: float, output: Path) -> None:
    read = len(snapshot.observed.devices)
    print(f"collected {read}/{targets} devices in {elapsed:.2f} s -> {output} (raw: {raw_dir_for(output)})")
    for error in snapshot.errors:
        where = f" [{error.command}]" if error.command else ""
        print(f"{error.device}{where}: {error.kind}: {error.message}", file=sys.stderr)
