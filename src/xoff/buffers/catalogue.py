"""The SKU catalogue: hardware SKUs (SONiC HWSKUs and the names users know) with their ASIC, buffer pools and
their own ``pg_profile_lookup.ini`` table, read from data files (``xoff/data/skus/<vendor>/<HWSKU>.yaml``).

The files are data written from sonic-buildimage (and vendors' published guidance), each naming its source. A
malformed file is a located error when the catalogue loads. A site adds SKUs in the directories that
``XOFF_SKU_DIR`` names (``os.pathsep``-separated); a site SKU with a shipped SKU's name replaces it.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import pickle
import sys
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from xoff.buffers.asics import AsicSpec, LookupRow, PoolSizes, get_asic, vendor_asic
from xoff.buffers.pools import PoolAccounting
from xoff.errors import InputError, Problem

__all__ = [
    "SKUS",
    "SKU_DIR_ENV",
    "Sku",
    "get_sku",
    "load_catalogue",
    "sku_asic",
    "sku_dirs",
    "sku_names",
    "switch_asic",
]

SKU_DIR_ENV = "XOFF_SKU_DIR"
_SHIPPED = Path(__file__).resolve().parents[1] / "data" / "skus"

_Bytes = Annotated[int, Field(ge=0)]


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class SkuSource(_Data):
    """Where every number of the file came from."""

    repo: str = Field(min_length=1)
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")
    dir: str = Field(min_length=1)


class SkuPools(_Data):
    """Buffer pool sizes in bytes from ``buffers_defaults_t1.j2`` (or ``_t0``); None: the source does not give it."""

    file: str | None = Field(min_length=1, description="None: the SKU has no such template")
    ingress_lossless_pool: _Bytes | None = None
    ingress_lossy_pool: _Bytes | None = None
    egress_lossless_pool: _Bytes | None = None
    egress_lossy_pool: _Bytes | None = None
    shared_headroom_pool_xoff: _Bytes | None = None
    total_buffer: _Bytes | None = Field(None, description="bytes the pools must fit in; None: no source gives it")
    total_buffer_published: str | None = Field(None, description="the number as its source writes it, and its unit")
    total_buffer_source: str | None = Field(None, description="where the total is from (URL or repository path)")
    pool_accounting: PoolAccounting | None = Field(
        None, description="how the pools count in the total (buffers.pools.pool_fit); None: pools_and_headroom"
    )


class SkuRow(_Data):
    """One ``pg_profile_lookup.ini`` row as written (bytes; cable as ``<n>m``)."""

    speed: int = Field(gt=0)
    cable: str = Field(pattern=r"^[0-9]+m$")
    size: _Bytes
    xon: _Bytes
    xoff: _Bytes
    dynamic_th: int
    xon_offset: _Bytes | None = None

    @property
    def cable_m(self) -> int:
        return int(self.cable[:-1])


class SkuLookup(_Data):
    file: str = Field(min_length=1)
    rows: list[SkuRow]


class Sku(_Data):
    """One SKU data file (the shared format of issue 15)."""

    hwsku: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    vendor: str = Field(min_length=1)
    asic: str = Field(min_length=1)
    platform: str = Field(min_length=1)
    models: list[Literal["static", "dynamic"]] = Field(min_length=1)
    source: SkuSource
    pools: SkuPools | None = None
    pools_t0: SkuPools | None = None
    lookup: SkuLookup | None = None
    notes: list[str] = Field(default_factory=list)

    def where(self, file: str) -> str:
        """``sonic-net/sonic-buildimage@<commit>:<dir><file>``; a file under ``device/`` is from the repository root,
        any other (``BALANCED/pg_profile_lookup.ini``) from the HWSKU's directory."""
        path = file if file.startswith("device/") else self.source.dir.rstrip("/") + "/" + file
        return f"{self.source.repo}@{self.source.commit[:12]}:{path}"

    def lookup_rows(self) -> tuple[LookupRow, ...]:
        """The SKU's table as :class:`LookupRow` items, each naming the file it is read from."""
        if self.lookup is None:
            return ()
        src = self.where(self.lookup.file)
        return tuple(
            LookupRow(r.speed, r.cable_m, r.size, r.xon, r.xoff, r.dynamic_th, r.xon_offset, src)
            for r in self.lookup.rows
        )

    def planned_pools(self) -> SkuPools | None:
        """The t1 pools (xoff plans leaf and spine fabrics); the t0 ones where the SKU ships no t1 template."""
        return self.pools if self.pools is not None and self.pools.file is not None else self.pools_t0

    def pool_sizes(self) -> PoolSizes | None:
        p = self.planned_pools()
        if p is None:
            return None
        return PoolSizes(
            ingress_lossless_pool=p.ingress_lossless_pool,
            ingress_lossy_pool=p.ingress_lossy_pool,
            egress_lossless_pool=p.egress_lossless_pool,
            egress_lossy_pool=p.egress_lossy_pool,
            shared_headroom_pool_xoff=p.shared_headroom_pool_xoff,
            source=self.where(p.file) if p.file is not None else None,
            total_buffer=p.total_buffer,
            total_buffer_source=p.total_buffer_source,
            pool_accounting=p.pool_accounting or "pools_and_headroom",
        )

    def rows_summary(self) -> str:
        rows = self.lookup.rows if self.lookup is not None else []
        return ", ".join(f"{r.speed} {r.cable}" for r in rows) or "none"


def sku_dirs() -> list[Path]:
    """The shipped directory, then each ``XOFF_SKU_DIR`` entry (later ones win on a name)."""
    extra = [Path(p) for p in os.environ.get(SKU_DIR_ENV, "").split(os.pathsep) if p]
    return [_SHIPPED, *extra]


_NOT_SKUS = "guidance"  # the vendors' published headroom guidance: data of another shape, read by docs/buffers.md


def _files(root: Path) -> Iterator[Path]:
    """``<vendor>/<HWSKU>.yaml`` files (a site directory may also hold them at its top)."""
    if root.is_dir():
        yield from sorted(p for p in root.rglob("*.yaml") if _NOT_SKUS not in p.relative_to(root).parts[:-1])


def _load_file(path: Path) -> Sku:
    # the intent's YAML reader and error translation (xoff.intent imports this module: read them when used)
    from xoff.intent.pydantic_errors import translate  # noqa: PLC0415
    from xoff.intent.yamlsource import load_yaml  # noqa: PLC0415

    data, smap = load_yaml(path)
    if not isinstance(data, dict):
        raise InputError([Problem(None, "", f"{path}: a SKU file is a mapping (hwsku, vendor, asic, ...)")])
    try:
        return Sku.model_validate(data)
    except ValidationError as exc:
        raise InputError(translate(exc, data, smap, Sku)) from None


def _names(sku: Sku) -> list[str]:
    return [sku.hwsku, *sku.aliases]


def load_catalogue(dirs: list[Path]) -> dict[str, Sku]:
    """Every SKU under ``dirs`` by HWSKU; an alias another SKU also uses is a located error."""
    by_hwsku: dict[str, tuple[Sku, Path]] = {}
    problems: list[Problem] = []
    for root in dirs:
        for path in _files(root):
            try:
                sku = _load_file(path)
            except InputError as exc:
                problems.extend(exc.problems)
                continue
            by_hwsku[sku.hwsku.casefold()] = (sku, path)
    owner: dict[str, Path] = {}
    for sku, path in by_hwsku.values():
        for name in dict.fromkeys(n.casefold() for n in _names(sku)):
            if name in owner:
                problems.append(
                    Problem(None, "", f"{path}: SKU name {name!r} is also {owner[name]}'s (allowed: unique names)")
                )
            owner[name] = path
    if problems:
        raise InputError(problems)
    return {sku.hwsku: sku for sku, _ in by_hwsku.values()}


CACHE_DIR_ENV = "XOFF_CACHE_DIR"  # where the parsed catalogue is kept (default: $XDG_CACHE_HOME/xoff, ~/.cache/xoff)
_MODEL_SOURCES = ("catalogue.py", "asics.py", "pools.py")  # the classes a cached catalogue is made of


def _cache_file(dirs: list[Path]) -> Path | None:
    """Where the catalogue parsed from exactly these files (their bytes, and the model classes' source) is
    kept; None when a file cannot be read (then nothing is cached)."""
    digest = hashlib.sha256(sys.version.encode())
    try:
        here = Path(__file__).resolve().parent
        for path in [*(here / name for name in _MODEL_SOURCES), *(p for root in dirs for p in _files(root))]:
            digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
        base = (
            os.environ.get(CACHE_DIR_ENV) or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "xoff"
        )
    except (OSError, RuntimeError):  # a file not readable; no home directory
        return None
    return Path(base) / f"skus-{digest.hexdigest()[:32]}.pickle"


def _cached_catalogue(dirs: list[Path]) -> dict[str, Sku]:
    """``load_catalogue``, kept parsed between runs: reading 177 SKU files with the located YAML reader costs
    every `xoff` command ~0.3 s of CPU; the pickle of the result, keyed by the files' bytes, ~0.01 s. A
    catalogue with errors is not kept (they are said on every run); a cache that cannot be read or written
    is passed by."""
    cache_file = _cache_file(dirs)
    if cache_file is not None:
        with contextlib.suppress(OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            st = cache_file.stat()
            if st.st_uid == os.getuid() and not st.st_mode & 0o022:  # only a file this user wrote and only it can
                loaded = pickle.loads(cache_file.read_bytes())
                if isinstance(loaded, dict):
                    return loaded
    skus = load_catalogue(dirs)
    if cache_file is not None:
        with contextlib.suppress(OSError):
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache_file.with_name(f"{cache_file.name}.{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps(skus, protocol=pickle.HIGHEST_PROTOCOL))
            tmp.chmod(0o600)
            tmp.replace(cache_file)
    return skus


@cache
def _catalogue(dirs: tuple[Path, ...]) -> Mapping[str, Sku]:
    return MappingProxyType(_cached_catalogue(list(dirs)))


def _skus() -> Mapping[str, Sku]:
    return _catalogue(tuple(sku_dirs()))


class _Skus(Mapping[str, Sku]):
    """The catalogue by HWSKU, loaded on first use (and again when ``XOFF_SKU_DIR`` changes)."""

    def __getitem__(self, key: str) -> Sku:
        return _skus()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_skus())

    def __len__(self) -> int:
        return len(_skus())


SKUS: Mapping[str, Sku] = _Skus()


def sku_names() -> list[str]:
    return sorted(n for sku in _skus().values() for n in _names(sku))


def get_sku(name: str) -> Sku:
    """A SKU by HWSKU or alias, case-insensitive; ``KeyError`` with the closest names otherwise."""
    want = name.strip().casefold()
    for sku in _skus().values():
        if want in (n.casefold() for n in _names(sku)):
            return sku
    names = sku_names()
    close = difflib.get_close_matches(name.strip(), names, n=5, cutoff=0.5) or difflib.get_close_matches(
        name.strip().upper(), [n.upper() for n in names], n=5, cutoff=0.5
    )
    hint = f"closest: {', '.join(close)}" if close else f"{len(names)} known; see docs/buffers.md"
    raise KeyError(f"unknown SKU {name!r} ({hint})")


def switch_asic(asic: str, sku: str | None) -> AsicSpec:
    """A switch's ASIC: its SKU's (with the SKU's pools and table) when it names one, else the ASIC's own."""
    return _switch_asic(asic, sku, tuple(sku_dirs()))


# The table a switch that names only its ASIC gets: SONiC's reference SKU of that ASIC (NVIDIA's ACS SKUs, whose
# rows the ASIC's excerpt in asics.py is a part of). The ASIC's own pools stay. Others keep asics.py's rows.
REFERENCE_SKUS = {
    "spectrum1": "ACS-MSN2700",
    "spectrum2": "ACS-MSN3800",
    "spectrum3": "ACS-MSN4700",
    "spectrum4": "ACS-SN5600",
    "spectrum6": "ACS-SN6600",
}


@cache
def _switch_asic(asic: str, sku: str | None, dirs: tuple[Path, ...]) -> AsicSpec:
    del dirs  # part of the key only: another XOFF_SKU_DIR is another catalogue
    if sku is not None:
        return sku_asic(get_sku(sku))
    spec = get_asic(asic)
    ref = _skus().get(REFERENCE_SKUS.get(spec.name, ""))
    if ref is None:
        return spec
    if ref.lookup:
        spec = replace(spec, lookup_rows=ref.lookup_rows())
    return replace(spec, pools=_with_reference_total(spec.pools, ref))


def _with_reference_total(pools: PoolSizes, ref: Sku) -> PoolSizes:
    """The ASIC's own pools (its reference SKU's, asics.py) judged against that SKU's total buffer: the total is
    the chip's (SONiC's Spectrum SKUs of one ASIC all give the same), so it holds for an ASIC-only switch too."""
    given = ref.planned_pools()
    if pools.ingress_lossless_pool is None or given is None or given.total_buffer is None:
        return pools
    return replace(
        pools,
        total_buffer=given.total_buffer,
        total_buffer_source=f"{given.total_buffer_source} (reference SKU {ref.hwsku})",
        pool_accounting=given.pool_accounting or "pools_and_headroom",
    )


def sku_asic(sku: Sku) -> AsicSpec:
    """The ASIC a SKU names, carrying the SKU's pools and table (``asics.py`` knows the constants; a name it does
    not know is an ASIC of the SKU's vendor with no formula)."""
    try:
        base = get_asic(sku.asic)
    except KeyError:
        base = vendor_asic(sku.asic, sku.vendor)
    return replace(
        base,
        # SONiC runs the dynamic model only on SKUs that ship its files: the formula is this SKU's only if so
        dynamic_formula=base.dynamic_formula and "dynamic" in sku.models,
        pools=sku.pool_sizes() or PoolSizes(),
        lookup_rows=sku.lookup_rows(),
        sku=sku.hwsku,
    )
