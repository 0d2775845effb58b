"""The ``xoff`` command line. Thin: parse arguments, call one pipeline step, show the result.

Exit status: 0 success, 1 checks found problems, 2 bad input or usage.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console

from xoff import __version__
from xoff.errors import InputError, Problem

app = typer.Typer(
    name="xoff",
    help="Intent-driven configuration and validation for GPU cluster networks (lossless RoCE, InfiniBand).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2


class Format(StrEnum):
    text = "text"
    json = "json"


IntentArg = Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="text for people, json for machines")]


def _out() -> Console:
    # pipes and CI logs get wide tables rather than 80-column ones with clipped names
    return Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)


def _problem_json(p: Problem) -> dict[str, Any]:
    loc = p.location
    return {
        "file": loc.file if loc else None,
        "line": loc.line if loc else None,
        "column": loc.column if loc else None,
        "path": p.path,
        "message": p.message,
    }


def _fail_input(exc: InputError, fmt: Format) -> NoReturn:
    problems = exc.sorted()
    if fmt is Format.json:
        print(json.dumps({"ok": False, "problems": [_problem_json(p) for p in problems]}, indent=2))
    else:
        for p in problems:
            print(str(p), file=sys.stderr)
    raise typer.Exit(EXIT_INPUT)


def _load(path: Path, fmt: Format) -> tuple[Any, Any]:
    from xoff.desired import build_fabric_state
    from xoff.intent import load_intent

    try:
        intent = load_intent(path)
        return intent, build_fabric_state(intent)
    except InputError as exc:
        _fail_input(exc, fmt)


@app.command()
def check(path: IntentArg, fmt: FormatOpt = Format.text) -> None:
    """Load the intent strictly, plan it and run the pre-change checks on the plan.

    Bad input: one line per problem, FILE:LINE:COL: path: what (allowed), exit 2.
    Checks that find problems: exit 1 (warnings alone do not fail).
    """
    from xoff.report.plan_text import check_results, intent_summary
    from xoff.validate.cli import pre_change_results

    intent, state = _load(path, fmt)
    results = pre_change_results(state)
    failed = any(r.blocking for r in results)
    if fmt is Format.json:
        print(
            json.dumps(
                {
                    "ok": not failed,
                    "fabric": intent.name,
                    "files": intent.files,
                    "counts": {
                        "switches": len(intent.switches),
                        "ib_switches": len(intent.ib_switches),
                        "hosts": len(intent.hosts),
                        "links": len(intent.links),
                    },
                    "networks": {k: v.model_dump(mode="json") for k, v in state.networks.items()},
                    "problems": [],
                    "checks": [
                        {
                            "id": r.id,
                            "status": r.status.value,
                            "severity": r.severity.value,
                            "message": r.message,
                            "findings": [str(f) for f in r.findings],
                        }
                        for r in results
                    ],
                },
                indent=2,
            )
        )
        raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)
    console = _out()
    console.print(intent_summary(intent, state))
    console.print(check_results(results))
    if failed:
        console.print("[red]intent loads, but checks found problems[/red]")
        raise typer.Exit(EXIT_FINDINGS)
    console.print("[green]intent OK[/green]")


@app.command()
def plan(
    path: IntentArg,
    fmt: FormatOpt = Format.json,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file")] = None,
    device: Annotated[str | None, typer.Option("--device", "-d", help="only this device")] = None,
) -> None:
    """Build the vendor-neutral desired state (FabricState) of every device."""
    from xoff.report.plan_text import device_detail, plan_summary

    _, state = _load(path, fmt)
    if device is not None and device not in state.devices:
        print(f"{path}: --device: no device named {device!r} in this intent", file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    if fmt is Format.json:
        payload = state.devices[device].model_dump_json(indent=2) if device else state.model_dump_json(indent=2)
        if output is not None:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(payload + "\n", encoding="utf-8")
            print(f"wrote {output} ({len(state.devices)} devices)", file=sys.stderr)
        else:
            print(payload)
        return
    console = Console(file=output.open("w", encoding="utf-8"), width=160) if output else _out()
    console.print(device_detail(state.devices[device]) if device else plan_summary(state))


@app.command()
def render(
    path: IntentArg,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="directory to write <device>/<file> and manifest.json")
    ] = Path("out/render"),
    diff: Annotated[Path | None, typer.Option("--diff", help="show a unified diff against an earlier output")] = None,
    device: Annotated[list[str] | None, typer.Option("--device", "-d", help="only these devices")] = None,
    fmt: FormatOpt = Format.text,
) -> None:
    """Render every device's configuration (SONiC, EOS, NVUE, hosts, OpenSM) from the desired state."""
    from xoff.render import diff_output, render_fabric, write_output

    _, state = _load(path, fmt)
    if device:
        unknown = [d for d in device if d not in state.devices]
        if unknown:
            print(f"{path}: --device: no device named {unknown[0]!r} in this intent", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
    files = render_fabric(state, device or None)
    if diff is not None:
        if not diff.is_dir():
            print(f"{diff}: --diff: not a directory of an earlier `xoff render` output", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
        print(diff_output(files, diff), end="")
        return
    manifest_path = write_output(state, files, output)
    devices = len({f.device for f in files})
    if fmt is Format.json:
        print(
            json.dumps({"output": str(output), "manifest": str(manifest_path), "devices": devices, "files": len(files)})
        )
    else:
        _out().print(f"rendered {len(files)} files for {devices} devices into {output}/ (manifest: {manifest_path})")


@app.command()
def schema(
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file")] = None,
) -> None:
    """Print the intent's JSON Schema (for editors), generated from the models."""
    from xoff.intent.schema import intent_schema_text

    text = intent_schema_text()
    if output is None:
        print(text, end="")
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")


class Model(StrEnum):
    static = "static"
    dynamic = "dynamic"


@app.command()
def headroom(
    speed: Annotated[str, typer.Option(help="port speed, e.g. 400G")],
    cable: Annotated[str, typer.Option(help="cable length in metres, e.g. 40m")],
    asic: Annotated[str, typer.Option(help="ASIC family, e.g. spectrum4, tomahawk5")],
    model: Annotated[Model, typer.Option(help="static: vendor lookup row first; dynamic: formula")] = Model.static,
    mtu: Annotated[int, typer.Option(help="port MTU")] = 9100,
    lossless_mtu: Annotated[int, typer.Option(help="lossless traffic MTU (LOSSLESS_TRAFFIC_PATTERN)")] = 1024,
    small_packet_percent: Annotated[int, typer.Option(help="share of small packets, percent")] = 100,
    shared_headroom_pool: Annotated[bool, typer.Option(help="headroom comes from a shared pool")] = False,
    eight_lanes: Annotated[bool, typer.Option(help="8-lane port (doubles pipeline latency)")] = False,
    fmt: FormatOpt = Format.text,
) -> None:
    """Lossless PG headroom (xon, xoff, size) for one port, and which lookup row or formula gave it."""
    from xoff.buffers import HeadroomUnavailable, get_asic, headroom_for
    from xoff.intent.headroom_args import parse_headroom_args

    try:
        speed_mbps, cable_m = parse_headroom_args(speed, cable)
        spec = get_asic(asic)
        room = headroom_for(
            spec,
            speed_mbps,
            cable_m,
            model=model.value,
            port_mtu=mtu,
            lossless_mtu=lossless_mtu,
            small_packet_percent=small_packet_percent,
            shared_headroom_pool=shared_headroom_pool,
            eight_lanes=eight_lanes,
        )
    except (ValueError, KeyError) as exc:
        if isinstance(exc, HeadroomUnavailable):
            print(f"headroom: {exc}", file=sys.stderr)
        else:
            print(f"headroom: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        raise typer.Exit(EXIT_INPUT) from None
    result = {
        "asic": spec.name,
        "speed_mbps": speed_mbps,
        "cable_m": cable_m,
        "profile": room.profile_name,
        "xon": room.xon,
        "xoff": room.xoff,
        "size": room.size,
        "xon_offset": room.xon_offset,
        "source": room.source,
    }
    if fmt is Format.json:
        print(json.dumps(result, indent=2))
        return
    console = _out()
    console.print(f"[bold]{room.profile_name}[/bold] on {spec.label}")
    console.print(f"  xon  {room.xon:>8} bytes")
    console.print(f"  xoff {room.xoff:>8} bytes")
    console.print(f"  size {room.size:>8} bytes")
    if room.xon_offset is not None:
        console.print(f"  xon_offset {room.xon_offset} bytes")
    console.print(f"  source: {room.source}")


class Routing(StrEnum):
    bgp = "bgp"
    igp = "igp"


@app.command()
def deadlock(
    intent: Annotated[Path | None, typer.Argument(help="intent file or directory (or give --snapshot)")] = None,
    snapshot: Annotated[Path | None, typer.Option("--snapshot", help="forwarding snapshot file (YAML or JSON)")] = None,
    failures: Annotated[
        int, typer.Option("--failures", help="intent: also every single (1) / filtered double (2) link failure")
    ] = 0,
    routing: Annotated[
        Routing, typer.Option("--routing", help="intent: bgp (RFC 7938 eBGP) or igp (shortest path)")
    ] = Routing.bgp,
    network: Annotated[str, typer.Option("--network", help="intent: the RoCE network to analyse")] = "compute",
    export_snapshot: Annotated[
        Path | None, typer.Option("--export-snapshot", help="intent: write the baseline snapshot")
    ] = None,
    ib_lab: Annotated[
        str | None, typer.Option("--ib-lab", help="InfiniBand credit loops of a lab's OpenSM-programmed fabric")
    ] = None,
    ib_dump: Annotated[
        Path | None, typer.Option("--ib-dump", help="InfiniBand credit loops of saved infiniband-diags captures")
    ] = None,
    sl: Annotated[list[int] | None, typer.Option("--sl", help="InfiniBand: service level to analyse (repeat)")] = None,
    save: Annotated[Path | None, typer.Option("--save", help="with --ib-lab: keep the diag captures here")] = None,
    fmt: FormatOpt = Format.text,
    fail_on_risk: Annotated[bool, typer.Option("--fail-on-risk", help="exit 1 when there is deadlock risk")] = False,
) -> None:
    """PFC deadlock risk (cyclic buffer dependency): of an intent's fabric from its routing model, or of a
    forwarding snapshot (reference/forwarding-snapshot.md); InfiniBand credit loops from the LFTs and
    SL2VL tables OpenSM programmed (--ib-lab / --ib-dump)."""
    sources = [x for x in (intent, snapshot, ib_lab, ib_dump) if x is not None]
    if len(sources) != 1:
        print(
            "deadlock: give one input (allowed: INTENT, --snapshot FILE, --ib-lab NAME or --ib-dump DIR)",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_INPUT)
    if ib_lab is not None or ib_dump is not None:
        from xoff.deadlock.ib.cli import IbFormat, ib_command

        ib_command(
            ib_lab=ib_lab, ib_dump=ib_dump, sl=sl, save_dir=save, fmt=IbFormat(fmt.value), fail_on_risk=fail_on_risk
        )
        return
    if snapshot is not None:
        from xoff.deadlock.cli import SnapshotFormat, snapshot_command

        snapshot_command(snapshot, SnapshotFormat(fmt.value), fail_on_risk)
        return
    from xoff.deadlock.intent_cli import intent_command

    assert intent is not None
    intent_command(intent, failures, routing.value, network, fmt.value, fail_on_risk, export_snapshot)


def _collect_command() -> Any:
    from xoff.collect.cli import collect_command

    return collect_command


app.command(
    "collect",
    help="Read every device's running state (FabricState + LLDP, BGP, counters, host facts) into a snapshot.",
)(_collect_command())


def _validate_command() -> Any:
    from xoff.validate.cli import validate_command

    return validate_command


app.command(
    "validate",
    help="Validate the fabric against the intent and the lossless rules: offline, on a snapshot, or live.",
)(_validate_command())


def _push_commands() -> None:
    from xoff.push.cli import inventory_app, push_command

    app.command("push", help="Push the rendered configuration: back up, diff, apply, verify, roll back on failure.")(
        push_command
    )
    app.add_typer(inventory_app, name="inventory", help="Export the inventory built from intent (Nornir, Ansible).")


_push_commands()


def _lab_app() -> typer.Typer:
    from xoff.lab.clab_cli import export_command
    from xoff.lab.cli import lab_app
    from xoff.lab.faults.cli import fault_command

    lab_app.command("export", help="Write a containerlab topology (.clab.yml) for the intent, for users with Docker.")(
        export_command
    )
    lab_app.command(
        "fault", help="Seed (or --undo) a named fault into a running lab device, as an operator's mistake would."
    )(fault_command)
    return lab_app


app.add_typer(
    _lab_app(), name="lab", help="Bring the intent's fabric up on this machine (namespaces, FRR, lldpd, SSH, ibsim)."
)


def _version(value: bool) -> None:
    if value:
        print(f"xoff {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="print the version")
    ] = False,
) -> None:
    """xoff: declare a GPU cluster's networks once; render, push, collect and validate them."""


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
