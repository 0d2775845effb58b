"""``mlnx_qos``: a ConnectX port's DCB state (trust, DSCP map, PFC, ETS, buffers, rate limits).

Follows ``python/mlnx_qos`` of Mellanox/mlnx-tools (its newest, Python 3 form) step by step: the same
optparse options and messages, the same order of steps (dcbx, cable_len, -P, -F, --pfc, --dscp2prio,
--trust, buffers, ratelimit, ETS), and the same ``pretty_print`` output. The kernel and the mlx5 driver
underneath are ``dcb.py``: ``--trust dscp`` installs the 64 firmware defaults (priority = DSCP >> 3),
``--trust pcp`` deletes them all, ``--dscp2prio`` adds or deletes one entry.

Interfaces that are not emulated ConnectX ports answer as a non-DCB netdev does (the netlink calls
fail), including the real tool's crash (a TypeError traceback) when ``--pfc`` meets such a port.
"""

from __future__ import annotations

import optparse  # the real tool's parser: the same messages and exit statuses
import sys
from collections import defaultdict

from xoff.lab.shims._state import HostRoot, err, out, run
from xoff.lab.shims.dcb import SEL_DSCP, TSA, Port

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import NoReturn

TOOL = "mlnx_qos"


class Exit(Exception):  # noqa: N818 - stands for the real tool's sys.exit()
    def __init__(self, status: int) -> None:
        self.status = status


def _parser() -> optparse.OptionParser:
    p = optparse.OptionParser(usage="%prog -i <interface> [options]", version="%prog 1.2", prog=TOOL)
    p.add_option(
        "-f",
        "--pfc",
        dest="pfc",
        metavar="LIST",
        help="Set priority flow control for each priority. LIST is comma separated value for each "
        "priority starting from 0 to 7. Example: 0,0,0,0,1,1,1,1 enable PFC on TC4-7",
    )
    p.add_option(
        "-F",
        "--specific_pfc",
        dest="specific_pfc",
        metavar="LIST",
        help="Set priority flow control for specific priorities. LIST is comma separated value for each "
        "priority starting from 0 to 7. unwanted prirotiy need to mark with x. run in silent mode "
        "and exit when finish config. Example: x,x,x,x,1,1,1,1 enables PFC on TC4-7 and keeps TC0-3 "
        "with current state ",
    )
    p.add_option(
        "-P",
        "--get_pfc",
        dest="get_pfc",
        help="Get priority flow control status for specific priority. An index value of requested "
        "priority starting from 0 to 7.Example: 2 returns status of TC2",
    )
    p.add_option(
        "-p",
        "--prio_tc",
        dest="prio_tc",
        metavar="LIST",
        help="maps UPs to TCs. LIST is 8 comma separated TC numbers. Example: 0,0,0,0,1,1,1,1 maps UPs "
        "0-3 to TC0, and UPs 4-7 to TC1",
    )
    p.add_option(
        "-s",
        "--tsa",
        dest="tsa",
        metavar="LIST",
        help="Transmission algorithm for each TC. LIST is comma separated algorithm names for each TC. "
        "Possible algorithms: strict, ets and vendor. Example: vendor,strict,ets,ets,ets,ets,ets,ets "
        "sets TC0 to vendor, TC1 to strict, TC2-7 to ets.",
    )
    p.add_option(
        "-t",
        "--tcbw",
        dest="tc_bw",
        metavar="LIST",
        help="Set minimal guaranteed %BW for ETS TCs. LIST is comma separated percents for each TC. "
        "Values set to TCs that are not configured to ETS algorithm must be zero. Example: if "
        "TC0,TC2 are set to ETS, then 10,0,90,0,0,0,0,0 will set TC0 to 10% and TC2 to 90%. "
        "Percents must sum to 100.",
    )
    p.add_option(
        "-r",
        "--ratelimit",
        dest="ratelimit",
        metavar="LIST",
        help="Rate limit for TCs (in Gbps). LIST is a comma separated Gbps limit for each TC. Example: "
        "1,8,8 will limit TC0 to 1Gbps, and TC1,TC2 to 8 Gbps each.",
    )
    p.add_option(
        "-d",
        "--dcbx",
        dest="dcbx",
        help="set dcbx mode to firmware controlled(fw) or OS controlled(os). Note, when in OS mode, "
        "mlnx_qos should not be used in parallel with other dcbx tools such as lldptool",
    )
    p.add_option("--trust", dest="trust", help="set priority trust state to pcp or dscp")
    p.add_option(
        "--dscp2prio",
        dest="dscp2prio",
        action="append",
        help="set/del a (dscp,prio) mapping, or 'flush' to delete all. Example 'set,30,2' maps dscp 30 "
        "to priority 2. 'del,30,2' deletes the mapping. Deleting last dscp or using 'flush' will "
        "automatically change trust to pcp.",
    )
    p.add_option("--cable_len", dest="cable_len", help="set cable_len for buffer's xoff and xon thresholds")
    p.add_option(
        "--prio2buffer",
        dest="prio2buffer",
        metavar="LIST",
        help="maps priority to receive buffer. Example: 0,2,5,7,1,2,3,6 maps priorities 0,1,2,3,4,5,6,7 "
        "to receive buffer 0,2,5,7,1,2,3,6",
    )
    p.add_option(
        "--buffer_size",
        dest="buffer_size",
        metavar="LIST",
        help="Set receive buffer size LIST is comma separated percents for each buffer.For pfc enabled "
        "buffer, the buffer size must be larger than the xoff_threshold. Example: "
        "87296,87296,0,87296,0,0,0,0 sets receive buffer size for buffer 0,1,2,3,4,5,6,7 respectively",
    )
    p.add_option("-i", "--interface", dest="intf", help="Interface name")
    p.add_option("-a", action="store_true", dest="printall", default=False, help="Show all interface's TCs")
    return p  # fmt: skip


def crash(e: BaseException) -> NoReturn:
    """An exception the real tool does not catch: Python's traceback, exit status 1."""
    err("Traceback (most recent call last):")
    err(f'  File "/usr/bin/{TOOL}", line 1, in <module>')
    err(f"{'OSError' if isinstance(e, OSError) else type(e).__name__}: {e}")
    raise Exit(1)


def parse_int(parser: optparse.OptionParser, text: str, low: int, high: int, what: str) -> int:
    try:
        v = int(text)
        if v < low or v > high:
            raise ValueError(f"{v} is not in the range {low}..{high}")
        return v
    except ValueError as e:
        out(f"Bad value for {what}: {e}")
        parser.print_usage(sys.stdout)
        raise Exit(1) from None


def main(root: HostRoot, argv: list[str]) -> int:
    parser = _parser()
    options, args = parser.parse_args(argv)  # errors: usage and message on stderr, exit 2
    if args:
        out("Bad arguments")
        parser.print_usage(sys.stdout)
        return 1
    if options.intf is None:
        out("Interface name is required")
        parser.print_usage(sys.stdout)
        return 1
    with root.state(write=True) as state:
        port = Port(options.intf, state["dcb"].get(options.intf))
        try:
            _mlnx_qos(parser, options, port)
        except Exit as e:
            return e.status
    return 0


def _mlnx_qos(parser: optparse.OptionParser, o: optparse.Values, port: Port) -> None:  # noqa: C901, PLR0912, PLR0915 -- one branch per mlnx_qos option, as the real tool's argument list, so messages and exit codes match line for line
    # ********* dcbx mode command
    if o.dcbx is not None:
        try:
            if o.dcbx == "os":
                port.set_dcbx(True)
            elif o.dcbx == "fw":
                port.set_dcbx(False)
            elif o.dcbx != "get":
                out("Invalid dcbx mode command. Refer to the help.")
                raise Exit(1)
        except OSError as e:
            crash(e)

    # ********* pfc command
    try:
        if o.cable_len:
            delay = parse_int(parser, o.cable_len, 0, 0xFFFF, "cable_len")
            port.set_pfc(port.pfc_en(), delay)
        if o.get_pfc:
            bits = list(bin(port.pfc_en())[2:].zfill(8))[::-1]
            index = int(o.get_pfc)
            if index not in range(8):
                out("pfc index must be in range of 0-7")
                raise Exit(1)
            out(bits[index])
            raise Exit(0)
        if o.specific_pfc:
            current = list(bin(port.pfc_en())[2:].zfill(8))
            wanted = o.specific_pfc.split(",")[::-1]
            if len(wanted) != 8:
                out("pfc list must have 8 items")
                raise Exit(1)
            for i, t in enumerate(wanted):
                if t != "x":
                    if t not in ("0", "1"):
                        out(f"Bad value for 'PFC': {t}")
                        raise Exit(1)
                    current[i] = t
            port.set_pfc(int("".join(current), 2), port.pfc_delay())
            raise Exit(0)
    except ValueError as e:  # int(o.get_pfc)
        crash(e)
    except OSError as e:
        crash(e)
    if o.pfc:
        pfc_en = 0
        items = o.pfc.split(",")
        for i, t in enumerate(items):
            if i >= 8:
                out("Too many items for PFC")
                raise Exit(1)
            pfc_en |= parse_int(parser, t, 0, 1, "PFC") << i
        if len(items) != 8:
            out("pfc list must have 8 items")
            raise Exit(1)
        try:
            port.set_pfc(pfc_en, port.pfc_delay())
        except OSError:
            # the real tool prints 'mlnx_qos: Error setting pfc:' + e, which itself raises
            crash(TypeError('can only concatenate str (not "OSError") to str'))

    # ********* dscp2prio command
    if o.dscp2prio and o.trust:
        out("trust and dscp2prio commands cannot be used at the same time.")
        raise Exit(1)
    actions: list[tuple[str, int, int]] = []
    try:
        for opt in o.dscp2prio or []:
            if opt == "flush":
                actions.append(("flush", 0, 0))
                continue
            action, dscp_text, prio_text = opt.split(",")
            dscp, prio = int(dscp_text), int(prio_text)
            if action not in ("set", "del") or dscp > 63 or prio > 7:
                raise Exit(1)  # sys.exit(1) inside the try: not caught by "except Exception", no message
            actions.append((action, dscp, prio))
    except ValueError:
        out("Invalid dscp2prio command. Refer to the help.")
        raise Exit(1) from None
    apps: list[list[int]] = []
    try:
        for action, dscp, prio in actions:
            if action == "set":
                port.set_app(SEL_DSCP, prio, dscp)
            elif action == "del":
                port.del_app(SEL_DSCP, prio, dscp)
            else:
                for sel, p, proto in port.apps():
                    if sel == SEL_DSCP:
                        port.del_app(sel, p, proto)
        apps = port.apps()
    except Exception:
        if o.dscp2prio:
            out("dscp2prio command failed")
            raise Exit(1) from None

    # ********* trust command
    if o.trust and o.trust not in ("dscp", "pcp"):
        out("Invalid trust state command. Refer to the help.")
        raise Exit(1)
    try:
        trust = _trust(port)
        if o.trust and trust != o.trust:
            if o.trust == "pcp":
                for sel, p, proto in port.apps():
                    if sel == SEL_DSCP:
                        port.del_app(sel, p, proto)
            else:
                for d in range(64):  # setDefaultAppEntry: the firmware default map
                    port.set_app(SEL_DSCP, d >> 3, d)
            trust = _trust(port)
            apps = port.apps()
    except OSError:
        out("Priority trust state is not supported on your system")
        if o.trust:
            raise Exit(1) from None
        trust = "none"

    # ********* buffer_size and prio2buffer command
    buffer_error = False
    tot_size: int | None
    try:
        prio2buffer, buffer_size, tot_size = port.buffers()
    except OSError:
        buffer_error = True
        prio2buffer, buffer_size, tot_size = [0] * 8, [0] * 8, None
        out("Buffers commands are not supported on your system")
        if o.buffer_size or o.prio2buffer:
            raise Exit(1) from None
    try:
        if o.prio2buffer:
            for i, t in enumerate(o.prio2buffer.split(",")):
                if i >= 8:
                    out("Too many items for prio2buffer")
                    raise Exit(1)
                prio2buffer[i] = parse_int(parser, t, 0, 7, "prio buffer")
        if o.buffer_size:
            for i, t in enumerate(o.buffer_size.split(",")):
                if i >= 8:
                    out("Too many items for buffer_size")
                    raise Exit(1)
                buffer_size[i] = int(t)
        if o.buffer_size or o.prio2buffer:
            port.set_buffers(prio2buffer, buffer_size)
            prio2buffer, buffer_size, tot_size = port.buffers()
    except (ValueError, OSError):
        buffer_error = True
        if o.buffer_size or o.prio2buffer:
            out("Buffers commands error")
            raise Exit(1) from None

    # ********* ratelimit command (a bare except in the real tool: its exits end in exit 1)
    ratelimit: list[int] = []
    try:
        if o.ratelimit:
            rates = []
            for i, r in enumerate(o.ratelimit.split(",")):
                if i >= 8:
                    out("Too many items for ratelimit")
                    raise Exit(1)
                rates.append(parse_int(parser, r, 0, 1000000, "ratelimit") * 1000 * 1000)
            if len(rates) != 8:
                out("ratelimit must have 8 items")
                raise Exit(1)
            try:
                port.set_maxrate(rates)
            except OSError:
                out("Rate limit is not supported on your system!")
        try:
            ratelimit = port.maxrate()
        except OSError:
            out("Rate limit is not supported on your system!")
    except Exit:
        if o.ratelimit:
            raise
        ratelimit = []

    try:
        prio_tc, tsa, tc_bw = port.ets()
        pfc_en, pfc_delay = port.pfc_en(), port.pfc_delay()
    except OSError:
        out("ETS features are not supported on your system")
        raise Exit(1) from None

    # ********* ets (tsa, tc_bw, prio_tc) command
    if o.tsa:
        items = o.tsa.split(",")
        for i, t in enumerate(items):
            if i >= 8:
                out("Too many items for TSA")
                raise Exit(1)
            if t not in TSA:
                out(str(("Bad TSA value: ", t)))
                parser.print_usage(sys.stdout)
                raise Exit(1)
            tsa[i] = TSA[t]
        if len(items) != 8:
            out("tsa list must have 8 items")
            raise Exit(1)
    if o.tc_bw:
        items = o.tc_bw.split(",")
        for i, t in enumerate(items):
            if i >= 8:
                out("Too many items for ETS BW")
                raise Exit(1)
            bw = parse_int(parser, t, 0, 100, "ETS BW")
            if tsa[i] != TSA["ets"] and bw != 0:
                out("ETS BW for a strict/vendor TC must be 0")
                parser.print_usage(sys.stdout)
                raise Exit(1)
            tc_bw[i] = bw
        if len(items) != 8:
            out("tcbw list must have 8 items")
            raise Exit(1)
    if o.prio_tc:
        items = o.prio_tc.split(",")
        for i, t in enumerate(items):
            if i >= 8:
                out("Too many items in UP => TC mapping")
                raise Exit(1)
            prio_tc[i] = parse_int(parser, t, 0, 7, "UP => TC mapping")
        if len(items) != 8:
            out("prio_tc list must have 8 items")
            raise Exit(1)
    if o.tsa or o.tc_bw or o.prio_tc:
        try:
            port.set_ets(prio_tc, tsa, tc_bw)
        except OSError as e:
            out(str(e))
            raise Exit(1) from None

    pretty_print(port, apps, trust, prio_tc, tsa, tc_bw, ratelimit, pfc_en, pfc_delay,
                 None if buffer_error else (prio2buffer, buffer_size, tot_size), o.printall)  # fmt: skip


def _trust(port: Port) -> str:
    return "dscp" if any(a[0] == SEL_DSCP for a in port.apps()) else "pcp"


def pretty_print(  # noqa: C901, PLR0912 -- mlnx_qos's status printout, section by section as the real tool prints it
    port: Port,
    apps: list[list[int]],
    trust: str,
    prio_tc: list[int],
    tsa: list[int],
    tc_bw: list[int],
    ratelimit: list[int],
    pfc_en: int,
    pfc_delay: int,
    buffers: tuple[list[int], list[int], int | None] | None,
    printall: bool,
) -> None:
    out("DCBX mode: OS controlled" if port.dcbx_host() else "DCBX mode: Firmware controlled")
    out("Priority trust state: " + trust)
    if trust == "dscp":
        out("dscp2prio mapping:")
        by_prio = [""] * 8
        for sel, prio, dscp in apps:
            if sel == SEL_DSCP:
                by_prio[prio] += f"{dscp:02d},"
        for i in range(8):
            s, text, pad = by_prio[i], "", f"\tprio:{i} dscp:"
            while len(s) > 24:
                text += pad + s[:24] + "\n"
                s = s[24:]
            if s:
                text += pad + s
            if text:
                out(text)
    if buffers is not None:
        _, buffer_size, tot_size = buffers
        msg = "Receive buffer size (bytes): " + "".join(f"{b:d}," for b in buffer_size[:8])
        if tot_size is not None:
            msg += f"max_buffer_size={tot_size}"
        out(msg)
    out(f"Cable len: {pfc_delay}")
    out("PFC configuration:")
    out("\tpriority    0   1   2   3   4   5   6   7")
    msg = "\tenabled     " + "".join(f"{(pfc_en >> up) & 1:d}   " for up in range(8))
    if buffers is not None:
        msg += "\n\tbuffer      " + "".join(f"{buffers[0][up]:d}   " for up in range(8))
    out(msg)
    tc2up: dict[int, list[int]] = defaultdict(list)
    if printall:
        for i in range(8):
            tc2up.setdefault(i, [])
    for up, tc in enumerate(prio_tc):
        tc2up[tc].append(up)
    for tc in sorted(tc2up):
        line = ""
        if tc < len(ratelimit):  # the real tool builds this part in a try: an empty list leaves it out
            rate = f"{ratelimit[tc] / 1000 / 1000:.1f} Gbps" if ratelimit[tc] > 0 else "unlimited"
            line = f"tc: {tc} ratelimit: {rate}, tsa: "
        if tsa[tc] == TSA["ets"]:
            line += f"ets, bw: {tc_bw[tc]}%"
        elif tsa[tc] == TSA["strict"]:
            line += "strict"
        elif tsa[tc] == TSA["vendor"]:
            line += "vendor"
        else:
            line += "unknown"
        out(line)
        for up in tc2up[tc]:
            out(f"\t priority:  {up}")


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, TOOL)


if __name__ == "__main__":
    cli()
