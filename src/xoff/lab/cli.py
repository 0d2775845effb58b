"""``xoff lab``: up, status, list, exec, down (a typer sub-app; the root CLI adds it as ``lab``).

Every command takes the lab's name as ``--name`` (documented) or ``--lab`` (the spelling of push, collect
and validate, accepted here too). Exit status: 0 success, 1 the lab is not healthy (status) or a command
failed, 2 bad input or usage (also ``up`` refusing addresses outside the lab-safe ranges, or colliding
with this machine's own networks, without ``--remap``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from xoff.errors import InputError

if TYPE_CHECKING:
    from xoff.intent.resolved import Intent

lab_app = typer.Typer(
    name="lab",
    help="The intent's fabric on this machine: namespaces, veths, FRR, lldpd, SSH, NOS emulators, ibsim + OpenSM.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,  # plain help, as the root's (xoff.cli)
)

NameOpt = Annotated[
    str | None,
    typer.Option("--name", "-n", "--lab", help="lab name (default: the only lab that is up; --lab: the same)"),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")]


def _fail(message: str, code: int = 2) -> None:
    print(f"xoff lab: {message}", file=sys.stderr)
    raise typer.Exit(code)


@lab_app.command("up")
def up_cmd(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    name: Annotated[
        str | None, typer.Option("--name", "-n", "--lab", help="lab name (default: the fabric's name; --lab: the same)")
    ] = None,
    remap: Annotated[bool, typer.Option("--remap", help="map every IPv4 address into 198.18.0.0/15")] = False,
    scale: Annotated[
        str | None,
        typer.Option("--scale", help="the same design reduced (min, or a factor in (0, 1]): see xoff scale"),
    ] = None,
    quiet: QuietOpt = False,
) -> None:
    """Bring the lab up (or complete it: a second run starts only what is missing)."""
    from xoff.lab.lab import LabError, UnsafeAddressError, up  # noqa: PLC0415 (xoff --help stays fast)
    from xoff.progress.display import progress_display  # noqa: PLC0415

    try:
        if scale is not None:
            intent = _scaled(intent, name, scale)
        with progress_display(quiet) as progress:
            report = up(intent, name, remap_addresses=remap, progress=progress)
    except InputError as exc:
        for p in exc.sorted():
            print(str(p), file=sys.stderr)
        raise typer.Exit(2) from None
    except UnsafeAddressError as exc:  # bad input (the intent's addresses), as the README promises: exit 2
        _fail(str(exc), 2)
        return
    except (LabError, ValueError, OSError, RuntimeError) as exc:
        _fail(str(exc), 1)
        return
    moved = [line for line in report.remap if len(set(line.split(" -> "))) == 2]
    if report.remap:
        kept = len(report.remap) - len(moved)
        print(f"--remap: {len(moved)} address blocks moved into 198.18.0.0/15, {kept} already there kept:")
        for line in moved:
            print(f"  {line}")
    made = ", ".join(f"{n} {what}" for what, n in report.created.items() if n)
    print(f"lab {report.lab}: {'up' if report.changed else 'already up, nothing to do'} in {report.seconds:.1f} s")
    if made:
        print(f"  created: {made}")
    if report.started:
        print(f"  started {len(report.started)} processes: {', '.join(report.started)}")
    if report.kept:
        print(f"  already running: {len(report.kept)} processes")
    for w in report.warnings:
        print(f"  warning: {w}")
    print(f"  files: {report.lab_dir} (ssh -F {report.lab_dir}/ssh/config <device>)")


def _scaled(intent: Path, name: str | None, scale: str) -> Path:
    """``intent`` reduced by ``scale``, written into the lab's directory (``xoff scale``'s file): the intent the lab
    runs, to push and validate."""
    from xoff.intent.scale import parse_scale  # noqa: PLC0415
    from xoff.intent.scale_file import scale_to  # noqa: PLC0415
    from xoff.lab import names  # noqa: PLC0415

    stem = intent.stem if intent.suffix in (".yaml", ".yml") else intent.name

    def where(full: Intent) -> Path:  # the lab is named after the fabric unless --name says otherwise
        return names.lab_dir(names.check_lab_name(name or names.lab_name(full.name))) / "scaled" / f"{stem}.yaml"

    done = scale_to(intent, parse_scale(scale), where)
    print(
        f"--scale {scale}: {done.switches[0]} -> {done.switches[1]} switches, {done.hosts[0]} -> {done.hosts[1]} hosts"
    )
    for line in done.reduced:
        print(f"  {line}")
    print(f"  reduced intent (push and validate it): {done.path}")
    return done.path


def _text_status(s: dict[str, Any]) -> None:  # noqa: C901, PLR0912 -- one print per part of the status record, in the order `xoff lab status` shows them
    bridge = s["bridge"]
    print(f"lab {s['lab']} ({s['fabric']}): {s['lab_dir']}")
    for line in s["remap"]:
        src, dst = line.split(" -> ")
        if src != dst:
            print(f"  remapped {line}")
    print(f"  bridge {bridge['name']} {'up' if bridge['exists'] else 'MISSING'}, controller {bridge['controller']}")
    print(f"  processes: {s['processes_alive']}/{s['processes']} alive")
    for name, d in s["devices"].items():
        procs = " ".join(f"{role}:{'ok' if p['alive'] else 'DEAD'}" for role, p in d["processes"].items())
        ns = "" if d["netns_exists"] else " NAMESPACE MISSING"
        print(f"  {name:<12} {d['kind']:<9} {d['platform']:<10} {d['mgmt_address']:<18} {procs}{ns}")
    bgp = s["bgp"]
    print(f"  BGP: {bgp['established']}/{bgp['sessions']} sessions Established")
    for device, sessions in bgp["by_device"].items():
        if isinstance(sessions, dict):
            print(f"    {device}: {sessions['error']}")
            continue
        for x in sessions:
            print(f"    {device:<12} {x['neighbor']:<16} AS{x['remote_as']} {x['peer'] or '?':<12} {x['state']}")
    lv = s["lldp_vs_cabling"]
    print(f"  LLDP: {lv['matching']}/{lv['expected']} cable ends see the neighbour the intent cabled")
    for device, found in s["lldp"].items():
        if isinstance(found, dict):
            print(f"    {device}: {found['error']}")
            continue
        for n in found:
            print(f"    {device}:{n['port']} -> {n['remote']}:{n['remote_port']}")
    for what in ("missing", "unexpected"):
        for x in lv[what]:
            print(f"    {what}: {x}")
    if s["infiniband"] is not None:
        ib = s["infiniband"]
        print(f"  InfiniBand: OpenSM on {ib['host']}: {'SUBNET UP' if ib['subnet_up'] else 'not up'}; {ib['sminfo']}")
    for w in s["warnings"]:
        print(f"  warning: {w}")


@lab_app.command("status")
def status_cmd(
    name: NameOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json")] = "text",
    wait: Annotated[float, typer.Option("--wait", help="wait up to this many seconds for a healthy lab")] = 0.0,
) -> None:
    """Processes, BGP sessions, LLDP neighbours against the cabling, subnet manager state.

    Exit 1 unless all is well: every process alive, every BGP session Established, LLDP equal to
    the cabling, SUBNET UP (with InfiniBand)."""
    from xoff.lab.lab import LabError, resolve  # noqa: PLC0415 (xoff --help stays fast)
    from xoff.lab.observe import healthy, status  # noqa: PLC0415 (xoff --help stays fast)

    if fmt not in {"text", "json"}:
        _fail(f"--format {fmt!r}: allowed: text, json")
    deadline = time.monotonic() + max(wait, 0.0)
    try:
        state = resolve(name)
        s = status(state)
        while not healthy(s) and time.monotonic() < deadline:
            time.sleep(0.5)
            s = status(state)
    except LabError as exc:
        _fail(str(exc), 1)
        return
    ok = healthy(s)
    if fmt == "json":
        print(json.dumps(s | {"healthy": ok}, indent=2))
    else:
        _text_status(s)
        print(f"lab {s['lab']}: {'healthy' if ok else 'NOT healthy'}")
    if not ok:
        raise typer.Exit(1)


@lab_app.command("list")
def list_cmd(fmt: Annotated[str, typer.Option("--format", "-f", help="text or json")] = "text") -> None:
    """Every lab on this machine: name, state (alive, partial, stale), devices, started, intent."""
    from xoff.lab import names  # noqa: PLC0415 (xoff --help stays fast)
    from xoff.lab.listing import as_json, rows, text  # noqa: PLC0415

    if fmt not in {"text", "json"}:
        _fail(f"--format {fmt!r}: allowed: text, json")
    found = rows()
    print(as_json(found) if fmt == "json" else text(found, names.labs_root()))


@lab_app.command("exec", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def exec_cmd(
    device: Annotated[str, typer.Argument(help="device name (intent)")],
    command: Annotated[list[str], typer.Argument(help="command and arguments, after --")],
    name: NameOpt = None,
) -> None:
    """Run a command in a device's namespace: xoff lab exec leaf1 -- ip -j addr."""
    from xoff.lab.lab import LabError, resolve  # noqa: PLC0415 (xoff --help stays fast)
    from xoff.lab.observe import exec_argv, exec_env  # noqa: PLC0415 (xoff --help stays fast)

    try:
        state = resolve(name)
        argv = exec_argv(state, device, command)
    except (LabError, KeyError) as exc:
        _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))
        return
    raise typer.Exit(subprocess.run(argv, env=exec_env(state, device), check=False).returncode)


@lab_app.command("down")
def down_cmd(
    name: NameOpt = None,
    all_labs: Annotated[
        bool, typer.Option("--all", help="every lab, and anything else with the project's prefixes (xl-, xlb, xv)")
    ] = False,
    quiet: QuietOpt = False,
) -> None:
    """Remove the lab: its processes (by PID), namespaces, veths, bridge and files."""
    from xoff.lab.lab import LabError  # noqa: PLC0415 (xoff --help stays fast)
    from xoff.lab.teardown import down, down_all  # noqa: PLC0415
    from xoff.progress.display import progress_display  # noqa: PLC0415

    try:
        with progress_display(quiet) as progress:
            if all_labs:
                done = down_all(progress=progress)
            else:
                report = down(name, progress=progress)
        if all_labs:
            print("\n".join(done) if done else "nothing to remove")
            return
    except LabError as exc:
        _fail(str(exc), 1)
        return
    print(
        f"lab {report.lab}: down in {report.seconds:.1f} s ({report.stopped} processes stopped, "
        f"{report.namespaces} namespaces and {report.interfaces} root interfaces removed)"
    )


if __name__ == "__main__":  # python -m xoff.lab.cli ... (the same as xoff lab ...)
    lab_app()
