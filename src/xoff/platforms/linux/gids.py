"""RoCE GID tables as MLNX_OFED / DOCA-host ``show_gids`` prints them (mlnx-tools ``sbin/show_gids``).

The script prints a tab-separated header (``DEV PORT INDEX GID IPv4 VER DEV``), a dashed rule, one line per
non-zero GID (``dev port index gid [ipv4] ver netdev``: the IPv4 column only for an IPv4-mapped GID, the VER
``v1``/``v2`` from ``gid_attrs/types``, the netdev from ``gid_attrs/ndevs``, either empty where the kernel has no
such file, e.g. an InfiniBand port's GIDs have no netdev), then ``n_gids_found=N``. Captures are often pasted with
the tabs turned into spaces; both read the same. A host without the script (rdma-core only) says so instead, and
its GIDs are not observed (None), not an empty table.
"""

from __future__ import annotations

import re
from typing import Literal

from xoff.contracts.collect import Command
from xoff.contracts.observed import RoceGid

NO_SHOW_GIDS = "# xoff: no show_gids on this host"
# a host without MLNX_OFED/DOCA (rdma-core only) has no show_gids: said in the output, read as not observed
SHOW_GIDS = Command(f'if command -v show_gids >/dev/null; then show_gids; else echo "{NO_SHOW_GIDS}"; fi')
_HEADER = re.compile(r"^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV\s*$")
_RULE = re.compile(r"^---\s+----\s+-----\s+---\s+-+\s+---\s+---\s*$")
_ROW = re.compile(
    r"^(?P<rdma>\S+)\s+(?P<port>\d+)\s+(?P<index>\d+)\s+(?P<gid>[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7})"
    r"(?:\s+(?P<ipv4>\d{1,3}(?:\.\d{1,3}){3}))?(?:\s+(?P<ver>[vV][12]))?(?:\s+(?P<netdev>\S+))?\s*$"
)
_COUNT = re.compile(r"^n_gids_found=(\d+)\s*$")


def _version(text: str | None) -> Literal["v1", "v2"] | None:
    if text is None:
        return None
    return "v1" if text[1] == "1" else "v2"


def parse_show_gids(text: str) -> list[RoceGid] | None:
    """``show_gids`` -> one RoceGid per line, in the script's order; None where the host has no show_gids.
    Strict: a line that is none of the header, the rule, a GID row or the count is a ValueError, and so is a
    count that does not match."""
    if text.strip() == NO_SHOW_GIDS:
        return None
    gids: list[RoceGid] = []
    count: int | None = None
    header = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if _HEADER.match(line) or _RULE.match(line):
            header = True
            continue
        if (found := _COUNT.match(line)) is not None:
            count = int(found[1])
            continue
        row = _ROW.match(line)
        if row is None:
            raise ValueError(f"show_gids line {number}: not a GID row: {line[:100]!r}")
        gids.append(
            RoceGid(
                rdma=row["rdma"],
                port=int(row["port"]),
                index=int(row["index"]),
                gid=row["gid"].lower(),
                ipv4=row["ipv4"],
                version=_version(row["ver"]),
                netdev=row["netdev"],
            )
        )
    if not header:
        raise ValueError("show_gids: no 'DEV PORT INDEX GID IPv4 VER DEV' header")
    if count is not None and count != len(gids):
        raise ValueError(f"show_gids: n_gids_found={count} but {len(gids)} GID rows")
    return gids
