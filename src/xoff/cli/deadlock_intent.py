"""``xoff deadlock INTENT``: PFC deadlock risk of an intent, from its routing model, after failures too.

Loads the intent, builds the desired FabricState, computes forwarding for one RoCE network with a
routing model (``--routing bgp`` = eBGP with the intent's RFC 7938 ASN plan, ``igp`` = shortest
path), analyses the baseline and, with ``--failures 1|2``, every single / the filtered double
fabric-link failures (``failures.sweep``). ``--export-snapshot FILE`` also writes the baseline in
the forwarding-snapshot format (YAML, or JSON for a ``.json`` name) so results can be exchanged
and re-checked with ``xoff deadlock --snapshot FILE``. The work is ``xoff.api.deadlock``.

Exit status: 0 the analysis ran (whatever it found), 1 risk found with ``--fail-on-risk``,
2 bad input (the intent's problems one per line, or one line naming the bad option).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from xoff.cli.deadlock import run_deadlock
from xoff.exitcodes import ExitCode

FORMATS = ("text", "json")


def intent_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    failures: Annotated[
        int, typer.Option("--failures", help="also check every single (1) or the filtered double (2) link failures")
    ] = 0,
    routing: Annotated[
        str, typer.Option("--routing", help="bgp: eBGP with the RFC 7938 ASN plan; igp: shortest path (OSPF-like)")
    ] = "bgp",
    network: Annotated[str, typer.Option("--network", help="the RoCE network to analyse")] = "compute",
    workers: Annotated[int, typer.Option("--workers", help="processes judging the failures (0: one per core)")] = 1,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text for people, json for machines")] = "text",
    fail_on_risk: Annotated[bool, typer.Option("--fail-on-risk", help="exit 1 when there is deadlock risk")] = False,
    export_snapshot: Annotated[
        Path | None,
        typer.Option("--export-snapshot", help="also write the baseline as a forwarding snapshot (YAML, or .json)"),
    ] = None,
) -> None:
    """PFC deadlock risk (cyclic buffer dependency) of an intent's fabric, from its routing model."""
    fmt = getattr(fmt, "value", fmt)  # a StrEnum from a merged CLI, or a plain string
    if fmt not in FORMATS:
        print(f"--format: {fmt!r} is not known (allowed: {', '.join(FORMATS)})", file=sys.stderr)
        raise typer.Exit(ExitCode.BAD_INPUT)
    run_deadlock(
        intent=intent,
        failures=failures,
        routing=getattr(routing, "value", routing),
        network=network,
        workers=workers,
        export_snapshot=export_snapshot,
        json_format=fmt == "json",
        fail_on_risk=fail_on_risk,
    )


def make_app() -> typer.Typer:
    """A one-command typer app around :func:`intent_command` (for tests and ``-m`` runs)."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command()(intent_command)
    return app


if __name__ == "__main__":
    make_app()()
