"""``modprobe``: load and unload the host's installed modules (see ``kmod.py`` for ``/proc/modules``).

Decision: the shim loads what the emulated host has installed, as the real tool would, instead of
refusing everything. The host script never calls modprobe (GPUDirect is verified, not changed), so
nothing in a push loads a module behind the check's back; an operator (or a test) can still fix a
host the way the check's message says, ``modprobe nvidia-peermem``, and see the check pass. What is
installed is the catalogue ``install()`` wrote: the ConnectX/RDMA stack on every host, the NVIDIA
driver's modules on GPU hosts; anything else is "not found", with kmod's message.

Emulated, with kmod 30's messages (captured from Debian 12): ``[-a] [-r] [-q] [-v] [-n] [-D]
[--first-time] [-b] [-i] [-f] [-s]``, ``-R``, ``-h``, ``-V``; dependencies load first and ``-r``
also removes dependencies nothing else uses. Module names take ``-`` or ``_``. Options that read
configuration or files (``-c``, ``-C``, ``-d``, ``-S``, ``--show-modversions``...) are not emulated
and say so.
"""

from __future__ import annotations

import getopt

from xoff.lab.shims._state import HostRoot, err, out, run
from xoff.lab.shims.kmod import read_loaded, write_loaded

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import NoReturn

    from xoff.lab.shims._state import State

TOOL = "modprobe"
SHORT = "arw:RibfDcnC:d:S:sqvVh"
LONG = [
    "all", "remove", "remove-dependencies", "remove-holders", "wait=", "first-time", "ignore-install",
    "ignore-remove", "use-blacklist", "force", "force-modversion", "force-vermagic", "resolve-alias",
    "show-depends", "showconfig", "show-config", "show-modversions", "dump-modversions", "show-exports",
    "dry-run", "show", "config=", "dirname=", "set-version=", "syslog", "quiet", "verbose", "version", "help",
]  # fmt: skip
NOT_EMULATED = {"-c", "--showconfig", "--show-config", "--show-modversions", "--dump-modversions",
                "--show-exports", "-C", "--config", "-d", "--dirname", "-S", "--set-version"}  # fmt: skip
HELP = (
    "Usage:\n\tmodprobe [options] [-i] [-b] modulename\n\tmodprobe [options] -a [-i] [-b] modulename [modulename...]\n"
    "\tmodprobe [options] -r [-i] modulename\n\tmodprobe [options] -r -a [-i] modulename [modulename...]\n"
    "\tmodprobe [options] -c\n\tmodprobe [options] --dump-modversions filename\nManagement Options:\n"
    "\t-a, --all                   Consider every non-argument to\n\t                            be a module name to be inserted\n"
    "\t                            or removed (-r)\n\t-r, --remove                Remove modules instead of inserting\n"
    "\t    --remove-dependencies   Deprecated: use --remove-holders\n"
    "\t    --remove-holders        Also remove module holders (use together with -r)\n"
    "\t-w, --wait <MSEC>           When removing a module, wait up to MSEC for\n"
    "\t                            module's refcount to become 0 so it can be\n"
    "\t                            removed (use together with -r)\n"
    "\t    --first-time            Fail if module already inserted or removed\n"
    "\t-i, --ignore-install        Ignore install commands\n\t-i, --ignore-remove         Ignore remove commands\n"
    "\t-b, --use-blacklist         Apply blacklist to resolved alias.\n"
    "\t-f, --force                 Force module insertion or removal.\n"
    "\t                            implies --force-modversions and\n\t                            --force-vermagic\n"
    "\t    --force-modversion      Ignore module's version\n\t    --force-vermagic        Ignore module's version magic\n"
    "\nQuery Options:\n\t-R, --resolve-alias         Only lookup and print alias and exit\n"
    "\t-D, --show-depends          Only print module dependencies and exit\n"
    "\t-c, --showconfig            Print out known configuration and exit\n"
    "\t-c, --show-config           Same as --showconfig\n\t    --show-modversions      Dump module symbol version and exit\n"
    "\t    --dump-modversions      Same as --show-modversions\n"
    "\t    --show-exports          Only print module exported symbol versions and exit\n"
    "\nGeneral Options:\n\t-n, --dry-run               Do not execute operations, just print out\n"
    "\t-n, --show                  Same as --dry-run\n\t-C, --config=FILE           Use FILE instead of default search paths\n"
    "\t-d, --dirname=DIR           Use DIR as filesystem root for /lib/modules\n"
    "\t-S, --set-version=VERSION   Use VERSION instead of `uname -r`\n"
    "\t-s, --syslog                print to syslog, not stderr\n\t-q, --quiet                 disable messages\n"
    "\t-v, --verbose               enables more messages\n\t-V, --version               show version\n"
    "\t-h, --help                  show this help"
)  # fmt: skip
VERSION = "kmod version 30\n+ZSTD +XZ -ZLIB +LIBCRYPTO -EXPERIMENTAL"


class _FailedError(Exception):
    pass


def _getopt_message(e: getopt.GetoptError) -> str:
    """glibc getopt_long's wording for what Python's getopt found."""
    opt = e.opt
    long = len(opt) > 1
    if "not recognized" in e.msg or "not a unique prefix" in e.msg:
        return f"{TOOL}: unrecognized option '--{opt}'" if long else f"{TOOL}: invalid option -- '{opt}'"
    if "must not have an argument" in e.msg:
        return f"{TOOL}: option '--{opt}' doesn't allow an argument"
    return (
        f"{TOOL}: option '--{opt}' requires an argument" if long else f"{TOOL}: option requires an argument -- '{opt}'"
    )


def main(root: HostRoot, argv: list[str]) -> int:  # noqa: C901, PLR0911, PLR0912 -- one exit per modprobe option and refusal, with kmod's messages and exit codes
    try:
        opts, args = getopt.gnu_getopt(argv, SHORT, LONG)
    except getopt.GetoptError as e:
        err(_getopt_message(e))
        return 1
    flags = {o for o, _ in opts}
    for o in flags & NOT_EMULATED:
        err(f"{TOOL} (xoff lab shim): option {o} is not emulated")
        return 2
    if flags & {"-h", "--help"}:
        out(HELP)
        return 0
    if flags & {"-V", "--version"}:
        out(VERSION)
        return 0
    if not args:
        err(f"{TOOL}: ERROR: missing parameters. See -h.")
        return 1
    names = args if flags & {"-a", "--all"} else args[:1]  # without -a, the rest are module parameters
    quiet = bool(flags & {"-q", "--quiet"})
    verbose = bool(flags & {"-v", "--verbose"})
    dry = bool(flags & {"-n", "--dry-run", "--show"})
    with root.state(write=not dry) as state:
        try:
            if flags & {"-R", "--resolve-alias"}:
                for name in names:
                    out(_resolve(state, name, quiet))
            elif flags & {"-D", "--show-depends"}:
                for name in names:
                    for mod in _with_deps(state, _resolve(state, name, quiet)):
                        out(f"insmod /lib/modules/{state['kernel_release']}/{state['modules'][mod]['path']} ")
            elif flags & {"-r", "--remove"}:
                for name in names:
                    _remove(root, state, name, quiet, verbose, dry, bool(flags & {"--first-time"}))
            else:
                for name in names:
                    _insert(root, state, name, quiet, verbose, dry, bool(flags & {"--first-time"}))
        except _FailedError:
            return 1
    return 0


def _resolve(state: State, name: str, quiet: bool, removing: bool = False) -> str:
    key = name.replace("-", "_")
    if key not in state["modules"]:
        if not quiet:
            where = "." if removing else f" in directory /lib/modules/{state['kernel_release']}"
            err(f"{TOOL}: FATAL: Module {name} not found{where}")
        raise _FailedError
    return key


def _with_deps(state: State, name: str) -> list[str]:
    """``name`` and everything it needs, dependencies first."""
    order: list[str] = []

    def visit(m: str) -> None:
        for dep in state["modules"][m]["deps"]:
            visit(dep)
        if m not in order:
            order.append(m)

    visit(name)
    return order


def _insert(root: HostRoot, state: State, name: str, quiet: bool, verbose: bool, dry: bool, first_time: bool) -> None:
    mod = _resolve(state, name, quiet)
    loaded = [m.name for m in reversed(read_loaded(root.root))]  # oldest first
    if mod in loaded:
        if first_time:
            if not quiet:
                err(f"{TOOL}: ERROR: could not insert '{mod}': Module already in kernel")
            raise _FailedError
        return
    for m in _with_deps(state, mod):
        if m in loaded:
            continue
        if verbose:
            out(f"insmod /lib/modules/{state['kernel_release']}/{state['modules'][m]['path']} ")
        loaded.append(m)
    if not dry:
        write_loaded(root.root, state, loaded)


def _remove(root: HostRoot, state: State, name: str, quiet: bool, verbose: bool, dry: bool, first_time: bool) -> None:
    del first_time  # kmod says "not in kernel" either way
    mod = _resolve(state, name, quiet, removing=True)
    current = read_loaded(root.root)
    by_name = {m.name: m for m in current}
    if mod not in by_name:
        if not quiet:
            err(f"{TOOL}: FATAL: Module {mod} is not in kernel.")
        raise _FailedError
    if by_name[mod].refcnt > 0:
        if not quiet:
            err(f"{TOOL}: FATAL: Module {mod} is in use.")
        raise _FailedError
    loaded = [m.name for m in reversed(current)]
    loaded.remove(mod)
    if verbose:
        out(f"rmmod {mod}")
    # then the dependencies that nothing loaded needs any more (kmod's rmmod of unused dependencies)
    pending = list(state["modules"][mod]["deps"])
    while pending:
        dep = pending.pop(0)
        users = [m for m in loaded if dep in state["modules"][m]["deps"]]
        if dep in loaded and not users and int(state["modules"][dep]["refs"]) == 0:
            loaded.remove(dep)
            if verbose:
                out(f"rmmod {dep}")
            pending += state["modules"][dep]["deps"]
    if not dry:
        write_loaded(root.root, state, loaded)


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, TOOL)


if __name__ == "__main__":
    cli()
