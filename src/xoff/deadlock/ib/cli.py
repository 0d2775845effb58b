"""``xoff deadlock --ib-lab NAME`` / ``--ib-dump DIR``: InfiniBand credit loops of a running fabric.

``--ib-lab`` reads the lab's fabric with infiniband-diags on its SM host (``--save DIR`` keeps the
raw captures as a dump directory); ``--ib-dump`` reads a dump directory (layout in
``xoff.platforms.infiniband.observe``). Exit status: 0 the analysis ran, 1 a credit loop with
``--fail-on-risk``, 2 unreadable or unparsable input (one line), 4 the fabric could not be read.
Also runnable alone: ``python -m xoff.deadlock.ib.cli --ib-dump DIR [--format json]``.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from xoff.connect.sources import SourceError, open_source
from xoff.contracts.infiniband import IbObservation
from xoff.deadlock.ib.credit import IbAnalysisError, analyse_ib, render_text
from xoff.errors import InputError
from xoff.platforms.infiniband.collect import CollectError, collect_sm, save
from xoff.platforms.infiniband.observe import observation_from_dump
from xoff.platforms.infiniband.parse import IbParseError

EXIT_OK, EXIT_RISK, EXIT_INPUT, EXIT_COLLECT = 0, 1, 2, 4


class IbFormat(StrEnum):
    text = "text"
    json = "json"


def _fail(code: int, message: str) -> typer.Exit:
    print(message, file=sys.stderr)
    return typer.Exit(code)


def ib_command(
    ib_lab: Annotated[str | None, typer.Option("--ib-lab", help="lab whose InfiniBand fabric to read")] = None,
    ib_dump: Annotated[Path | None, typer.Option("--ib-dump", help="directory of infiniband-diags captures")] = None,
    sl: Annotated[
        list[int] | None, typer.Option("--sl", help="service level to analyse (repeat); default all 16")
    ] = None,
    save_dir: Annotated[Path | None, typer.Option("--save", help="with --ib-lab: keep the captures here")] = None,
    fmt: Annotated[IbFormat, typer.Option("--format", "-f", help="text for people, json for machines")] = IbFormat.text,
    fail_on_risk: Annotated[bool, typer.Option("--fail-on-risk", help="exit 1 when there is a credit loop")] = False,
) -> None:
    """InfiniBand credit loops ((link, VL) channel dependency cycles) of the programmed LFTs and SL2VL tables."""
    if (ib_lab is None) == (ib_dump is None):
        raise _fail(EXIT_INPUT, "give exactly one of --ib-lab NAME or --ib-dump DIR")
    obs: IbObservation
    try:
        if ib_dump is not None:
            obs = observation_from_dump(ib_dump)
        else:
            assert ib_lab is not None
            collected = collect_sm(open_source("lab", ib_lab, "--ib-lab").subnet_manager())
            if save_dir is not None:
                save(collected, save_dir)
            obs = collected.observation
        result = analyse_ib(obs, sl)
    except (IbParseError, IbAnalysisError) as exc:
        raise _fail(EXIT_INPUT, f"{ib_dump or ib_lab}: {exc}") from None
    except InputError as exc:  # no such lab is up
        why = "; ".join(p.message for p in exc.sorted())
        raise _fail(EXIT_COLLECT, f"{ib_lab}: could not read the fabric: {why}") from None
    except (CollectError, SourceError, OSError) as exc:
        raise _fail(EXIT_COLLECT, f"{ib_lab}: could not read the fabric: {exc}") from None
    print(json.dumps(result.to_json(), indent=2) if IbFormat(fmt) is IbFormat.json else render_text(result))
    if fail_on_risk and result.credit_loop:
        raise typer.Exit(EXIT_RISK)


def make_app() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command()(ib_command)
    return app


def main() -> None:
    make_app()()


if __name__ == "__main__":
    main()
