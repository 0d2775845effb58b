"""``xoff deadlock --ib-lab NAME`` / ``--ib-dump DIR``: InfiniBand credit loops of a running fabric.

``--ib-lab`` reads the lab's fabric with infiniband-diags on its SM host (``--save DIR`` keeps the
raw captures as a dump directory); ``--ib-dump`` reads a dump directory (layout in
``xoff.platforms.infiniband.observe``). The work is ``xoff.api.deadlock``. Exit status: 0 the analysis
ran, 1 a credit loop with ``--fail-on-risk``, 2 unreadable or unparsable input (one line), 4 the fabric
could not be read. Also runnable alone: ``python -m xoff.cli.deadlock_ib --ib-dump DIR [--format json]``.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from xoff.cli.deadlock import run_deadlock
from xoff.exitcodes import ExitCode


class IbFormat(StrEnum):
    text = "text"
    json = "json"


def ib_command(
    ib_lab: Annotated[str | None, typer.Option("--ib-lab", help="lab whose InfiniBand fabric to read")] = None,
    ib_dump: Annotated[Path | None, typer.Option("--ib-dump", help="directory of infiniband-diags captures")] = None,
    sl: Annotated[
        list[int] | None, typer.Option("--sl", help="service level to analyse (repeat); default all 16")
    ] = None,
    save_dir: Annotated[Path | None, typer.Option("--save", help="with --ib-lab: keep the captures here")] = None,
    fmt: Annotated[IbFormat, typer.Option("--format", "-f", help="text for people, json for machines")] = IbFormat.text,
    fail_on_risk: Annotated[bool, typer.Option("--fail-on-risk", help="exit 1 when there is a credit loop")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
) -> None:
    """InfiniBand credit loops ((link, VL) channel dependency cycles) of the programmed LFTs and SL2VL tables."""
    if (ib_lab is None) == (ib_dump is None):
        print("give exactly one of --ib-lab NAME or --ib-dump DIR", file=sys.stderr)
        raise typer.Exit(ExitCode.BAD_INPUT)
    run_deadlock(
        ib_lab=ib_lab,
        ib_dump=ib_dump,
        sl=tuple(sl) if sl else None,
        save=save_dir,
        json_format=IbFormat(fmt) is IbFormat.json,
        fail_on_risk=fail_on_risk,
        quiet=quiet,
    )


def make_app() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command()(ib_command)
    return app


def main() -> None:
    make_app()()


if __name__ == "__main__":
    main()
