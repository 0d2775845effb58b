"""The ``xoff`` command line. Thin: parse arguments, call one ``xoff.api`` function, show the result,
exit with an ``xoff.exitcodes.ExitCode``.

A command's code is imported only when it runs: the commands defined here import their machinery in
their bodies, and ``collect``, ``validate``, ``push``, ``inventory`` and ``lab`` are registered by name
(``LAZY``) and loaded when invoked (``xoff --help`` lists them from that table alone).
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

from xoff import __version__
from xoff.cli.output import exit_bad_input, terminal, write_file, write_report
from xoff.errors import InputError, Problem
from xoff.exitcodes import ExitCode

if TYPE_CHECKING:
    from xoff.buffers import AsicSpec, Headroom

try:  # the click typer builds on: its own copy in recent typer, else the click package
    from typer._click.core import Command, Context
except ImportError:  # pragma: no cover - older typer
    from click import Command, Context  # type: ignore[assignment]


@functools.cache  # the lab app gets its export and fault commands once per process
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


def _attr(module: str, name: str) -> Callable[[], Any]:
    return lambda: getattr(importlib.import_module(module), name)


# command name -> (what it is, when loaded, its one-line help for `xoff --help`)
LAZY: dict[str, tuple[Callable[[], Any], str]] = {
    "collect": (
        _attr("xoff.cli.collect", "collect_command"),
        "Read every device's running state (FabricState + LLDP, BGP, counters, host facts) into a snapshot.",
    ),
    "validate": (
        _attr("xoff.cli.validate", "validate_command"),
        "Validate the fabric against the intent and the lossless rules: --offline, --snapshot, --lab or --live.",
    ),
    "diff": (_attr("xoff.cli.diff", "diff_command"), "What changed in the running state between two snapshots."),
    "push": (
        _attr("xoff.cli.push", "push_command"),
        "Push the rendered configuration: back up, diff, apply, verify, roll back on failure.",
    ),
    "runs": (_attr("xoff.cli.runs", "runs_command"), "List the push and rollback runs, their devices and outcomes."),
    "rollback": (_attr("xoff.cli.rollback", "rollback_command"), "Restore the backups a push run took, verify."),
    "inventory": (
        _attr("xoff.cli.push", "inventory_app"),
        "Export the inventory built from intent (Nornir, Ansible).",
    ),
    "change": (
        _attr("xoff.cli.change", "change_command"),
        "What a change of intent (BASE -> HEAD: paths or git revisions) does to the fabric, and whether it is safe.",
    ),
    "snapshot": (_attr("xoff.cli.snapshot", "snapshot_app"), "Join shard snapshots into one (snapshot merge)."),
    "watch": (
        _attr("xoff.cli.watch", "watch_command"),
        "Watch the counters over time: pause storms, slow drains, drops, ECN, headroom, FEC, optics, stragglers.",
    ),
    "scale": (
        _attr("xoff.cli.scale", "scale_command"),
        "Write the intent reduced to a smaller fabric of the same design (--scale min or a factor), for the lab.",
    ),
    "lab": (
        _lab_app,
        "Bring the intent's fabric up on this machine (namespaces, FRR, lldpd, SSH, ibsim).",
    ),
}


def _lazy_command(name: str) -> Command:
    loader, help_text = LAZY[name]
    obj = loader()
    if isinstance(obj, typer.Typer):
        command: Command = typer.main.get_group(obj)
    else:
        single = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
        single.command(name, help=help_text)(obj)
        command = typer.main.get_command(single)
    command.name, command.help = name, help_text
    return command


class LazyGroup(TyperGroup):
    """The root group: the ``LAZY`` commands are listed from their names and help, and imported only
    when one is invoked (``resolve_command``)."""

    def list_commands(self, ctx: Context) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in LAZY if n not in self.commands)]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if cmd_name in LAZY and cmd_name not in self.commands:
            command: Command | None = TyperCommand(cmd_name, help=LAZY[cmd_name][1])  # for the help listing only
        else:
            command = super().get_command(ctx, cmd_name)
        if command is not None and command.short_help is None and command.help:
            # the listing shows the first paragraph whole (wrapped), not cut to one line with "..."
            command.short_help = " ".join(command.help.strip().split("\n\n")[0].split())
        return command

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        if args and args[0] in LAZY and args[0] not in self.commands:
            self.add_command(_lazy_command(args[0]), args[0])
        return super().resolve_command(ctx, args)


# Plain help and usage errors (click's own formatter, rich_markup_mode=None): rich's help panels load
# rich.markdown, markdown_it and pygments, which doubled what `xoff --help` costs (bench/results/startup.md).
app = typer.Typer(
    name="xoff",
    help="Intent-driven configuration and validation for GPU cluster networks (lossless RoCE, InfiniBand).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
    cls=LazyGroup,
)


class Format(StrEnum):
    text = "text"
    json = "json"


IntentArg = Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="text for people, json for machines")]
ScaleOpt = Annotated[
    str | None, typer.Option("--scale", help="the reduced fabric: min, or a factor in (0, 1] (see xoff scale)")
]


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
    if fmt is not Format.json:
        exit_bad_input(exc)
    print(json.dumps({"ok": False, "problems": [_problem_json(p) for p in exc.sorted()]}, indent=2))
    raise typer.Exit(ExitCode.BAD_INPUT)


@app.command()
def check(path: IntentArg, fmt: FormatOpt = Format.text) -> None:
    """Load the intent strictly, plan it and run the pre-change checks on the plan.

    Bad input: one line per problem, FILE:LINE:COL: path: what (allowed), exit 2.
    Checks that find problems: exit 1 (warnings alone do not fail).
    """
    from xoff import api
    from xoff.cli.edge import keep
    from xoff.report.plan_text import check_results, intent_summary

    try:
        report = api.check(path)
    except InputError as exc:
        _fail_input(exc, fmt)
    keep(report)  # to the process's end when the console script runs us: not freed object by object (cli.edge)
    intent, state, results, failed = report.loaded.intent, report.loaded.state, report.results, report.failed
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
        raise typer.Exit(ExitCode.FINDINGS if failed else ExitCode.OK)
    console = terminal()
    console.print(intent_summary(intent, state))
    console.print(check_results(results))
    if failed:
        console.print("[red]intent loads, but checks found problems[/red]")
        raise typer.Exit(ExitCode.FINDINGS)
    console.print("[green]intent OK[/green]")


@app.command()
def plan(
    path: IntentArg,
    asked: Annotated[
        Format | None, typer.Option("--format", "-f", help="json (the default) for machines, text for people")
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file")] = None,
    device: Annotated[str | None, typer.Option("--device", "-d", help="only this device")] = None,
    scale: ScaleOpt = None,
) -> None:
    """Build the vendor-neutral desired state (FabricState) of every device.

    Bad input: one line per problem on stderr, exit 2 (as JSON on stdout only when --format json is asked).
    With --scale: the plan of the reduced fabric (see xoff scale); what was reduced is said on stderr.
    """
    import tempfile

    from xoff import api
    from xoff.cli.edge import keep
    from xoff.cli.scale import scaled_source
    from xoff.report.plan_text import device_detail, plan_summary

    fmt = asked or Format.json  # the plan itself is JSON by default; its problems are lines unless JSON is asked
    try:
        with tempfile.TemporaryDirectory(prefix="xoff-scale-") as work:
            loaded = api.load(scaled_source(path, scale, Path(work)))
    except InputError as exc:
        _fail_input(exc, asked or Format.text)
    try:
        result = api.plan(loaded, api.PlanOptions(device=device))
    except InputError as exc:
        exit_bad_input(exc)  # a bad option value: its lines on stderr, whatever the format
    keep(result)  # not freed object by object at the end (cli.edge)
    state = loaded.state
    if fmt is Format.json:
        payload = result.to_json()
        write_report(payload + "\n", output, f" ({len(state.devices)} devices)")
        return
    from rich.console import Console

    console = Console(file=output.open("w", encoding="utf-8"), width=160) if output else terminal()
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
    scale: ScaleOpt = None,
) -> None:
    """Render every device's configuration (SONiC, EOS, NVUE, hosts, OpenSM) from the desired state.

    With --diff DIR: the unified diff against an earlier output, nothing written; exit 1 when something
    differs, 0 when nothing does (as diff(1)), 2 bad input. With --scale: the reduced fabric (see xoff scale).
    """
    import tempfile

    from xoff import api
    from xoff.cli.edge import keep
    from xoff.cli.scale import scaled_source

    try:
        with tempfile.TemporaryDirectory(prefix="xoff-scale-") as work:
            loaded = api.load(scaled_source(path, scale, Path(work)))
    except InputError as exc:
        _fail_input(exc, fmt)
    try:
        result = api.render(loaded, api.RenderOptions(output=output, devices=tuple(device or ()), diff_against=diff))
    except InputError as exc:
        exit_bad_input(exc)  # a bad option value: its lines on stderr, whatever the format
    keep(result)  # not freed object by object at the end (cli.edge)
    if result.diff is not None:  # like diff(1): 1 when something differs, 0 when nothing does (CI gates on it)
        print(result.diff, end="")
        if not result.diff:
            print(f"render: no differences from {diff}", file=sys.stderr)
        raise typer.Exit(ExitCode.FINDINGS if result.diff else ExitCode.OK)
    files, manifest_path, devices = result.files, result.manifest, result.devices
    if fmt is Format.json:
        print(
            json.dumps({"output": str(output), "manifest": str(manifest_path), "devices": devices, "files": len(files)})
        )
    else:
        terminal().print(
            f"rendered {len(files)} files for {devices} devices into {output}/ (manifest: {manifest_path})"
        )


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
        write_file(output, text)


class Model(StrEnum):
    static = "static"
    dynamic = "dynamic"


class Rounding(StrEnum):
    exact = "exact"
    up = "up"


@app.command()
def headroom(
    speed: Annotated[str, typer.Option(help="port speed, e.g. 400G")],
    cable: Annotated[str, typer.Option(help="cable length in metres, e.g. 40m")],
    asic: Annotated[str | None, typer.Option(help="ASIC family, e.g. spectrum4, tomahawk5 (or give --sku)")] = None,
    sku: Annotated[
        str | None, typer.Option(help="catalogue SKU (SONiC HWSKU or known name: SN5600, 7060X6-64PE): its table")
    ] = None,
    model: Annotated[Model, typer.Option(help="static: the lookup table's row only; dynamic: formula")] = Model.static,
    cable_rounding: Annotated[
        Rounding, typer.Option(help="static: exact row only, or the nearest longer cable's row (up)")
    ] = Rounding.exact,
    mtu: Annotated[int, typer.Option(help="port MTU")] = 9100,
    lossless_mtu: Annotated[int, typer.Option(help="lossless traffic MTU (LOSSLESS_TRAFFIC_PATTERN)")] = 1024,
    small_packet_percent: Annotated[
        int, typer.Option(help="share of small packets, percent (SONiC's dynamic template: 50)")
    ] = 50,
    shared_headroom_pool: Annotated[bool, typer.Option(help="headroom comes from a shared pool")] = False,
    eight_lanes: Annotated[bool, typer.Option(help="8-lane port (doubles pipeline latency)")] = False,
    gearbox_delay_ns: Annotated[
        int, typer.Option("--gearbox-delay-ns", help="gearbox (external PHY) delay in ns; 0: none")
    ] = 0,
    dynamic_th: Annotated[int, typer.Option(help="threshold of a formula profile (a table row gives its own)")] = 0,
    fmt: FormatOpt = Format.text,
) -> None:
    """Lossless PG headroom (xon, xoff, size, threshold) for one port, and which lookup row or formula gave it."""
    from xoff.buffers import HeadroomUnavailable, headroom_for
    from xoff.buffers.catalogue import switch_asic
    from xoff.intent.headroom_args import parse_headroom_args

    try:
        if (asic is None) == (sku is None):
            raise ValueError("give --asic or --sku (one of them)")
        speed_mbps, cable_m = parse_headroom_args(speed, cable)
        spec = switch_asic(asic or "", sku)
        room = headroom_for(
            spec,
            speed_mbps,
            cable_m,
            model=model.value,
            port_mtu=mtu,
            lossless_mtu=lossless_mtu,
            small_packet_percent=small_packet_percent,
            shared_headroom_pool=shared_headroom_pool,
            gearbox_delay_ns=gearbox_delay_ns,
            eight_lanes=eight_lanes,
            cable_rounding=cable_rounding.value,
        )
    except (ValueError, KeyError) as exc:
        if isinstance(exc, HeadroomUnavailable):
            print(f"headroom: {exc}", file=sys.stderr)
        else:
            print(f"headroom: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        raise typer.Exit(ExitCode.BAD_INPUT) from None
    result = {
        "asic": spec.name,
        "sku": spec.sku,
        "model": model.value,
        "speed_mbps": speed_mbps,
        "cable_m": cable_m,
        "profile": room.profile_name,
        "xon": room.xon,
        "xoff": room.xoff,
        "size": room.size,
        "dynamic_th": dynamic_th if room.dynamic_th is None else room.dynamic_th,
        "xon_offset": room.xon_offset,
        # every lossless PG profile draws from SONiC's ingress lossless pool (its xoff with a shared headroom pool)
        "pool": "ingress_lossless_pool",
        "source": room.source,
        "from": _headroom_origin(
            spec,
            room,
            cable_rounding.value if model is Model.static else None,
            {
                "port_mtu": mtu,
                "lossless_mtu": lossless_mtu,
                "small_packet_percent": small_packet_percent,
                "shared_headroom_pool": shared_headroom_pool,
                "eight_lanes": eight_lanes,
            },
        ),
    }
    if fmt is Format.json:
        print(json.dumps(result, indent=2))
        return
    console = terminal()
    console.print(f"[bold]{room.profile_name}[/bold] on {spec.table_owner}")
    for key in ("xon", "xoff", "size"):
        console.print(f"  {key:<4} {result[key]:>8} bytes")
    if room.xon_offset is not None:
        console.print(f"  xon_offset {room.xon_offset} bytes")
    console.print(f"  dynamic_th {result['dynamic_th']}, pool ingress_lossless_pool")
    console.print(f"  source: {room.source}", soft_wrap=True)


def _headroom_origin(
    spec: AsicSpec, room: Headroom, rounding: Literal["exact", "up"] | None, knobs: dict[str, object]
) -> dict[str, object]:
    """``xoff headroom``'s source as data: the table file and row (static), or the formula and its inputs."""
    from xoff.buffers.static import table_row

    row = table_row(spec, room.speed_mbps, room.cable_m, rounding) if rounding is not None else None
    if row is not None:
        return {"file": row.source, "row": {"speed": row.speed_mbps, "cable": f"{row.cable_m}m"}}
    where = {"asic": spec.name, "speed": room.speed_mbps, "cable": f"{room.cable_m}m"}
    return {"formula": "buffer_headroom_mellanox", "inputs": {**where, **knobs}}


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
    workers: Annotated[
        int, typer.Option("--workers", help="intent: processes judging the failures (0: one per core)")
    ] = 1,
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
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
) -> None:
    """PFC deadlock risk (cyclic buffer dependency): of an intent's fabric from its routing model, or of a
    forwarding snapshot (reference/forwarding-snapshot.md); InfiniBand credit loops from the LFTs and
    SL2VL tables OpenSM programmed (--ib-lab / --ib-dump)."""
    from xoff.cli.deadlock import run_deadlock

    run_deadlock(
        intent=intent,
        snapshot=snapshot,
        ib_lab=ib_lab,
        ib_dump=ib_dump,
        failures=failures,
        routing=routing.value,
        workers=workers,
        network=network,
        export_snapshot=export_snapshot,
        sl=tuple(sl) if sl else None,
        save=save,
        json_format=fmt is Format.json,
        fail_on_risk=fail_on_risk,
        quiet=quiet,
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


def run() -> NoReturn:
    """The console script and ``python -m xoff``: :func:`main`, then the process ends with its status without freeing
    what the command built (``xoff.cli.edge``). In process, call :func:`main`: it ends in ``SystemExit``."""
    from xoff.cli.edge import leave_after

    leave_after(main)


def main() -> None:
    from xoff.gcpause import for_batch_run

    for_batch_run()  # once, at the program's edge: the library never touches the collector (bench/results/gc_edge.md)
    try:
        app()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(ExitCode.INTERRUPTED)
    except OSError as exc:
        if exc.filename is None:
            raise
        # a path from the command line that cannot be written or read (a directory, no parent, no permission):
        # bad input, one line, never a traceback
        print(
            f"{exc.filename}:1:1: cannot use this path: {exc.strerror} (allowed: a file path xoff can write)",
            file=sys.stderr,
        )
        sys.exit(ExitCode.BAD_INPUT)
