"""ASIC catalog for lossless buffer headroom.

Constants and shipped defaults come from reference/lossless.md: the Mellanox ASIC table in §1.4
(``platform/mellanox/asic_table.j2``) and the t1 buffer templates and ``pg_profile_lookup.ini``
excerpts quoted in §1.3. Only values quoted there are recorded; anything else is ``None``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xoff.buffers.pools import PoolAccounting

__all__ = ["ASICS", "AsicSpec", "LookupRow", "PoolSizes", "get_asic", "vendor_asic"]

# SONiC's ASIC vendors (``asic_type``); a SKU file may name another, which is kept as written.
Vendor = str

_SB = "sonic-buildimage "
_SN4700 = _SB + "device/mellanox/x86_64-mlnx_msn4700-r0/ACS-MSN4700/"
_SN5600 = _SB + "device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600/"
_TH_GEN = _SB + "device/common/profiles/th/gen/BALANCED/"
# §1.3 Example D does not name the 7060X6 HWSKU directory, so it is left as a wildcard.
_TH5 = _SB + "device/arista/x86_64-arista_7060x6_64pe/<hwsku>/"


@dataclass(frozen=True)
class LookupRow:
    """One ``pg_profile_lookup.ini`` row: ``speed cable size xon xoff threshold [xon_offset]`` (§1.3)."""

    speed_mbps: int
    cable_m: int
    size: int
    xon: int
    xoff: int
    threshold: int
    xon_offset: int | None
    source: str


@dataclass(frozen=True)
class PoolSizes:
    """Buffer pool sizes in bytes from a platform's ``buffers_defaults_t1.j2`` (§1.3).

    ``shared_headroom_pool_xoff`` is ``BUFFER_POOL|ingress_lossless_pool.xoff``; non-zero means the
    shared headroom pool is in use. ``None`` means the reference does not quote the value.
    """

    ingress_lossless_pool: int | None = None
    ingress_lossy_pool: int | None = None
    egress_lossless_pool: int | None = None
    egress_lossy_pool: int | None = None
    shared_headroom_pool_xoff: int | None = None
    source: str | None = None
    # The ASIC's whole buffer (MMU size) where the source gives it; the pools must fit in it (buffers/pools.py).
    total_buffer: int | None = None
    total_buffer_source: str | None = None
    pool_accounting: PoolAccounting = "pools_and_headroom"


@dataclass(frozen=True)
class AsicSpec:
    """What xoff knows about one switch ASIC (reference/lossless.md §1.3, §1.4).

    The Mellanox constants (``cell_size`` … ``port_max_shp``) are ``ASIC_TABLE`` fields from §1.4 and
    are ``None`` on ASICs without formula support. ``max_lossless_priorities`` is a platform
    capability default of 2 (SONiC's ``pfc_enable: "3,4"``); per-ASIC hard maxima are UNCONFIRMED
    in the reference (§7).
    """

    name: str
    label: str
    short_label: str
    vendor: Vendor
    dynamic_formula: bool
    # Mellanox: size == xon + xoff (§1.3), for non-SHP profiles; 8-lane rows add a port MTU of
    # overhead (§1.4 speed_overhead). Broadcom: size is only the guaranteed reserve.
    size_is_xon_plus_xoff: bool
    default_cable_m: int
    max_lossless_priorities: int = 2
    cell_size: int | None = None
    pipeline_latency_kb: int | None = None
    mac_phy_delay_kb: float | None = None
    peer_response_time_kb: float | None = None
    port_reserved_shp: int | None = None
    port_max_shp: int | None = None
    # Spectrum-4/-5 add speed/1000*120/8 bytes "on tile" to the propagation delay (§1.4).
    kb_on_tile: bool = False
    # Spectrum-6 adds 18 KB to xoff for packet-buffer accounting (§1.4).
    xoff_compensation_kb: int = 0
    pools: PoolSizes = field(default_factory=PoolSizes)
    lookup_rows: tuple[LookupRow, ...] = ()
    # The catalogue SKU whose pools and table these are (``catalogue.sku_asic``); None: the ASIC's own.
    sku: str | None = None

    def __post_init__(self) -> None:
        consts = (
            self.cell_size,
            self.pipeline_latency_kb,
            self.mac_phy_delay_kb,
            self.peer_response_time_kb,
            self.port_reserved_shp,
            self.port_max_shp,
        )
        # The formula cannot run with a missing constant, so refuse such a spec up front.
        if self.dynamic_formula and any(c is None for c in consts):
            raise ValueError(f"{self.name}: dynamic_formula needs every ASIC_TABLE constant")

    @property
    def table_owner(self) -> str:
        """Whose lookup table this is: ``SKU ACS-SN5600 (NVIDIA Spectrum-4)`` or ``NVIDIA Spectrum-4 (spectrum4)``."""
        return f"SKU {self.sku} ({self.label})" if self.sku else f"{self.label} ({self.name})"

    def rows_summary(self) -> str:
        """The lookup rows as ``"<speed> <cable>m"`` items, or ``"none"``."""
        if not self.lookup_rows:
            return "none"
        return ", ".join(f"{r.speed_mbps} {r.cable_m}m" for r in self.lookup_rows)


def _rows(source: str, *rows: tuple[int, int, int, int, int, int, int | None]) -> tuple[LookupRow, ...]:
    return tuple(LookupRow(*r, source=source + "pg_profile_lookup.ini") for r in rows)


def _spectrum(
    gen: int,
    cell_size: int,
    *,
    pipeline_latency_kb: int = 19,
    port_max_shp: int = 8192,
    pools: PoolSizes | None = None,
    rows: tuple[LookupRow, ...] = (),
) -> AsicSpec:
    return AsicSpec(
        name=f"spectrum{gen}",
        label=f"NVIDIA Spectrum-{gen}",
        short_label=f"Spectrum-{gen}",
        vendor="mellanox",
        dynamic_formula=True,
        size_is_xon_plus_xoff=True,
        default_cable_m=5,  # Mellanox default_cable (§0, §1.3)
        cell_size=cell_size,
        pipeline_latency_kb=pipeline_latency_kb,
        mac_phy_delay_kb=0.8,
        peer_response_time_kb=3.8,
        port_reserved_shp=20,
        port_max_shp=port_max_shp,
        kb_on_tile=gen in (4, 5),
        xoff_compensation_kb=18 if gen == 6 else 0,
        pools=pools or PoolSizes(),
        lookup_rows=rows,
    )


_ASIC_LIST = (
    _spectrum(1, 96),
    _spectrum(2, 144),
    _spectrum(
        3,
        144,
        # §1.3 Example A: SN4700 t1 defaults and the lookup excerpt.
        pools=PoolSizes(
            ingress_lossless_pool=20627456,
            ingress_lossy_pool=20627456,
            egress_lossless_pool=60817392,
            egress_lossy_pool=20627456,
            source=_SN4700 + "buffers_defaults_t1.j2",
        ),
        rows=_rows(
            _SN4700,
            (100000, 5, 53248, 19456, 33792, 0, None),
            (400000, 5, 86016, 37888, 38912, 0, None),
            (100000, 40, 63488, 19456, 44032, 0, None),
            (400000, 300, 420864, 37888, 373760, 0, None),
        ),
    ),
    _spectrum(
        4,
        192,
        # §1.3 Example B: SN5600 t1 defaults (egress lossy not quoted) and lookup rows.
        pools=PoolSizes(
            ingress_lossless_pool=52161690,
            ingress_lossy_pool=52161690,
            egress_lossless_pool=158229504,
            source=_SN5600 + "buffers_defaults_t1.j2",
        ),
        rows=_rows(
            _SN5600,
            (100000, 5, 133120, 19456, 113664, 0, None),
            (400000, 5, 250880, 19456, 231424, 0, None),
            (400000, 40, 303104, 19456, 283648, 0, None),
            (800000, 5, 304128, 38912, 257024, 0, None),
        ),
    ),
    _spectrum(5, 192, port_max_shp=6144),
    _spectrum(6, 256, pipeline_latency_kb=42, port_max_shp=6144),
    AsicSpec(
        name="tomahawk",
        label="Broadcom Tomahawk",
        short_label="Tomahawk",
        vendor="broadcom",
        dynamic_formula=False,
        size_is_xon_plus_xoff=False,
        default_cable_m=40,  # TH gen buffers_defaults_t1.j2 default_cable (§1.3 Example C)
        pools=PoolSizes(
            ingress_lossless_pool=10875072,
            egress_lossless_pool=15982720,
            egress_lossy_pool=9243812,
            shared_headroom_pool_xoff=4194112,
            source=_TH_GEN + "buffers_defaults_t1.j2",
        ),
        lookup_rows=_rows(
            _TH_GEN,
            (100000, 5, 1248, 2288, 165568, 0, 2288),
            (100000, 40, 1248, 2288, 177632, 0, 2288),
            (100000, 300, 1248, 2288, 268736, 0, 2288),
        ),
    ),
    AsicSpec(
        name="tomahawk5",
        label="Broadcom Tomahawk 5",
        short_label="Tomahawk 5",
        vendor="broadcom",
        dynamic_formula=False,
        size_is_xon_plus_xoff=False,
        # The reference quotes no 7060X6 default_cable; use the TH-family 40m (§0 "40m (TH)").
        default_cable_m=40,
        pools=PoolSizes(
            ingress_lossless_pool=166115492,
            shared_headroom_pool_xoff=22035008,
            source=_TH5 + "buffers_defaults_t1.j2",
        ),
        lookup_rows=_rows(
            _TH5,
            (400000, 5, 18796, 0, 393192, 0, 3556),
            (400000, 40, 18796, 0, 612140, 0, 3556),
        ),
    ),
)


def vendor_asic(name: str, vendor: str, label: str | None = None) -> AsicSpec:
    """An ASIC xoff knows only by name and vendor: no formula, no table of its own (a SKU brings its table)."""
    return AsicSpec(
        name=name,
        label=label or name,
        short_label=label or name,
        vendor=vendor,
        dynamic_formula=False,
        size_is_xon_plus_xoff=False,
        default_cable_m=40 if vendor == "broadcom" else 5,
    )


# ASICs the SKU catalogue names that have no table or formula here: their SKUs' own tables are the data.
_NAMED_ONLY = (
    vendor_asic("tomahawk2", "broadcom", "Broadcom Tomahawk 2"),
    vendor_asic("tomahawk3", "broadcom", "Broadcom Tomahawk 3"),
    vendor_asic("tomahawk4", "broadcom", "Broadcom Tomahawk 4"),
    vendor_asic("tomahawk6", "broadcom", "Broadcom Tomahawk 6"),
    vendor_asic("trident3", "broadcom", "Broadcom Trident 3"),
    vendor_asic("trident4", "broadcom", "Broadcom Trident 4"),
    vendor_asic("tofino", "barefoot", "Intel Tofino"),
    vendor_asic("tofino2", "barefoot", "Intel Tofino 2"),
    vendor_asic("teralynx5", "marvell", "Marvell Teralynx 5"),
    vendor_asic("teralynx7", "marvell", "Marvell Teralynx 7"),
    vendor_asic("teralynx10", "marvell", "Marvell Teralynx 10"),
)

ASICS: dict[str, AsicSpec] = {a.name: a for a in (*_ASIC_LIST, *_NAMED_ONLY)}


def _norm(name: str) -> str:
    # "Spectrum-4", "spectrum_4" and "SPECTRUM 4" all mean the same chip.
    return re.sub(r"[\s_\-]+", "", name.strip().lower())


def _build_aliases() -> dict[str, str]:
    aliases: dict[str, str] = {}
    for spec in ASICS.values():
        for alias in (spec.name, spec.label, spec.short_label):
            aliases[_norm(alias)] = spec.name
    for gen in range(1, 7):
        for prefix in ("sp", "spc", "mellanoxspectrum"):
            aliases[f"{prefix}{gen}"] = f"spectrum{gen}"
    aliases.update(
        {
            "spectrum": "spectrum1",
            # Platforms the reference ties to an ASIC (§1.3 Examples A and B).
            "sn4700": "spectrum3",
            "msn4700": "spectrum3",
            "sn5600": "spectrum4",
            "th": "tomahawk",
            "th1": "tomahawk",
            "tomahawk1": "tomahawk",
            "th5": "tomahawk5",
            "th2": "tomahawk2",
            "th3": "tomahawk3",
            "th4": "tomahawk4",
            "th6": "tomahawk6",
            "td3": "trident3",
            "td4": "trident4",
        }
    )
    return aliases


_ALIASES = _build_aliases()


def get_asic(name: str) -> AsicSpec:
    """Resolve an ASIC name or alias (case-insensitive; "spectrum-4", "sp4", "th5", ...).

    Raises ``KeyError`` listing the known canonical names.
    """
    canonical = _ALIASES.get(_norm(name))
    if canonical is None:
        raise KeyError(f"unknown ASIC {name!r} (allowed: {', '.join(ASICS)})")
    return ASICS[canonical]
