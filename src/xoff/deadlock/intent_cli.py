"""``xoff deadlock INTENT``: PFC deadlock risk of an intent, from its routing model, after failures too.

Loads the intent, builds the desired FabricState, computes forwarding for one RoCE network with a
routing model (``--routing bgp`` = eBGP with the intent's RFC 7938 ASN plan, ``igp`` = shortest
path), analyses the baseline and, with ``--failures 1|2``, every single / the filtered double
fabric-link failures (``failures.sweep``). ``--export-snapshot FILE`` also writes the baseline in
the forwarding-snapshot format (YAML, or JSON for a ``.json`` name) so results can be exchanged
and re-checked with ``xoff deadlock --snapshot FILE``.

Exit status: 0 the analysis ran (whatever it found), 1 risk found with ``--fail-on-risk``,
2 bad input (the intent's problems one per line, or one line naming the bad option).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
import yaml

from xoff.deadlock.failures import sweep
from xoff.deadlock.forwarding import build_snapshot, describe
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.routing import ROUTINGS, Routing, route_all
from xoff.deadlock.snapshot_file import to_document
from xoff.desired.models import FabricState
from xoff.errors import InputError

EXIT_OK, EXIT_RISK, EXIT_INPUT = 0, 1, 2
FORMATS = ("text", "json")


def _fail(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    raise typer.Exit(EXIT_INPUT)


def _load_state(intent: Path) -> FabricState:
    from xoff.desired import build_fabric_state  # noqa: PLC0415 - keep `xoff --help` fast
    from xoff.intent import load_intent  # noqa: PLC0415

    try:
        return build_fabric_state(load_intent(intent))
    except InputError as exc:
        for problem in exc.sorted():
            print(str(problem), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT) from None


def export_snapshot_file(state: FabricState, path: Path, *, routing: Routing, network: str) -> int:
    """Write the baseline forwarding snapshot of ``network`` to ``path``; returns the number of destinations."""
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


def intent_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    failures: Annotated[
        int, typer.Option("--failures", help="also check every single (1) or the filtered double (2) link failures")
    ] = 0,
    routing: Annotated[
        str, typer.Option("--routing", help="bgp: eBGP with the RFC 7938 ASN plan; igp: shortest path (OSPF-like)")
    ] = "bgp",
    network: Annotated[str, typer.Option("--network", help="the RoCE network to analyse")] = "compute",
    fmt: Annotated[str, typer.Option("--format", "-f", help="text for people, json for machines")] = "text",
    fail_on_risk: Annotated[bool, typer.Option("--fail-on-risk", help="exit 1 when there is deadlock risk")] = False,
    export_snapshot: Annotated[
        Path | None,
        typer.Option("--export-snapshot", help="also write the baseline as a forwarding snapshot (YAML, or .json)"),
    ] = None,
) -> None:
    """PFC deadlock risk (cyclic buffer dependency) of an intent's fabric, from its routing model."""
    fmt = getattr(fmt, "value", fmt)  # a StrEnum from a merged CLI, or a plain string
    routing = getattr(routing, "value", routing)
    if fmt not in FORMATS:
        _fail(f"--format: {fmt!r} is not known (allowed: {', '.join(FORMATS)})")
    if routing not in ROUTINGS:
        _fail(f"--routing: {routing!r} is not known (allowed: {', '.join(ROUTINGS)})")
    if failures not in (0, 1, 2):
        _fail(f"--failures: {failures} is not supported (allowed: 0, 1, 2)")
    model: Routing = "bgp" if routing == "bgp" else "igp"
    state = _load_state(intent)
    try:
        fabric_of(state, network)
    except ValueError as exc:
        _fail(f"{intent}: --network: {exc}")
    if export_snapshot is not None:
        count = export_snapshot_file(state, export_snapshot, routing=model, network=network)
        print(f"wrote {export_snapshot} (baseline forwarding snapshot, {count} destinations)", file=sys.stderr)
    report = sweep(state, routing=model, max_failures=failures, network=network)
    if fmt == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.to_text())
    if fail_on_risk and report.deadlock_risk:
        raise typer.Exit(EXIT_RISK)


def make_app() -> typer.Typer:
    """A one-command typer app around :func:`intent_command` (for tests and ``-m`` runs)."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command()(intent_command)
    return app


if __name__ == "__main__":
    make_app()()
