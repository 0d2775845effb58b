"""``lspci``: the host's PCI devices (root ports, PCIe switches, GPUs, ConnectX NICs) from the state file.

Formats follow pciutils 3.9 (Debian 12): ``show_terse`` for the first line (``bus:dev.fn class: name
(rev xx)``, ``(prog-if ...)`` with -v), then with -v / -vv / -vvv the lines ``show_verbose`` prints
for these devices (Control/Status from -vv, ``Bus:`` for bridges, the Express capability, ACS with
``ACSCap``/``ACSCtl`` from -vv, as ``ls-ecaps.c`` ``cap_acs``), ``Kernel driver in use`` and ``Kernel
modules`` (-k or -v), a blank line after each device in verbose mode. Only these lines: -vvv shows
no more capabilities than -vv here.

Options: ``-v``, ``-k``, ``-D``, ``-s <slot filter>``, ``-d <id filter>`` (parsed as ``lib/filter.c``
does, with its messages), ``--version``. Invalid options, missing arguments and extra arguments
print pciutils' help on stderr, exit 1 (captured from the real tool). Valid options this shim does
not emulate (-n, -t, -x, -m, -P, -b...) are refused with a message saying so, exit 2.
"""

from __future__ import annotations

import getopt

from xoff.lab.shims._state import HostRoot, err, out, run

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import Any, NoReturn

TOOL = "lspci"
OPTIONS = "nvbxs:d:tPi:mgp:qkMDQ" + "A:O:GH:F:"
HELP = (
    "Usage: lspci [<switches>]\n\nBasic display modes:\n"
    "-mm\t\tProduce machine-readable output (single -m for an obsolete format)\n-t\t\tShow bus tree\n\n"
    "Display options:\n-v\t\tBe verbose (-vv or -vvv for higher verbosity)\n-k\t\tShow kernel drivers handling each device\n"
    "-x\t\tShow hex-dump of the standard part of the config space\n"
    "-xxx\t\tShow hex-dump of the whole config space (dangerous; root only)\n"
    "-xxxx\t\tShow hex-dump of the 4096-byte extended config space (root only)\n"
    "-b\t\tBus-centric view (addresses and IRQ's as seen by the bus)\n-D\t\tAlways show domain numbers\n"
    "-P\t\tDisplay bridge path in addition to bus and device number\n"
    "-PP\t\tDisplay bus path in addition to bus and device number\n\n"
    "Resolving of device ID's to names:\n-n\t\tShow numeric ID's\n"
    "-nn\t\tShow both textual and numeric ID's (names & numbers)\n"
    "-q\t\tQuery the PCI ID database for unknown ID's via DNS\n-qq\t\tAs above, but re-query locally cached entries\n"
    "-Q\t\tQuery the PCI ID database for all ID's via DNS\n\n"
    "Selection of devices:\n-s [[[[<domain>]:]<bus>]:][<slot>][.[<func>]]\tShow only devices in selected slots\n"
    "-d [<vendor>]:[<device>][:<class>]\t\tShow only devices with specified ID's\n\n"
    "Other options:\n-i <file>\tUse specified ID database instead of /usr/share/misc/pci.ids.gz\n"
    "-p <file>\tLook up kernel modules in a given file instead of default modules.pcimap\n"
    "-M\t\tEnable `bus mapping' mode (dangerous; root only)\n\n"
    "PCI access options:\n-A <method>\tUse the specified PCI access method (see `-A help' for a list)\n"
    "-O <par>=<val>\tSet PCI access parameter (see `-O help' for a list)\n-G\t\tEnable PCI access debugging\n"
    "-H <mode>\tUse direct hardware access (<mode> = 1 or 2)\n-F <file>\tRead PCI configuration dump from a given file"
)  # fmt: skip
EXPRESS = {
    "root_port": "[40] Express (v2) Root Port (Slot+), MSI 00",
    "switch_up": "[68] Express (v2) Upstream Port, MSI 00",
    "switch_down": "[68] Express (v2) Downstream Port (Slot+), MSI 00",
    "gpu": "[60] Express (v2) Endpoint, MSI 00",
    "nic": "[60] Express (v2) Endpoint, MSI 00",
}
ACS_OFFSET = {"root_port": "220", "switch_down": "f24"}


class FilterError(Exception):
    pass


class Filter:
    """pciutils' ``struct pci_filter``: -1 = any."""

    def __init__(self) -> None:
        self.domain = -1
        self.bus = -1
        self.slot = -1
        self.func = -1
        self.vendor = -1
        self.device = -1
        self.device_class = -1
        self.class_mask = 0xFFFF

    def match(self, rec: dict[str, Any]) -> bool:
        bus, rest = rec["bdf"].split(":")
        slot, func = rest.split(".")
        vendor, device = (int(x, 16) for x in rec["id"].split(":"))
        cls = int(rec["class_id"], 16)
        checks = ((self.domain, 0), (self.bus, int(bus, 16)), (self.slot, int(slot, 16)), (self.func, int(func)),
                  (self.vendor, vendor), (self.device, device))  # fmt: skip
        if any(want >= 0 and want != have for want, have in checks):
            return False
        return self.device_class < 0 or not (cls ^ self.device_class) & self.class_mask


def _split(text: str, sep: str, fields: int, limit: bool = True) -> list[str | None]:
    if limit and len(text) >= 64:
        raise FilterError("Expression too long")
    parts: list[str | None] = list(text.split(sep))
    if len(parts) > fields:
        raise FilterError("Too many fields")
    return parts + [None] * (fields - len(parts))


def _defined(field: str | None) -> bool:
    return bool(field) and field != "*"


def _hex(field: str | None, high: int, masked: bool = False) -> tuple[int, int] | None:
    """parse_hex_field: (value, mask), or None if invalid; (-1, ~0) when not given."""
    if not _defined(field):
        return -1, 0xFFFF
    assert field is not None
    s = field[2:] if not masked and field[:2].lower() == "0x" else field
    value, bound, mask = 0, 0, 0xFFFFFFFF
    for c in s:
        if c in "xX" and masked:
            value, bound, mask = value << 4, (bound << 4) | 1, (mask << 4) & 0xFFFFFFFF
        elif c in "0123456789abcdefABCDEF":
            d = int(c, 16)
            value, bound, mask = (value << 4) | d, (bound << 4) | d, ((mask << 4) | 0xF) & 0xFFFFFFFF
        else:
            return None
        if bound > high:
            return None
    return value, mask & 0xFFFF


def parse_slot(f: Filter, text: str) -> None:
    fields = _split(text, ":", 3)
    i = 0
    if fields[2] is not None:
        parsed = _hex(fields[0], 0x7FFFFFFF)
        if parsed is None:
            raise FilterError("Invalid domain number")
        f.domain = parsed[0]
        i += 1
    if fields[i + 1] is not None:
        parsed = _hex(fields[i], 0xFF)
        if parsed is None:
            raise FilterError("Invalid bus number")
        f.bus = parsed[0]
        i += 1
    fdev = fields[i]
    if _defined(fdev):
        assert fdev is not None
        try:
            slot, func = _split(fdev, ".", 2, limit=False)
        except FilterError:
            raise FilterError("Invalid slot/function number") from None
        parsed = _hex(slot, 0x1F)
        if parsed is None:
            raise FilterError("Invalid slot number")
        f.slot = parsed[0]
        parsed = _hex(func, 7)
        if parsed is None:
            raise FilterError("Invalid function number")
        f.func = parsed[0]


def parse_id(f: Filter, text: str) -> None:
    fields = _split(text, ":", 4)
    if fields[1] is None:
        raise FilterError("At least two fields must be given")
    for index, attr, high, message in (
        (0, "vendor", 0xFFFF, "Invalid vendor ID"),
        (1, "device", 0xFFFF, "Invalid device ID"),
    ):
        parsed = _hex(fields[index], high)
        if parsed is None:
            raise FilterError(message)
        setattr(f, attr, parsed[0])
    parsed = _hex(fields[2], 0xFFFF, masked=True)
    if parsed is None:
        raise FilterError("Invalid class code")
    f.device_class, f.class_mask = parsed
    if fields[3] is not None and _hex(fields[3], 0xFF) is None:
        raise FilterError("Invalid programming interface code")


def main(root: HostRoot, argv: list[str]) -> int:  # noqa: C901, PLR0912 -- one branch per lspci option (-v, -k, -D, -s, -d, ...), as the real tool's getopt loop
    if argv == ["--version"]:
        out("lspci version 3.9.0")
        return 0
    try:
        opts, args = getopt.gnu_getopt(argv, OPTIONS)
    except getopt.GetoptError as e:
        problem = "option requires an argument" if "requires argument" in e.msg else "invalid option"
        err(f"{TOOL}: {problem} -- '{e.opt}'")
        err(HELP)
        return 1
    verbose, kernel, domains = 0, False, False
    filt = Filter()
    for o, a in opts:
        try:
            if o == "-v":
                verbose += 1
            elif o == "-k":
                kernel = True
            elif o == "-D":
                domains = True
            elif o == "-s":
                parse_slot(filt, a)
            elif o == "-d":
                parse_id(filt, a)
            else:
                err(f"{TOOL} (xoff lab shim): option {o} is not emulated (emulated: -v -k -D -s -d)")
                return 2
        except FilterError as e:
            err(f"{TOOL}: {o}: {e}")
            return 1
    if args:
        err(HELP)
        return 1
    with root.state() as state:
        devices = sorted(state["pci"], key=lambda r: r["bdf"])
    for rec in devices:
        if filt.match(rec):
            _show(rec, verbose, kernel, domains)
    return 0


def _show(rec: dict[str, Any], verbose: int, kernel: bool, domains: bool) -> None:  # noqa: C901, PLR0912 -- one branch per line lspci prints at each -v/-k level, in the real tool's order
    bridge = rec["class"] == "PCI bridge"
    line = f"{'0000:' if domains else ''}{rec['bdf']} {rec['class']}: {rec['name']}"
    if rec["rev"]:
        line += f" (rev {rec['rev']})"
    if verbose and bridge:
        line += " (prog-if 00 [Normal decode])"
    out(line)
    if (verbose or kernel) and rec.get("subsystem"):
        out(f"\tSubsystem: {rec['subsystem']}")
    if verbose == 1:
        irq = "" if bridge else f", IRQ {rec['iommu_group'] + 16}"
        out(
            f"\tFlags: bus master, fast devsel, latency 0{irq}, NUMA node {rec['numa']}, IOMMU group {rec['iommu_group']}"
        )
    if verbose >= 2:
        io = "+" if bridge else "-"
        out(
            f"\tControl: I/O{io} Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR+ FastB2B- DisINTx+"
        )
        out("\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-")
        out("\tLatency: 0, Cache Line Size: 64 bytes")
        if not bridge:
            out(f"\tInterrupt: pin A routed to IRQ {rec['iommu_group'] + 16}")
        out(f"\tNUMA node: {rec['numa']}")
        out(f"\tIOMMU group: {rec['iommu_group']}")
    if verbose and bridge:
        primary, secondary, subordinate = rec["bus"]
        out(f"\tBus: primary={primary:02x}, secondary={secondary:02x}, subordinate={subordinate:02x}, sec-latency=0")
    if verbose:
        out(f"\tCapabilities: {EXPRESS[rec['role']]}")
        if rec["acs"] is not None:
            out(f"\tCapabilities: [{ACS_OFFSET[rec['role']]} v1] Access Control Services")
            if verbose >= 2:
                out(f"\t\tACSCap:\t{rec['acs']['cap']}")
                out(f"\t\tACSCtl:\t{rec['acs']['ctl']}")
    if verbose or kernel:
        out(f"\tKernel driver in use: {rec['driver']}")
        if rec["modules"]:
            out(f"\tKernel modules: {', '.join(rec['modules'])}")
    if verbose:
        out()


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, TOOL)


if __name__ == "__main__":
    cli()
