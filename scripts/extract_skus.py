"""Write xoff's SKU catalogue data (src/xoff/data/skus/<vendor>/<HWSKU>.yaml) from a sonic-buildimage checkout.

    python scripts/extract_skus.py /path/to/sonic-buildimage [--out src/xoff/data/skus] [--rev HEAD]

The checkout may be a work tree or a bare git directory: everything is read from the commit ``--rev`` with git
(``ls-tree``, ``cat-file``), so symlinks are followed as git stores them (a blob holding the target path) and the
commit recorded in every file is the one read. Standard library only; nothing of sonic-buildimage is vendored.

What is taken, per HWSKU directory ``device/<vendor>/<platform>/<HWSKU>/`` holding a ``pg_profile_lookup.ini``:

- ``lookup.rows``: every row of ``pg_profile_lookup.ini`` as written (``speed cable size xon xoff threshold
  [xon_offset]``; buffermgr's column order), comments skipped.
- ``pools``: from ``buffers_defaults_t1.j2`` (``pools_t0`` from ``buffers_defaults_t0.j2`` when its numbers
  differ). Two spellings exist: Mellanox's ``{% set ingress_lossless_pool_size = '...' %}`` variables, and the
  JSON ``"BUFFER_POOL": {"ingress_lossless_pool": {"size": "...", "xoff": "..."}}`` other vendors write. A pool
  the file does not give is null; ``shared_headroom_pool_xoff`` is 0 when the ingress lossless pool is given
  without ``xoff`` (the YANG default of BUFFER_POOL.xoff) and null when that pool is not given at all.
- ``asic``: Mellanox from ``platform/mellanox/asic_table.j2`` (``platform2asic``); Broadcom from the SDK config file
  names in the platform directory (``th5-...config.bcm``), the chip id in the SDK config (``BCM78900``), or the
  PCIe description (``[Tomahawk5]``); Barefoot from ``chip_family`` in ``switch-tna-sai.conf``; Marvell Teralynx
  from the SDK file names (``innovium.77700_A``, ``teralynx.MVTX9180``).
- ``models``: static always; dynamic when the HWSKU ships ``buffers_dynamic.json.j2``.

Selection (a GPU fabric's switches): Spectrum 1-6, Tomahawk 1-6, Trident 3/4, Tofino, Teralynx, with at least one
table row at 100G or more; virtual, simulator duplicates, ``device/common`` profiles (not HWSKUs), Jericho / DNX
(VOQ chassis, multi-ASIC) and Trident 2 / Helix / Nephos / Centec access switches are left out and listed on stderr.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = "sonic-net/sonic-buildimage"
POOL_NAMES = ("ingress_lossless_pool", "ingress_lossy_pool", "egress_lossless_pool", "egress_lossy_pool")
INCLUDED_ASICS = {
    *(f"spectrum{n}" for n in range(1, 7)),
    "tomahawk",
    *(f"tomahawk{n}" for n in range(2, 7)),
    "trident3",
    "trident4",
    "tofino",
    "tofino2",
    "teralynx5",
    "teralynx7",
    "teralynx10",
}
ASIC_VENDOR = {"spectrum": "mellanox", "tomahawk": "broadcom", "trident": "broadcom", "tofino": "barefoot"}
ASIC_VENDOR["teralynx"] = "marvell"
# Broadcom SDK config prefixes (th5-a7060x6-64pe.config.bcm) and chip ids, to xoff ASIC names.
BCM_PREFIX = {
    "th": "tomahawk",
    "th2": "tomahawk2",
    "th3": "tomahawk3",
    "th4": "tomahawk4",
    "th5": "tomahawk5",
    "th6": "tomahawk6",
    "td2": "trident2",
    "td3": "trident3",
    "td4": "trident4",
    "hx5": "helix5",
}
# Broadcom device ids by family (the first four digits): BCM56960 Tomahawk ... BCM78910 Tomahawk 6.
BCM_CHIP = {
    "5696": "tomahawk",
    "5697": "tomahawk2",
    "5698": "tomahawk3",
    "5699": "tomahawk4",
    "7890": "tomahawk5",
    "7891": "tomahawk6",
    "5687": "trident3",
    "5688": "trident4",
}
TERALYNX_FILE = {"innovium.55300": "teralynx5", "innovium.77700": "teralynx7", "teralynx.MVTX9180": "teralynx10"}
SKU_PREFIXES = ("ACS-", "Mellanox-", "Arista-", "DellEMC-", "Dell-", "Force10-", "Nokia-", "Quanta-", "Celestica-")
SKU_PREFIXES += ("INVENTEC-", "Alphanetworks-", "INGRASYS-")
SPEED_100G = 100000


class Tree:
    """One commit of a git repository: paths, modes and contents, with symlinks followed."""

    def __init__(self, repo: str, rev: str) -> None:
        self.repo = repo
        self.commit = self._git("rev-parse", f"{rev}^{{commit}}").strip()
        self.entries: dict[str, tuple[str, str]] = {}  # path -> (mode, object id)
        for line in self._git("ls-tree", "-r", "-t", "--full-tree", self.commit).splitlines():
            meta, path = line.split("\t", 1)
            mode, _kind, oid = meta.split()
            self.entries[path] = (mode, oid)
        self._blobs: dict[str, str] = {}

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", self.repo, *args], capture_output=True, text=True, check=True).stdout

    def _raw(self, oid: str) -> str:
        if oid not in self._blobs:
            self._blobs[oid] = self._git("cat-file", "blob", oid)
        return self._blobs[oid]

    def resolve(self, path: str) -> tuple[str, list[str]]:
        """The real path behind ``path`` and the symlinks crossed, or KeyError."""
        crossed: list[str] = []
        for _ in range(40):
            parts = path.split("/")
            for i in range(1, len(parts) + 1):
                prefix = "/".join(parts[:i])
                mode, oid = self.entries[prefix]
                if mode == "120000":
                    target = posixpath.normpath(posixpath.join(posixpath.dirname(prefix), self._raw(oid).strip()))
                    crossed.append(f"{prefix} -> {self._raw(oid).strip()}")
                    path = "/".join([target, *parts[i:]])
                    break
            else:
                return path, crossed
        raise KeyError(path)

    def read(self, path: str) -> str:
        real, _ = self.resolve(path)
        return self._raw(self.entries[real][1])

    def exists(self, path: str) -> bool:
        try:
            real, _ = self.resolve(path)
        except KeyError:
            return False
        return self.entries[real][0] != "040000"

    def listdir(self, directory: str) -> list[str]:
        prefix = directory.rstrip("/") + "/"
        return [p for p in self.entries if p.startswith(prefix) and "/" not in p[len(prefix) :]]


@dataclass
class Sku:
    vendor_dir: str
    platform: str
    hwsku: str
    notes: list[str] = field(default_factory=list)

    @property
    def dir(self) -> str:
        return f"device/{self.vendor_dir}/{self.platform}/{self.hwsku}/"


def parse_lookup(text: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#") or not fields[0].isdigit():
            continue
        speed, cable, size, xon, xoff, threshold, *rest = fields
        rows.append(
            {
                "speed": int(speed),
                "cable": cable,
                "size": int(size),
                "xon": int(xon),
                "xoff": int(xoff),
                "dynamic_th": int(threshold),
                "xon_offset": int(rest[0]) if rest else None,
            }
        )
    return rows


def _int_or_none(value: str | None) -> int | None:
    return int(value) if value is not None and re.fullmatch(r"-?\d+", value) else None


JINJA_SET = re.compile(r"set\s+(\w+)\s*=\s*(?:['\"](-?\d+)['\"]|(-?\d+)|\w+\.(\w+))\s*-?%}")


def jinja_vars(text: str, imported: dict[str, str]) -> dict[str, str]:
    """``{% set name = '123' %}`` numbers, and ``{% set name = defs.other %}`` taken from the imported files."""
    found: dict[str, str] = dict(imported)
    for name, quoted, bare, ref in JINJA_SET.findall(text):
        value = quoted or bare or imported.get(ref, "")
        if value:
            found.setdefault(name, value)  # the first, unconditional value; later sets sit under {% if %}
    return found


def parse_pools(text: str, imported: dict[str, str] | None = None) -> tuple[dict[str, int | None], list[str]]:
    """Pool sizes and the ingress lossless pool's xoff, from either spelling of buffers_defaults_*.j2."""
    text = re.sub(r"\{#.*?#\}", "", text, flags=re.S)
    jinja = jinja_vars(text, imported or {})
    text = re.sub(r"\{\{\s*(?:\w+\.)?(\w+)\s*\}\}", lambda m: jinja.get(m.group(1), "?"), text)
    pools: dict[str, int | None] = {}
    shp: int | None = None
    block = re.search(r'"BUFFER_POOL"\s*:\s*\{(.*?)\n\s*\}\s*,?\s*\n\s*"BUFFER_PROFILE"', text, re.S)
    body = block.group(1) if block else ""
    for name in POOL_NAMES:
        found = re.search(rf'"{name}"\s*:\s*\{{([^}}]*)\}}', body)
        attrs = dict(re.findall(r'"(\w+)"\s*:\s*"([^"]*)"', found.group(1))) if found else {}
        pools[name] = _int_or_none(attrs.get("size") or jinja.get(f"{name}_size"))
        if name == "ingress_lossless_pool":
            xoff = attrs.get("xoff") or jinja.get(f"{name}_xoff")
            given = bool(found) or f"{name}_size" in jinja
            shp = _int_or_none(xoff) if xoff else (0 if given else None)
    pools["shared_headroom_pool_xoff"] = shp
    other = sorted(set(re.findall(r'"(\w+_pool)"\s*:\s*\{', body)) - set(POOL_NAMES))
    notes = [f"BUFFER_POOL names pools xoff does not know: {', '.join(other)}"] if other else []
    return pools, notes


# The total buffer each pools block is judged against (``buffers.pool_fit``), and how SONiC's pools count in it.
# Mellanox: SONiC's own number. cfgmgr/buffer_pool_mellanox.lua (sonic-swss) takes the chip's ``mmu_size`` and, where
# the SAI gives none, the egress_lossless_pool size; it then shares ``mmu_size`` minus what the ports reserve minus
# the shared headroom pool between the ingress pools (two pools: half each; egress_lossy_pool is the egress view of
# the same memory). So: ingress lossless + ingress lossy + shared headroom pool <= egress_lossless_pool size.
# Broadcom: SONiC's templates give no total, so the total is the ASIC's published buffer ("MB" as Broadcom and the
# switch vendors write it, read as MiB, 2**20 bytes: SONiC's own Tomahawk 3 templates size a pool at exactly 64 MiB,
# 67108864, so Broadcom's "64 MB" is binary). The ingress_lossless_pool is the ingress view of the whole shared
# buffer and its ``xoff`` (SAI_BUFFER_POOL_ATTR_XOFF_SIZE) is the headroom partition inside it (the shipped Tomahawk 3
# pools, 66394076 + 27200352, would not fit 64 MiB side by side); lossy traffic shares that pool on Broadcom, and
# the egress pools are egress views of the same cells. So: ingress_lossless_pool (holding the shared headroom pool)
# <= the total, and the shared headroom pool <= ingress_lossless_pool.
TOTAL_KEYS = ("total_buffer", "total_buffer_published", "total_buffer_source", "pool_accounting")
MLNX_TOTAL_SOURCE = (
    "sonic-net/sonic-swss@e6b0c5b5d2ab:cfgmgr/buffer_pool_mellanox.lua (mmu_size falls back to egress_lossless_pool)"
)
_FP = "https://port-buffers.forwardingplane.net/concepts/"
_UCSC = "https://people.ucsc.edu/~warner/Bufs/"
# asic -> (MB as published, URL); per HWSKU where a SKU's chip variant differs from the family's top part.
PUBLISHED_TOTALS: dict[str, tuple[int, str]] = {
    "tomahawk": (16, "https://www.easymanua.ls/delta/ag9032/manual?p=9 (Delta AG9032, a Tomahawk switch: 16MB)"),
    "tomahawk2": (42, _FP + "broadcom-tomahawk2/ (BCM56970: 42 MB on-chip buffer)"),
    "tomahawk3": (64, "https://gist.github.com/jopietsch/c1573518516af6071ae9cd0462ff0fd3 (Tomahawk 3: 64 MB)"),
    "trident3": (32, _FP + "broadcom-trident3 (BCM56870 X7 / X5: 32 MB unified buffer)"),
}
PUBLISHED_SKU_TOTALS: dict[str, tuple[int, str]] = {
    # a 48 x 1G + 4 x 10G + 2 x 100G switch: Trident 3 X3, whose buffer is 8 MB (its pools are sized to 8 MiB)
    "DELLEMC-N3248PXE": (8, _UCSC + "trident3.html (Trident 3 X3: 8 Mbyte of packet buffer)"),
}


def add_total(hwsku: str, vendor: str, asic: str, pools: dict[str, object]) -> None:
    """``total_buffer`` (bytes), where it is from, as published, and how the pools count in it (see above)."""
    given: dict[str, object] = dict.fromkeys(TOTAL_KEYS)
    egress = pools.get("egress_lossless_pool")
    if vendor == "mellanox" and isinstance(egress, int) and egress > 0:
        given = {
            "total_buffer": egress,
            "total_buffer_published": f"egress_lossless_pool {egress} B in {pools['file']}",
            "total_buffer_source": MLNX_TOTAL_SOURCE,
            "pool_accounting": "pools_and_headroom",
        }
    elif vendor == "broadcom":
        found = PUBLISHED_SKU_TOTALS.get(hwsku) or PUBLISHED_TOTALS.get(asic)
        if found is not None:
            given = {
                "total_buffer": found[0] * 2**20,
                "total_buffer_published": f"{found[0]} MB (read as MiB: {found[0]} x 2**20 B)",
                "total_buffer_source": found[1],
            }
        given["pool_accounting"] = "headroom_in_lossless_pool"
    pools.update(given)


def mellanox_asics(tree: Tree) -> dict[str, str]:
    text = tree.read("platform/mellanox/asic_table.j2")
    table = {}
    for platform, asic in re.findall(r"'(x86_64-[\w-]+)'\s*:\s*'MELLANOX-SPECTRUM(-\d)?'", text):
        table[platform] = f"spectrum{asic[1:] if asic else 1}"
    return table


def _text_files(tree: Tree, platform_dir: str) -> list[str]:
    return [p for p, (mode, _) in tree.entries.items() if p.startswith(platform_dir + "/") and mode != "040000"]


def other_asic(tree: Tree, platform_dir: str, platform_asic: str) -> tuple[str | None, str]:
    """The ASIC of a non-Mellanox platform, with the evidence (a file name or a line)."""
    if platform_asic.startswith("broadcom-dnx"):
        return "jericho", "platform_asic broadcom-dnx"
    if platform_asic in {"nephos", "centec"}:
        return platform_asic, f"platform_asic {platform_asic}"
    files = _text_files(tree, platform_dir)
    for step in (_asic_from_pcie, _asic_from_file_names, _asic_from_contents):
        found = step(tree, files)
        if found:
            return found
    return None, "not found"


def _asic_from_pcie(tree: Tree, files: list[str]) -> tuple[str, str] | None:
    """The PCIe device the platform probes names the chip itself."""
    for path in files:
        if posixpath.basename(path) in {"pcie.yaml", "pcie.yaml.j2"}:
            found = _bcm_chip(tree.read(path))
            if found:
                return found[0], f"{posixpath.basename(path)} names {found[1]}"
    return None


def _asic_from_file_names(_tree: Tree, files: list[str]) -> tuple[str, str] | None:
    """SDK files named after the chip: th5-a7060x6-64pe.config.bcm, innovium.77700_A, teralynx.MVTX9180."""
    for path in files:
        name = posixpath.basename(path)
        for key, asic in TERALYNX_FILE.items():
            if name.startswith(key):
                return asic, name
        match = re.match(r"(th\d?|td\d|hx\d)[-_]", name)
        if match and name.endswith((".bcm", ".yml", ".yaml")):
            return BCM_PREFIX[match.group(1)], name
    return None


def _asic_from_contents(tree: Tree, files: list[str]) -> tuple[str, str] | None:
    for path in files:
        if path.endswith(("switch-tna-sai.conf", ".bcm", ".yml", ".yaml")):
            found = _asic_in_text(tree, path)
            if found:
                return found
    return None


def _asic_in_text(tree: Tree, path: str) -> tuple[str, str] | None:
    try:
        text = tree.read(path)
    except KeyError:
        return None
    family = re.search(r'"chip_family"\s*:\s*"(Tofino2?)"', text)
    if family:
        return family.group(1).lower(), f"{posixpath.basename(path)} chip_family {family.group(1)}"
    chip = _bcm_chip(text)
    if chip:
        return chip[0], f"{posixpath.basename(path)} names {chip[1]}"
    tomahawk = re.search(r"\[Tomahawk(\d)\]", text)
    if tomahawk:
        return f"tomahawk{tomahawk.group(1)}", f"{posixpath.basename(path)} names Tomahawk{tomahawk.group(1)}"
    return None


def _bcm_chip(text: str) -> tuple[str, str] | None:
    for match in re.finditer(r"BCM(\d{4})\d", text):
        if match.group(1) in BCM_CHIP:
            return BCM_CHIP[match.group(1)], match.group(0)
    return None


def find_skus(tree: Tree) -> list[Sku]:
    skus = []
    for path in sorted(tree.entries):
        parts = path.split("/")
        if len(parts) == 5 and parts[0] == "device" and parts[4] == "pg_profile_lookup.ini":
            skus.append(Sku(parts[1], parts[2], parts[3]))
    return skus


def _file_ref(sku: Sku, tree: Tree, name: str) -> tuple[str, str]:
    """(file as the format names it, the real path): relative to the HWSKU dir, or from the repo root."""
    real, crossed = tree.resolve(sku.dir + name)
    for link in crossed:
        sku.notes.append(f"symlink followed: {link.removeprefix(sku.dir)}")
    return (real.removeprefix(sku.dir) if real.startswith(sku.dir) else real), real


def pools_block(tree: Tree, sku: Sku, tier: str) -> dict[str, object] | None:
    name = f"buffers_defaults_{tier}.j2"
    if not tree.exists(sku.dir + name):
        return None
    ref, real = _file_ref(sku, tree, name)
    text = tree.read(real)
    imported: dict[str, str] = {}
    for other in re.findall(r"\{%-?\s*import\s+'([^']+)'", text):
        if "objects" not in other and tree.exists(sku.dir + other):
            imported |= jinja_vars(tree.read(sku.dir + other), {})
            sku.notes.append(f"{name} takes pool sizes from {other} (its unconditional values)")
    pools, notes = parse_pools(text, imported)
    sku.notes.extend(notes)
    return {"file": ref, **pools}


def _aliases(sku: Sku, default_sku: str | None) -> list[str]:
    """Names users know: the HWSKU without its vendor prefix, and the platform's model name on its default SKU.

    The model name (``SN5600``, ``7060X6-64PE``, ``Z9332F``) is derived for Mellanox, Arista and Dell only, where the
    platform directory spells it; simulator platforms (SimX) get no aliases.
    """
    if "_simx" in sku.platform:
        return []
    names = [sku.hwsku.removeprefix(p) for p in SKU_PREFIXES if sku.hwsku.startswith(p)]
    if sku.hwsku == default_sku and sku.vendor_dir in {"mellanox", "arista", "dell"}:
        model = _platform_model(sku)
        if model:
            names.append(model)
            if sku.vendor_dir == "mellanox" and model.startswith("MSN"):
                names.append(model[1:])
            elif sku.vendor_dir == "mellanox" and model.startswith("SN"):
                names.append("M" + model)
    return list(dict.fromkeys(n for n in names if n.upper() != sku.hwsku.upper()))


def _platform_model(sku: Sku) -> str | None:
    """The model name in the platform directory: x86_64-nvidia_sn5600-r0 -> SN5600, ..._7060x6_64pe -> 7060X6-64PE."""
    match = re.match(r"x86_64-[a-z0-9]+_(.+?)(-r\d+)?$", sku.platform)
    if not match:
        return None
    tokens = re.sub(r"_(c\d{4}|d\d{4})$", "", match.group(1)).split("_")
    if sku.vendor_dir == "arista":
        # 7060x6_64pe -> 7060X6-64PE; 7060_cx32s is spelled 7060CX-32S by Arista, so no model alias is made
        return "-".join(tokens).upper() if not tokens[0].isdigit() else None
    return tokens[0].upper()


def build(tree: Tree, sku: Sku, asic: str, evidence: str, default_sku: str | None) -> dict[str, object] | None:
    lookup_ref, lookup_real = _file_ref(sku, tree, "pg_profile_lookup.ini")
    rows = parse_lookup(tree.read(lookup_real))
    if not rows or max(int(str(r["speed"])) for r in rows) < SPEED_100G:
        return None
    sku.notes.insert(0, f"asic from {evidence}")
    pools_t1 = pools_block(tree, sku, "t1")
    pools_t0 = pools_block(tree, sku, "t0")
    empty: dict[str, object] = {"file": None, **dict.fromkeys(POOL_NAMES), "shared_headroom_pool_xoff": None}
    vendor = next(v for k, v in ASIC_VENDOR.items() if asic.startswith(k))
    for block in (pools_t1, pools_t0):
        if block is not None:
            add_total(sku.hwsku, vendor, asic, block)
    data: dict[str, object] = {
        "hwsku": sku.hwsku,
        "aliases": _aliases(sku, default_sku),
        "vendor": vendor,
        "asic": asic,
        "platform": sku.platform,
        "models": _models(tree, sku, asic),
        "source": {"repo": REPO, "commit": tree.commit, "dir": sku.dir},
        "pools": pools_t1 or {**empty, **dict.fromkeys(TOTAL_KEYS)},
    }
    if pools_t1 is None:
        sku.notes.append("no buffers_defaults_t1.j2: t1 pools not given")
    if pools_t0 is not None and (pools_t1 is None or _numbers(pools_t0) != _numbers(pools_t1)):
        data["pools_t0"] = pools_t0
    data["lookup"] = {"file": lookup_ref, "rows": rows}
    data["notes"] = list(dict.fromkeys(sku.notes))
    return data


def _models(tree: Tree, sku: Sku, asic: str) -> list[str]:
    """static always; dynamic where the HWSKU ships buffers_dynamic.json.j2 and sonic-swss has the vendor's
    headroom plugin (buffer_headroom_mellanox.lua: Spectrum only)."""
    if not tree.exists(sku.dir + "buffers_dynamic.json.j2"):
        return ["static"]
    if asic.startswith("spectrum"):
        return ["static", "dynamic"]
    sku.notes.append(
        "ships buffers_dynamic.json.j2, but sonic-swss has no headroom plugin for this ASIC"
        " (buffer_headroom_mellanox.lua is the only one): dynamic not listed"
    )
    return ["static"]


def _content(rec: dict[str, object]) -> tuple[object, ...]:
    """What a SKU file says, without where it was read: rows and pool numbers."""
    pools = [_numbers(rec[k]) for k in ("pools", "pools_t0") if k in rec]  # type: ignore[arg-type]
    return (rec["lookup"]["rows"], pools)  # type: ignore[index]


def _numbers(pools: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in pools.items() if k != "file"}


def dump(data: dict[str, object]) -> str:
    """YAML in the catalogue's layout: one row per line, scalars as JSON (a subset of YAML)."""

    def scalar(value: object) -> str:
        return json.dumps(value) if isinstance(value, str) else ("null" if value is None else str(value))

    def flow(value: object) -> str:
        if isinstance(value, list):
            return "[" + ", ".join(flow(v) for v in value) + "]"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{k}: {flow(v)}" for k, v in value.items()) + "}"
        return scalar(value)

    out = []
    for key, value in data.items():
        if isinstance(value, dict):
            out.append(f"{key}:")
            for sub, item in value.items():
                if sub == "rows":
                    out.append("  rows:")
                    out.extend(f"    - {flow(row)}" for row in item)  # type: ignore[attr-defined]
                else:
                    out.append(f"  {sub}: {flow(item)}")
        elif key == "notes" and value:
            out.append("notes:")
            out.extend(f"  - {scalar(n)}" for n in value)  # type: ignore[attr-defined]
        else:
            out.append(f"{key}: {flow(value)}")
    return "\n".join(out) + "\n"


def unique_aliases(records: list[dict[str, object]]) -> None:
    """One owner per alias (case-insensitive): never another SKU's HWSKU name; a name taken from a HWSKU beats a
    platform model name; two claimants of the same kind both lose it (noted)."""
    hwskus = {str(rec["hwsku"]).upper() for rec in records}
    claims: dict[str, list[tuple[int, int]]] = {}
    for index, rec in enumerate(records):
        for alias in rec["aliases"]:  # type: ignore[attr-defined]
            from_hwsku = any(str(rec["hwsku"]) == p + alias for p in SKU_PREFIXES)
            claims.setdefault(alias.upper(), []).append((0 if from_hwsku else 1, index))
    for index, rec in enumerate(records):
        keep, dropped = [], []
        for alias in rec["aliases"]:  # type: ignore[attr-defined]
            ranked = sorted(claims[alias.upper()])
            best = [i for rank, i in ranked if rank == ranked[0][0]]
            owner = best[0] if len(best) == 1 else None
            (keep if owner == index and alias.upper() not in hwskus else dropped).append(alias)
        rec["aliases"] = keep
        if dropped:
            rec["notes"].append(f"alias {', '.join(dropped)} not given: another SKU has that name")  # type: ignore[attr-defined]


def _platform_asic(tree: Tree, sku: Sku, mlnx: dict[str, str]) -> tuple[str | None, str]:
    if sku.vendor_dir == "mellanox":
        asic = mlnx.get(sku.platform)
        return asic, "platform/mellanox/asic_table.j2 platform2asic"
    base = f"device/{sku.vendor_dir}/{sku.platform}"
    platform_asic = tree.read(base + "/platform_asic").strip() if tree.exists(base + "/platform_asic") else ""
    return other_asic(tree, base, platform_asic)


def collect(tree: Tree) -> tuple[list[dict[str, object]], list[str]]:
    mlnx = mellanox_asics(tree)
    records, skipped = [], []
    real_hwskus = {s.hwsku for s in find_skus(tree) if "_simx" not in s.platform}
    for sku in find_skus(tree):
        if sku.vendor_dir in {"virtual", "common"}:
            continue
        if "_simx" in sku.platform and sku.hwsku in real_hwskus:
            skipped.append(f"{sku.dir}: simulator duplicate of a real platform's HWSKU")
            continue
        asic, evidence = _platform_asic(tree, sku, mlnx)
        if asic not in INCLUDED_ASICS:
            skipped.append(f"{sku.dir}: asic {asic} ({evidence})")
            continue
        default_file = f"device/{sku.vendor_dir}/{sku.platform}/default_sku"
        default = tree.read(default_file).split()[0] if tree.exists(default_file) else None
        record = build(tree, sku, str(asic), evidence, default)
        if record is None:
            skipped.append(f"{sku.dir}: no table row at 100G or more")
            continue
        if "_simx" in sku.platform:
            record["notes"].insert(1, "simulator platform (SimX): the only one shipping this HWSKU")  # type: ignore[attr-defined]
        records.append(record)
    records = merge_same_name(records, skipped)
    unique_aliases(records)
    return records, skipped


def merge_same_name(records: list[dict[str, object]], skipped: list[str]) -> list[dict[str, object]]:
    """One file per HWSKU name: a platform shipping the same HWSKU name again is noted on the first (sorted)."""
    kept: dict[tuple[object, object], dict[str, object]] = {}
    for rec in records:
        key = (rec["vendor"], rec["hwsku"])
        first = kept.get(key)
        if first is None:
            kept[key] = rec
            continue
        same = _content(first) == _content(rec)
        other = rec["source"]["dir"]  # type: ignore[index]
        verdict = "the same rows and pools" if same else "different rows or pools, not in the catalogue"
        first["notes"].append(f"the same HWSKU name is also shipped in {other}: {verdict}")  # type: ignore[attr-defined]
        skipped.append(f"{other}: HWSKU name already taken by {first['source']['dir']} ({verdict})")  # type: ignore[index]
    return list(kept.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", help="sonic-buildimage checkout (work tree or bare git directory)")
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "src/xoff/data/skus"))
    args = parser.parse_args(argv)
    tree = Tree(args.checkout, args.rev)
    records, skipped = collect(tree)
    out = Path(args.out)
    for record in records:
        path = out / str(record["vendor"]) / f"{record['hwsku']}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(record), encoding="utf-8")
    print(f"{len(records)} SKUs written under {out} from {REPO}@{tree.commit}", file=sys.stderr)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
