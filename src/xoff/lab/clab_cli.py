"""``xoff lab export INTENT -o FILE.clab.yml``: the intent's fabric as a containerlab topology.

The command renders every device's files (``xoff render``) next to the topology, so the .clab.yml and
its configurations form one directory a containerlab user can deploy; ``--no-configs`` leaves them
out and the nodes boot their images' defaults. Exit status: 0 written, 2 bad input or usage.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from xoff.errors import InputError


def _fail(message: str) -> None:
    print(f"xoff lab export: {message}", file=sys.stderr)
    raise typer.Exit(2)


def _images(pairs: list[str]) -> dict[str, str]:
    images = {}
    for pair in pairs:
        kind, sep, image = pair.partition("=")
        if not sep or not kind or not image:
            _fail(f"--image {pair!r}: expected KIND=IMAGE, e.g. arista_ceos=ceos:4.33.0F")
        images[kind] = image
    return images


def export_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    output: Annotated[Path, typer.Option("--output", "-o", help="the topology file to write, e.g. lab.clab.yml")],
    name: Annotated[
        str | None, typer.Option("--name", "-n", "--lab", help="lab name (default: the fabric's name; --lab: the same)")
    ] = None,
    configs: Annotated[
        Path | None,
        typer.Option("--configs", help="where to render the devices' files (default: <output dir>/<name>-configs)"),
    ] = None,
    no_configs: Annotated[
        bool, typer.Option("--no-configs", help="no startup configuration: nodes boot their images' defaults")
    ] = False,
    image: Annotated[
        list[str] | None, typer.Option("--image", help="KIND=IMAGE over the default image of a kind (repeatable)")
    ] = None,
) -> None:
    """Export the fabric as a containerlab topology (sonic-vs, arista_ceos, nvidia_cumulusvx, linux)."""
    from xoff.desired import build_fabric_state  # noqa: PLC0415 (xoff --help stays fast)
    from xoff.intent import load_intent  # noqa: PLC0415
    from xoff.lab.clab import ExportError, build, lab_name_for, render_yaml  # noqa: PLC0415
    from xoff.render import render_fabric, write_output  # noqa: PLC0415

    images = _images(image or [])
    try:
        fabric = build_fabric_state(load_intent(intent))
    except InputError as exc:
        for p in exc.sorted():
            print(str(p), file=sys.stderr)
        raise typer.Exit(2) from None
    lab = name or lab_name_for(fabric)
    config_dir = None
    target = None
    if not no_configs:
        target = configs if configs is not None else output.parent / f"{lab}-configs"
        config_dir = Path(os.path.relpath(target, output.parent)).as_posix()
    try:
        result = build(fabric, lab, images=images, config_dir=config_dir)
        text = render_yaml(fabric, lab, images=images, config_dir=config_dir)
    except ExportError as exc:
        _fail(str(exc))
        return
    if target is not None:
        write_output(fabric, render_fabric(fabric), target)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    topo = result.topology["topology"]
    print(f"wrote {output}: lab {lab}, {len(topo['nodes'])} nodes, {len(topo['links'])} links")
    if target is not None:
        print(f"  startup configuration rendered into {target}/")
    for s in result.skipped:
        print(f"  left out: {s.what} ({s.why})")
