"""``ethtool -S <netdev>``: a ConnectX port's mlx5 statistics, from the state file's counters.

Emulated: ``-S`` / ``--statistics`` on one netdev, printed as ethtool prints driver statistics (``NIC
statistics:``, then ``     <name>: <value>`` per counter, in the driver's order). The counters are the mlx5
physical-port set xoff reads (kernel ``Documentation/networking/device_drivers/ethernet/mellanox/mlx5/
counters.rst``): ``rx_prio<p>_pause``, ``rx_prio<p>_pause_duration``, ``tx_prio<p>_pause``,
``tx_prio<p>_pause_duration`` and ``rx_prio<p>_pause_transition`` are printed only for the priorities PFC is on
for (the port's DCB state, as ``mlnx_qos --pfc`` set it), as the driver does.

A counter's value in the state (``nic_counters[<netdev>][<name>]``) is a fixed total or the moving form
``{"total": N, "per_second": R, "since": T}`` (Unix seconds), shown as ``floor(N + R * (now - T))``: what the lab's
faults set to make a counter rise. Each call also writes the current values of the port's RDMA device's
``hw_counters`` files (``rdma_counters[<rdma>]``) under the state root, as the kernel would show them at that
instant; a host's watch batch runs ``ethtool -S`` before it reads the files.

Not emulated: every other ethtool option, and a netdev that is not one of the host's ConnectX ports (the shim says
so in its own words, exit 1; the lab's other netdevs are veths, whose statistics are not what this shim shows).
"""

from __future__ import annotations

import math
import os
import time

from xoff.lab.shims._state import HostRoot, err, out, run, write_text

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from xoff.lab.shims._state import State

TOOL = "ethtool"
PAUSE = ("rx_prio{p}_pause", "rx_prio{p}_pause_duration", "tx_prio{p}_pause", "tx_prio{p}_pause_duration",
         "rx_prio{p}_pause_transition")  # fmt: skip
# the mlx5 counters the lab's ports keep, in the driver's order (vport, then physical port, then per priority)
PORT = ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "rx_out_of_buffer", "tx_packets_phy", "rx_packets_phy",
        "tx_bytes_phy", "rx_bytes_phy", "rx_discards_phy", "tx_discards_phy", "tx_errors_phy")  # fmt: skip
HW = ("duplicate_request", "implied_nak_seq_err", "local_ack_timeout_err", "np_cnp_sent", "np_ecn_marked_roce_packets",
      "out_of_buffer", "out_of_sequence", "packet_seq_err", "rnr_nak_retry_err", "rp_cnp_handled", "rp_cnp_ignored",
      "rx_atomic_requests", "rx_read_requests", "rx_write_requests")  # fmt: skip


def value_at(value: Any, now: float) -> int:
    """A counter's value now: a fixed total, or ``floor(total + per_second * (now - since))``."""
    if isinstance(value, dict):
        total: float = value["total"] + value["per_second"] * max(0.0, now - value["since"])
        return math.floor(total)
    return int(value)


def main(root: HostRoot, argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("-S", "--statistics"):
        err(f"{TOOL} (xoff lab shim): only 'ethtool -S <netdev>' is emulated")
        return 1
    netdev = argv[1]
    now = time.time()
    with root.state() as state:
        counters = state.get("nic_counters", {}).get(netdev)
        if counters is None:
            err(f"{TOOL} (xoff lab shim): {netdev} is not a ConnectX port of this host")
            return 1
        out("NIC statistics:")
        for name in names(state, netdev):
            out(f"     {name}: {value_at(counters.get(name, 0), now)}")
        _refresh_hw_counters(root, state, netdev, now)
    return 0


def names(state: State, netdev: str) -> list[str]:
    """The port's counters in the driver's order: the pause counters only for the priorities with PFC on."""
    pfc_en = int(state.get("dcb", {}).get(netdev, {}).get("pfc_en", 0))
    out = list(PORT)
    for p in range(8):
        out += [
            f"rx_prio{p}_bytes",
            f"rx_prio{p}_packets",
            f"rx_prio{p}_discards",
            f"tx_prio{p}_bytes",
            f"tx_prio{p}_packets",
        ]
        if pfc_en >> p & 1:
            out += [name.format(p=p) for name in PAUSE]
    return out


def _refresh_hw_counters(root: HostRoot, state: State, netdev: str, now: float) -> None:
    ib = root.path("/sys/class/infiniband")
    for rdma, counters in state.get("rdma_counters", {}).items():
        if os.path.isdir(os.path.join(ib, rdma, "device", "net", netdev)):
            directory = os.path.join(ib, rdma, "ports", "1", "hw_counters")
            os.makedirs(directory, exist_ok=True)
            for name in HW:
                write_text(os.path.join(directory, name), f"{value_at(counters.get(name, 0), now)}\n")


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, TOOL)


if __name__ == "__main__":
    cli()
