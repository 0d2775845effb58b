"""``lsmod``: the loaded modules, as kmod's lsmod prints ``/proc/modules`` (see ``kmod.py``).

kmod 30 (``tools/lsmod.c``): a header, then ``%-19s %8ld  %d`` per module and its holders after one
space, comma-separated. Any argument is refused with ``Usage: lsmod``, exit 1; a missing
``/proc/modules`` gives libkmod's two error lines, exit 1 (both captured from Debian 12's kmod).
"""

from __future__ import annotations

from xoff.lab.shims._state import HostRoot, err, out, run
from xoff.lab.shims.kmod import read_loaded

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import NoReturn

TOOL = "lsmod"


def main(root: HostRoot, argv: list[str]) -> int:
    if argv:
        err(f"Usage: {TOOL}")
        return 1
    try:
        loaded = read_loaded(root.root)
    except FileNotFoundError:
        err(
            "libkmod: ERROR ../libkmod/libkmod-module.c:1725 kmod_module_new_from_loaded: "
            "could not open /proc/modules: No such file or directory"
        )
        err("Error: could not get list of modules: No such file or directory")
        return 1
    out("Module                  Size  Used by")
    for m in loaded:
        line = f"{m.name:<19} {m.size:>8}  {m.refcnt}"
        if m.users:
            line += " " + ",".join(m.users)
        out(line)
    return 0


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, TOOL)


if __name__ == "__main__":
    cli()
