"""The kernel's DCB netlink and the mlx5 driver behind it, as ``mlnx_qos`` sees them (``mlnx_qos.py``).

- the DSCP map is the kernel's dcb app table of the port, newest entry first (``dcb_app_add`` adds at
  the head; mlnx_qos prints entries in table order, so a re-set DSCP moves to the front of its line);
  trust is ``dscp`` while the table holds any DSCP entry (mlnx_qos's netlink path);
- ``mlx5e_dcbnl_ieee_setapp``/``delapp``: only the DSCP selector, the first entry switches the port to
  DSCP trust, deleting the last switches it back, a delete must name the current mapping (and resets
  the firmware's entry to priority 0);
- ETS is validated as ``mlx5e_dbcnl_validate_ets`` does (ETS bandwidths sum to 100);
- buffers follow PFC while nobody set them (the driver's automatic buffer mode): lossless priorities
  in buffer 1. The sizes are representative values from public captures, not computed.

A netdev the state file does not list as a ConnectX port answers as a non-DCB netdev: EOPNOTSUPP if
it exists in this network namespace, ENODEV if not.
"""

from __future__ import annotations

import errno
import os
import struct

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import Any

SEL_DSCP = 5
TSA = {"strict": 0, "ets": 2, "vendor": 255}
BUFFER_PFC = [130944, 130944, 0, 0, 0, 0, 0, 0]
BUFFER_NO_PFC = [524160, 0, 0, 0, 0, 0, 0, 0]


class NetlinkError(OSError):
    """What mlnx-tools' netlink.py raises when the kernel answers NLMSG_ERROR (str() is the message)."""

    def __init__(self, code: int) -> None:
        super().__init__(f"Netlink error: {os.strerror(code)} ({code})")
        self.errno = code


class BadValueError(OSError):
    """check_err(): the kernel answered with a non-zero status attribute."""

    def __init__(self) -> None:
        super().__init__("Netlink error: Bad value. see dmesg.")


class Port:
    """The driver side of one netdev, as DcbController sees it; ``dcb`` None = no DCB support."""

    def __init__(self, intf: str, dcb: dict[str, Any] | None) -> None:
        self.intf = intf
        self.dcb = dcb

    def _need(self) -> dict[str, Any]:
        if self.dcb is None:
            exists = os.path.exists(f"/sys/class/net/{self.intf}")  # a real netdev of this namespace
            raise NetlinkError(errno.EOPNOTSUPP if exists else errno.ENODEV)
        return self.dcb

    # --- reads
    def dcbx_host(self) -> bool:
        return bool(self._need()["dcbx"] == "os")

    def pfc_en(self) -> int:
        return int(self._need()["pfc_en"])

    def pfc_delay(self) -> int:
        return int(self._need()["pfc_delay"])

    def apps(self) -> list[list[int]]:
        return list(self._need()["apps"])

    def ets(self) -> tuple[list[int], list[int], list[int]]:
        d = self._need()
        return list(d["prio_tc"]), list(d["tsa"]), list(d["tc_bw"])

    def buffers(self) -> tuple[list[int], list[int], int]:
        d = self._need()
        return list(d["prio2buffer"]), list(d["buffer_size"]), int(d["max_buffer_size"])

    def maxrate(self) -> list[int]:
        return list(self._need()["maxrate"])

    # --- writes
    def set_dcbx(self, os_controlled: bool) -> None:
        self._need()["dcbx"] = "os" if os_controlled else "fw"

    def set_pfc(self, pfc_en: int, delay: int) -> None:
        d = self._need()
        d["pfc_en"], d["pfc_delay"] = pfc_en, delay
        if d["buffer_auto"]:
            d["prio2buffer"] = [(pfc_en >> p) & 1 for p in range(8)]
            d["buffer_size"] = list(BUFFER_PFC if pfc_en else BUFFER_NO_PFC)

    def set_app(self, selector: int, priority: int, protocol: int) -> None:
        """mlx5e_dcbnl_ieee_setapp + dcb_ieee_setapp."""
        d = self._need()
        if not (0 <= priority <= 255 and 0 <= protocol <= 0xFFFF):
            raise struct_error()
        if selector != SEL_DSCP or protocol >= 64:
            raise BadValueError
        old = d["fw_dscp2prio"][protocol]
        d["fw_dscp2prio"][protocol] = priority
        d["apps"] = [[selector, priority, protocol]] + [a for a in d["apps"] if a != [selector, old, protocol]]

    def del_app(self, selector: int, priority: int, protocol: int) -> None:
        """mlx5e_dcbnl_ieee_delapp: the entry must exist with the firmware's current priority."""
        d = self._need()
        if not (0 <= priority <= 255 and 0 <= protocol <= 0xFFFF):
            raise struct_error()
        if selector != SEL_DSCP or protocol >= 64 or [selector, priority, protocol] not in d["apps"]:
            raise BadValueError
        if d["fw_dscp2prio"][protocol] != priority:
            raise BadValueError
        d["apps"].remove([selector, priority, protocol])
        d["fw_dscp2prio"][protocol] = 0

    def set_ets(self, prio_tc: list[int], tsa: list[int], tc_bw: list[int]) -> None:
        """mlx5e_dbcnl_validate_ets, then the new ETS configuration."""
        d = self._need()
        ets = [bw for t, bw in zip(tsa, tc_bw, strict=True) if t == TSA["ets"]]
        if any(tc >= 8 for tc in prio_tc) or (ets and sum(ets) != 100):
            raise BadValueError
        d["prio_tc"], d["tsa"], d["tc_bw"] = prio_tc, tsa, tc_bw

    def set_buffers(self, prio2buffer: list[int], buffer_size: list[int]) -> None:
        d = self._need()
        if any(s < 0 for s in buffer_size) or sum(buffer_size) > d["max_buffer_size"]:
            raise BadValueError
        d["prio2buffer"], d["buffer_size"], d["buffer_auto"] = prio2buffer, buffer_size, False

    def set_maxrate(self, rates: list[int]) -> None:
        self._need()["maxrate"] = rates


def struct_error() -> Exception:
    return struct.error("ubyte format requires 0 <= number <= 255")
