"""``cma_roce_mode`` and ``cma_roce_tos``: RDMA-CM's default RoCE mode and ToS of a port.

Both are bash scripts in Mellanox/mlnx-tools (``sbin/cma_roce_mode``, ``sbin/cma_roce_tos``) over the
kernel's ``rdma_cm`` configfs (``Documentation/ABI/testing/configfs-rdma_cm``): parse options with
``getopts``, ``mkdir /sys/kernel/config/rdma_cm/<dev>`` (the kernel creates ``ports/<n>/``), write
the new value if one was given, ``cat`` it, ``rmdir`` the device again. The shim keeps the script's
behaviour, quirks included:

- an unknown option is reported by getopts on stderr and otherwise ignored (the script goes on);
- a value that is not a number is reported by ``[`` on stderr, with the script's line number, and
  ignored; ``cma_roce_mode -m 3`` is silently ignored;
- a value the kernel refuses (``RoCE v2`` on an InfiniBand port: EINVAL; a ToS above 255: ERANGE)
  fails the ``echo`` with bash's "write error", and the script still prints the unchanged value and
  exits 0, as the real one does;
- an unknown device fails the ``mkdir`` (ENODEV), an unknown port is "does not exist": exit 1.

The per-port values live in the state file (in a real kernel they outlive the configfs directory,
which the script removes after each call). Messages bash prints start with the path the tool was
invoked as (``$0``), which the wrapper passes in ``XOFF_SHIM_ARGV0``. Like the lab's hosts, the shim
runs as root, so the scripts' "You must be root" check never fires.
"""

from __future__ import annotations

import os
import re

from xoff.lab.shims._state import HostRoot, argv0, err, out, read

_BASH_INT = re.compile(r"^[+-]?[0-9]+$")


class Script:
    """One of the two MLNX_OFED scripts: what its getopts, usage text and ``[ ... ]`` tests are (a
    plain class: ``dataclasses`` costs a shim more to import than its work)."""

    __slots__ = ("default", "name", "optstring", "test_lines", "test_op", "usage", "value_option", "write_lines")

    def __init__(
        self,
        *,
        name: str,
        optstring: str,
        value_option: str,
        default: str,
        usage: str,
        test_op: str,
        test_lines: tuple[int, ...],
        write_lines: tuple[int, ...],
    ) -> None:
        self.name = name
        self.optstring = optstring  # getopts' option string: a letter followed by ':' takes an argument
        self.value_option = value_option  # the option that sets the value (-m / -t)
        self.default = default  # the script's initial value of the variable the option sets
        self.usage = usage
        self.test_op = test_op  # the operator of the script's `[ $MODE <op> N ]` tests
        self.test_lines = test_lines  # the script's lines with those tests, in order
        self.write_lines = write_lines  # the lines of the `echo ... > default_roce_*` that each test guards


ROCE_MODE = Script(
    name="cma_roce_mode",
    optstring="d:m:hp:",
    value_option="m",
    default="0",
    usage="Set/Show RoCE default mode of RDMA_CM applications\n\nUsage:\n\tcma_roce_mode OPTIONS\nOptions:\n"
    "\t-h              show this help\n\t-d <dev>        use IB device <dev> (default mlx5_0)\n"
    "\t-p <port>       use port <port> of IB device (default 1)\n"
    "\t-m <roce_mode>  set RoCE mode of RDMA_CM applications (1 or 2)",
    test_op="-eq",
    test_lines=(108, 110),
    write_lines=(109, 111),
)
ROCE_TOS = Script(
    name="cma_roce_tos",
    optstring="d:t:hp:",
    value_option="t",
    default="-1",
    usage="Set/Show RoCE default ToS of RDMA_CM applications\n\nUsage:\n\tcma_roce_tos OPTIONS\nOptions:\n"
    "\t-h              show this help\n\t-d <dev>        use IB device <dev> (default mlx5_0)\n"
    "\t-p <port>       use port <port> of IB device (default 1)\n"
    "\t-t <tos>        set ToS of RoCE RDMA_CM applications (0)",
    test_op="-ge",
    test_lines=(109,),
    write_lines=(110,),
)


class _Exit(Exception):  # noqa: N818 - the script's `exit`
    def __init__(self, status: int) -> None:
        self.status = status


def getopts(script: Script, argv: list[str], me: str) -> dict[str, str]:
    """bash's ``getopts`` loop over ``argv`` (non-silent mode); returns the options the case handles."""
    takes_arg = {c for i, c in enumerate(script.optstring) if c != ":" and script.optstring[i + 1 : i + 2] == ":"}
    known = {c for c in script.optstring if c != ":"}
    found: dict[str, str] = {}
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            break
        if not word.startswith("-") or word == "-":
            break
        i += 1
        j = 1
        while j < len(word):
            c = word[j]
            j += 1
            if c not in known:
                err(f"{me}: illegal option -- {c}")
                continue
            if c in takes_arg:
                if j < len(word):
                    value, j = word[j:], len(word)
                elif i < len(argv):
                    value = argv[i]
                    i += 1
                else:
                    err(f"{me}: option requires an argument -- {c}")
                    continue
                found[c] = value
            elif c == "h":
                out(script.usage)
                raise _Exit(0)
    return found


def bash_int_test(value: str, op: str, me: str, line: int) -> int | None:
    """``[ $MODE <op> N ]``: the integer bash compares, or None (and bash's message) when the test errors."""
    words = value.split()
    if not words:
        err(f"{me}: line {line}: [: {op}: unary operator expected")
        return None
    if len(words) > 1:
        err(f"{me}: line {line}: [: too many arguments")
        return None
    if not _BASH_INT.match(words[0]):
        err(f"{me}: line {line}: [: {words[0]}: integer expression expected")
        return None
    return int(words[0])


def kstrtou8(text: str) -> int | None:
    """The kernel's kstrtou8(buf, 0): base from the prefix (0x hex, 0 octal), '+' allowed; None = invalid."""
    s = text.strip()
    s = s.removeprefix("+")
    try:
        if s.lower().startswith("0x"):
            return int(s[2:], 16)
        if len(s) > 1 and s.startswith("0"):
            return int(s[1:], 8)
        return int(s, 10)
    except ValueError:
        return None


def main(script: Script, root: HostRoot, argv: list[str]) -> int:
    me = argv0(script.name)
    try:
        opts = getopts(script, argv, me)
    except _Exit as e:
        return e.status
    device = opts.get("d", "mlx5_0")
    port = opts.get("p", "1")
    value = opts.get(script.value_option, script.default)
    if not os.path.isdir(root.path("/sys/kernel/config/rdma_cm")):
        out("Module rdma_cm is not loaded or does not support configfs")
        return 1
    with root.state(write=True) as state:
        hca = state["rdma_cm"].get(device) if device else None
        if device and hca is None:
            err(f"mkdir: cannot create directory '{device}': No such device")
            out(f"Failed to create configuration for {device}")
            return 1
        cfg = hca["ports"].get(port) if hca is not None else None
        if cfg is None:
            out(f"Device {device} port {port} does not exist")
            return 1
        link_layer = root.path(f"/sys/class/infiniband/{device}/ports/{port}/link_layer")
        ethernet = os.path.isfile(link_layer) and read(link_layer).strip() == "Ethernet"
        if script is ROCE_MODE:
            _set_mode(cfg, value, ethernet, me)
            out(cfg["default_roce_mode"])
        else:
            _set_tos(cfg, value, me)
            out(str(cfg["default_roce_tos"]))
    return 0


def _set_mode(cfg: dict[str, object], value: str, ethernet: bool, me: str) -> None:
    test1, test2 = ROCE_MODE.test_lines
    write2 = ROCE_MODE.write_lines[1]
    mode = bash_int_test(value, "-eq", me, test1)
    if mode == 1:
        cfg["default_roce_mode"] = "IB/RoCE v1"  # IB_GID_TYPE_IB: RoCE v1 on an Ethernet port, IB on IB
        return
    if mode is None:
        mode = bash_int_test(value, "-eq", me, test2)  # the elif test runs (and fails) too
    if mode == 2:
        if not ethernet:  # cma_set_default_gid_type: the port does not support RoCE v2 GIDs
            err(f"{me}: line {write2}: echo: write error: Invalid argument")
            return
        cfg["default_roce_mode"] = "RoCE v2"


def _set_tos(cfg: dict[str, object], value: str, me: str) -> None:
    tos = bash_int_test(value, ROCE_TOS.test_op, me, ROCE_TOS.test_lines[0])
    if tos is None or tos < 0:
        return
    parsed = kstrtou8(value.split(maxsplit=1)[0])
    if parsed is None:
        err(f"{me}: line {ROCE_TOS.write_lines[0]}: echo: write error: Invalid argument")
    elif parsed > 255:
        err(f"{me}: line {ROCE_TOS.write_lines[0]}: echo: write error: Numerical result out of range")
    else:
        cfg["default_roce_tos"] = parsed
