"""``xoff scale INTENT --scale S -o FILE``: the same design at a reduced size, written as an intent of its own.

A file rather than a ``--scale`` on every command: the reduced intent is one reviewable artefact that ``check``,
``plan``, ``render``, ``lab up``, ``push`` and ``validate`` all take unchanged (``xoff lab up INTENT --scale S`` writes
the same file into the lab's directory). Exit 0 written, 2 bad input (the intent, or a scale that would break the
design's shape: one located line).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from xoff.cli.output import exit_bad_input
from xoff.errors import InputError

ScaleOpt = Annotated[
    str, typer.Option("--scale", "-s", help="min, or a factor in (0, 1] (0.5, 1/4) of every count that repeats")
]


def scale_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    scale: ScaleOpt = "min",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="reduced intent file to write")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json")] = "text",
) -> None:
    """Write the intent reduced to a smaller fabric of the same design (tiers, planes, dual ToR, split ports,
    congestion control, load balancing and tenants kept); say what was reduced."""
    from xoff.intent.scale import parse_scale
    from xoff.intent.scale_file import scale_to

    name = intent.stem if intent.suffix in (".yaml", ".yml") else intent.name
    target = output or Path("out") / "scale" / f"{name}.yaml"
    try:
        done = scale_to(intent, parse_scale(scale), target)
    except InputError as exc:
        exit_bad_input(exc)
    if fmt == "json":
        print(
            json.dumps(
                {"output": str(done.path), "switches": done.switches, "hosts": done.hosts, "reduced": done.reduced}
            )
        )
        return
    print(
        f"wrote {done.path}: {done.switches[0]} -> {done.switches[1]} switches, {done.hosts[0]} -> {done.hosts[1]} hosts"
    )
    for line in done.reduced:
        print(f"  {line}")


def scaled_source(intent: Path, scale: str | None, workdir: Path) -> Path:
    """``intent``, or with ``--scale`` the reduced intent written under ``workdir``, its reductions said on stderr
    (``plan`` and ``render`` show the reduced fabric; bad input: ``InputError``)."""
    if scale is None:
        return intent
    from xoff.intent.scale import parse_scale
    from xoff.intent.scale_file import scale_to

    name = intent.stem if intent.suffix in (".yaml", ".yml") else intent.name
    done = scale_to(intent, parse_scale(scale), workdir / f"{name}.yaml")
    print(
        f"--scale {scale}: {done.switches[0]} -> {done.switches[1]} switches, {done.hosts[0]} -> {done.hosts[1]} hosts",
        file=sys.stderr,
    )
    for line in done.reduced:
        print(f"  {line}", file=sys.stderr)
    return done.path
