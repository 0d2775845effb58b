"""``mlxreg -d DEV --reg_name ROCE_ACCL --get | --set "f=v,..." [--yes]``: NVIDIA MFT's access-register tool,
for the one register xoff uses, a ConnectX NIC's ``ROCE_ACCL``.

Followed from Mellanox/mstflint ``mlxreg/mlxreg_ui.cpp`` and ``mlxreg_parser.cpp`` (mstflint's build of the same
tool) and NVIDIA's published outputs (docs.nvidia.com "Adaptive Retransmission: Parameters Control", Sample Usage):

- GET prints ``Sending access register...``, a blank line, then the register's leaf fields as a table: ``Field Name``
  padded to the longest field name plus three, `` | Data``, a line of ``=`` (that width plus 14), one
  ``<field> | 0x%08x`` row per field, the ``=`` line again;
- SET reads the register, merges the ``name=value`` pairs (``strtoul`` base 0: ``1``, ``0x1``; a one-bit field keeps
  the value's low bit, as the tool's bit merge does), prints "You are about to send access register: ROCE_ACCL with
  the following data:", the table, and asks "Do you want to continue ? (y/n) [n] : "; ``--yes`` answers ``y``
  itself, anything but y/yes on stdin sends nothing (exit 0);
- errors go to stderr as ``-E- <message>``, exit 1: no ``-d`` ("you must provide a device name"), no ``--get`` or
  ``--set`` ("no operation flag, please read help"), both ("incompatible flags combination, please read help"), a
  device the host does not have ("Failed to open device: "DEV", No such file or directory"), an unknown field
  ("Can't find field name: "F""), a malformed pair or value ("Argument: X is invalid" / "... is invalid.").

Not emulated: registers other than ROCE_ACCL (refused, exit 1), ``--indexes``, the unknown-register (``--reg_id``)
mode, ``--show_reg(s)``. The device is named by its RDMA name (``mlx5_0``), as MFT accepts it; the register layout
is the ConnectX-7 firmware's 19 fields (a public capture, tests/fixtures/real/linux), and its factory values those
NVIDIA's sample shows for a NIC nobody configured (adaptive retransmission and slow restart on, the rest off).
"""

from __future__ import annotations

from xoff.lab.shims._state import HostRoot, err, out, run

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import NoReturn

REGISTER = "ROCE_ACCL"
# ConnectX-7 firmware's ROCE_ACCL leaf fields, in layout order, with the values of a NIC nobody configured
LAYOUT = (
    ("roce_adp_retrans_field_select", 1),
    ("roce_tx_window_field_select", 1),
    ("roce_slow_restart_field_select", 1),
    ("roce_slow_restart_idle_field_select", 1),
    ("min_ack_timeout_limit_disabled_field_select", 1),
    ("adaptive_routing_forced_en_field_select", 1),
    ("selective_repeat_forced_en_field_select", 1),
    ("dc_half_handshake_en_field_select", 0),
    ("ack_dscp_force_field_select", 0),
    ("roce_adp_retrans_en", 1),
    ("roce_tx_window_en", 0),
    ("roce_slow_restart_en", 1),
    ("roce_slow_restart_idle_en", 0),
    ("min_ack_timeout_limit_disabled", 0),
    ("adaptive_routing_forced_en", 0),
    ("selective_repeat_forced_en", 0),
    ("dc_half_handshake_en", 0),
    ("ack_dscp_force", 0),
    ("ack_dscp", 0),
)
_WIDTH = {"ack_dscp": 6}  # bits; every other field is one bit


class Fail(Exception):  # noqa: N818 - the tool's own word: an -E- line, exit 1
    """An ``-E-`` error: printed on stderr, exit 1."""


def factory() -> dict[str, int]:
    return dict(LAYOUT)


def _table(fields: dict[str, int]) -> str:
    width = max(len(name) for name in fields) + 3
    line = "=" * (width + 14)
    rows = [f"{'Field Name':<{width}} | {'Data':<8}", line]
    rows += [f"{name:<{width}} | 0x{value:08x}" for name, value in fields.items()]
    return "\n".join([*rows, line]) + "\n"


def _uint(text: str) -> int:
    """C's ``strtoul(text, &end, 0)`` with the tool's checks."""
    body = text[1:] if text[:1] in "+-" else text
    try:
        value = int(body, 16) if body[:2].lower() == "0x" else int(body, 8) if body[:1] == "0" else int(body, 10)
    except ValueError:
        raise Fail(f"Argument: {text} is invalid.") from None
    if text.startswith("-"):
        raise Fail(f"Argument: {text} is invalid. It must be non-negative.")
    return value


def _merge(fields: dict[str, int], data: str) -> None:
    for token in data.split(","):
        pair = token.split("=")
        if len(pair) != 2 or not all(pair):
            raise Fail(f"Argument: {token} is invalid")
        name, value = pair
        if name not in fields:
            raise Fail(f'Can\'t find field name: "{name}"')
        fields[name] = _uint(value) & ((1 << _WIDTH.get(name, 1)) - 1)


def _options(argv: list[str]) -> dict[str, str]:
    names = {"-d": "device", "--device": "device", "--reg_name": "reg_name", "-s": "set", "--set": "set"}
    flags = {"-g": "get", "--get": "get", "--yes": "yes"}
    opts: dict[str, str] = {}
    args = iter(argv)
    for arg in args:
        if arg in flags:
            if flags[arg] in ("get",) and "set" in opts:
                raise Fail("incompatible flags combination, please read help")
            opts[flags[arg]] = ""
        elif arg in names and (value := next(args, None)) is not None:
            if names[arg] == "set" and "get" in opts:
                raise Fail("incompatible flags combination, please read help")
            opts[names[arg]] = value
        else:
            raise Fail(f"failed to parse arguments. Unknown option: {arg}")
    return opts


def _run(root: HostRoot, argv: list[str]) -> int:
    opts = _options(argv)
    if not opts.get("device"):
        raise Fail("you must provide a device name")
    if "get" not in opts and "set" not in opts:
        raise Fail("no operation flag, please read help")
    device = opts["device"]
    with root.state(write="set" in opts) as state:
        registers = state.setdefault("roce_accl", {})
        if device not in registers:
            raise Fail(f'Failed to open device: "{device}", No such file or directory')
        if opts.get("reg_name") != REGISTER:
            raise Fail(f"the lab's mlxreg shim emulates register {REGISTER} only, not {opts.get('reg_name')!r}")
        fields: dict[str, int] = registers[device]
        if "get" in opts:
            out("Sending access register...\n")
            out(_table(fields).rstrip("\n"))
            return 0
        new = dict(fields)
        _merge(new, opts["set"])
        out(f"You are about to send access register: {REGISTER} with the following data:")
        out(_table(new).rstrip("\n"))
        if "yes" in opts:
            out("\n Do you want to continue ? (y/n) [n] : y")
        else:
            import sys  # noqa: PLC0415 - only the interactive path reads stdin

            out("\n Do you want to continue ? (y/n) [n] : ")
            if sys.stdin.readline().strip().lower() not in ("y", "yes"):
                return 0
        out(" Sending access register...")
        registers[device] = new
    return 0


def main(root: HostRoot, argv: list[str]) -> int:
    try:
        return _run(root, argv)
    except Fail as exc:
        err(f"-E- {exc}")
        return 1


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, "mlxreg")


if __name__ == "__main__":
    cli()
