"""Names and fixed values xoff's SONiC CONFIG_DB uses, shared by the builder and the parser.

Sources: reference/lossless.md §1.2 (map names ``AZURE``, ``PFC_PRIORITY_TO_PRIORITY_GROUP_MAP`` on
Mellanox/Barefoot only), §1.3 (lossy buffer objects of Examples A and C, ``CABLE_LENGTH|AZURE``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

# SONiC's templates name every QoS map and the cable-length table AZURE (§1.2, §1.1 CABLE_LENGTH).
# Writing the intent's maps under the same name replaces the stock maps instead of sitting beside
# them: the stock DSCP_TO_TC_MAP|AZURE sends DSCP 26 to lossy TC1 (§1.2).
MAP_NAME = "AZURE"
CABLE_LENGTH_NAME = "AZURE"
GLOBAL_QOS_KEY = "global"  # PORT_QOS_MAP|global
WATCHDOG_GLOBAL_KEY = "GLOBAL"  # PFC_WD|GLOBAL

# §1.2: PFC_PRIORITY_TO_PRIORITY_GROUP_MAP (and PORT_QOS_MAP.pfc_to_pg_map) only for these ASIC vendors.
PFC_TO_PG_VENDORS = frozenset({"mellanox", "barefoot"})

# DEVICE_METADATA.type from the intent's switch role (sonic-device_metadata.yang's pattern).
ROLE_TYPES = {"leaf": "LeafRouter", "spine": "SpineRouter", "super-spine": "UpperSpineRouter"}
# DEVICE_METADATA.buffer_model from Buffers.model (§1.1 "Dynamic-model tables").
BUFFER_MODELS: dict[str, str] = {"static": "traditional", "dynamic": "dynamic"}

# DEVICE_METADATA.platform for the HWSKUs whose platform directory the reference names (§1.3 A, B).
HWSKU_PLATFORMS = {
    "ACS-MSN4700": "x86_64-mlnx_msn4700-r0",
    "ACS-SN5600": "x86_64-nvidia_sn5600-r0",
}

# xoff hands FRR a complete frr.conf (xoff.platforms.frr), so bgpcfgd must not generate one from
# CONFIG_DB: "split-unified: FRR config not generated from ConfigDB, single FRR config file"
# (sonic-device_metadata.yang, docker_routing_config_mode).
ROUTING_CONFIG_MODE = "split-unified"

# The dynamic model's parameter tables (§1.1, §1.3) live under this key.
DYNAMIC_BUFFER_KEY = "AZURE"
# BUFFER_PG.profile in the dynamic model: "compute the headroom dynamically" (§1.1, §6 rule 8).
DYNAMIC_PG_PROFILE = "NULL"


@dataclass(frozen=True)
class LossyProfile:
    """A buffer profile SONiC needs besides the lossless headroom profiles (§1.3).

    ``dynamic_th`` applies when the pool is dynamic; on a static pool the threshold is
    ``static_th`` = the pool's size (§1.3 Example C: egress_lossless_profile static_th 15982720,
    the egress_lossless_pool size)."""

    name: str
    pool: str
    size: int
    dynamic_th: int


@dataclass(frozen=True)
class LossyBuffers:
    ingress_pg: LossyProfile  # BUFFER_PG|<port>|<lossy PGs>
    egress_lossless_queue: LossyProfile  # BUFFER_QUEUE|<port>|<lossless queues>
    egress_lossy_queue: LossyProfile  # BUFFER_QUEUE|<port>|<other queues>
    others: tuple[LossyProfile, ...] = ()
    source: str = ""

    def profiles(self) -> tuple[LossyProfile, ...]:
        return (self.ingress_pg, self.egress_lossless_queue, self.egress_lossy_queue, *self.others)


LOSSY_BUFFERS: dict[str, LossyBuffers] = {
    # §1.3 Example A: ACS-MSN2700/buffers_defaults_objects.j2, shared by the Mellanox SKUs.
    "mellanox": LossyBuffers(
        ingress_pg=LossyProfile("ingress_lossy_profile", "ingress_lossy_pool", 0, 3),
        egress_lossless_queue=LossyProfile("egress_lossless_profile", "egress_lossless_pool", 0, 7),
        egress_lossy_queue=LossyProfile("q_lossy_profile", "egress_lossy_pool", 0, 3),
        others=(LossyProfile("egress_lossy_profile", "egress_lossy_pool", 9216, 7),),
        source="reference/lossless.md §1.3 Example A",
    ),
    # §1.3 Example C: TH gen buffers_defaults_t1.j2 (the ingress lossy PG draws on the lossless
    # pool there: Tomahawk has no ingress lossy pool).
    "broadcom": LossyBuffers(
        ingress_pg=LossyProfile("ingress_lossy_profile", "ingress_lossless_pool", 0, 3),
        egress_lossless_queue=LossyProfile("egress_lossless_profile", "egress_lossless_pool", 1518, 7),
        egress_lossy_queue=LossyProfile("egress_lossy_profile", "egress_lossy_pool", 1518, 3),
        source="reference/lossless.md §1.3 Example C",
    ),
}


def scheduler_name(index: int) -> str:
    """``scheduler.<n>``, SONiC's own naming (§1.2)."""
    return f"scheduler.{index}"


def wred_profile_name(queue: int) -> str:
    return f"WRED_Q{queue}"


def router_mac(hostname: str) -> str:
    """A stable, locally administered unicast MAC for DEVICE_METADATA.mac, derived from the name."""
    digest = bytearray(hashlib.sha256(hostname.encode()).digest()[:6])
    digest[0] = (digest[0] | 0x02) & 0xFE  # locally administered, unicast
    return ":".join(f"{b:02x}" for b in digest)


def ranges(values: Iterable[int]) -> tuple[str, ...]:
    """Values as SONiC keys: contiguous runs collapse to ``a-b``; ``[0,1,2,4,5,6,7]`` ->
    ``("0-2", "4-7")``."""
    return _ranges(frozenset(values))


@cache
def _ranges(values: frozenset[int]) -> tuple[str, ...]:
    out: list[str] = []
    run: list[int] = []
    for v in sorted(values):
        if run and v == run[-1] + 1:
            run.append(v)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [v]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return tuple(out)
