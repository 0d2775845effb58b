"""The running OpenSM's SA key and partition enforcement, read from the config it was started with.

OpenSM answers PKeyTableRecord queries only to a trusted requester: one whose SA MAD carries an SM_Key
equal to OpenSM's ``sa_key`` (osm_sa_pkey_record.c compares ``p_rcvd_mad->sm_key`` with
``opt.sa_key``; ``sm_key`` is the key of SM-to-SM authentication, not the one the SA checks). Both
default to 1 (``opensm --create-config``). The key is never taken from the intent: it is the SM host's
secret, read from the ``opensm.conf`` the running OpenSM was started with (``-F``/``--config``; without
one, /etc/opensm/opensm.conf), and it never reaches a capture, a snapshot, a log or a report:
:meth:`SaKey.mask` replaces every spelling of it.

``part_enforce`` (both, in, out, off; default both) says whether OpenSM programs the switch ports that face
CAs to enforce partitions; the deprecated ``no_partition_enforcement TRUE`` means off.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_CONFIG = "/etc/opensm/opensm.conf"  # opensm(8): used when -F is not given (Debian's OPENSM_CONFIG_DIR)
DEFAULT_SA_KEY = 1  # OpenSM's default sa_key (and sm_key)
DEFAULT_ENFORCEMENT = "both"
MASK = "********"
_MIN_MASKED = 6  # shorter spellings (a key below 0xfffff) are not masked: they would blot out LIDs and counts


class SaKeyError(ValueError):
    """opensm.conf holds an sa_key OpenSM itself would not read."""


def config_file(argv: list[str]) -> str:
    """The config file of an ``opensm`` command line (its ``-F FILE``/``--config FILE``), else OpenSM's default."""
    found = DEFAULT_CONFIG
    for i, arg in enumerate(argv):
        if arg in ("-F", "--config") and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith("--config="):
            found = arg.partition("=")[2]
        elif arg.startswith("-F") and len(arg) > 2:
            found = arg[2:]
    return found


def _settings(conf: str) -> dict[str, str]:
    """``key value`` lines of opensm.conf (comments and blank lines skipped); the last setting of a key wins."""
    out: dict[str, str] = {}
    for line in conf.splitlines():
        words = line.split("#", 1)[0].split(None, 1)
        if len(words) == 2:
            out[words[0]] = words[1].strip()
    return out


def parse_key(text: str) -> int:
    """A 64-bit key as OpenSM reads it (strtoull, base 0: 0x hex, leading 0 octal, else decimal)."""
    t = text.strip().lower()
    try:
        value = int(t, 16) if t.startswith("0x") else int(t, 8) if t.startswith("0") and len(t) > 1 else int(t)
    except ValueError:
        raise SaKeyError("sa_key is not a number (allowed: decimal, 0x hex or 0 octal, 64 bits)") from None
    if not 0 <= value < 1 << 64:
        raise SaKeyError("sa_key is not a 64-bit number")
    return value


@dataclass(frozen=True)
class SaKey:
    """The SA key to query with, where it came from, and how it was written (for masking)."""

    value: int
    origin: str  # says where, never what: "sa_key in /etc/opensm/opensm.conf", "OpenSM's default (...)"
    written: str = ""

    @property
    def argument(self) -> str:
        """The key as ``saquery --smkey`` takes it."""
        return f"0x{self.value:016x}"

    def spellings(self) -> list[str]:
        """Every way the key may be printed (any case): hex padded or not, with or without 0x, decimal,
        as written; long ones only, longest first."""
        forms = {f"{self.value:016x}", f"{self.value:x}", str(self.value), self.written.lower()}
        return sorted((f for f in forms if len(f) >= _MIN_MASKED), key=len, reverse=True)

    def mask(self, text: str) -> str:
        forms = self.spellings()
        if not forms:
            return text
        pattern = re.compile(r"(?:0x)?(?:" + "|".join(re.escape(f) for f in forms) + ")", re.IGNORECASE)
        return pattern.sub(MASK, text)


@dataclass(frozen=True)
class OpenSmConfig:
    sa_key: SaKey
    partition_enforcement: str  # both, in, out, off


def from_config(conf: str | None, path: str) -> OpenSmConfig:
    """The SA key and enforcement of the config text OpenSM runs with (None: unreadable, OpenSM's defaults)."""
    settings = _settings(conf or "")
    written = settings.get("sa_key")
    if conf is None:
        key = SaKey(DEFAULT_SA_KEY, f"OpenSM's default ({path} could not be read)")
    elif written is None:
        key = SaKey(DEFAULT_SA_KEY, f"OpenSM's default (no sa_key in {path})")
    else:
        try:
            key = SaKey(parse_key(written), f"sa_key in {path}", written)
        except SaKeyError as exc:
            raise SaKeyError(f"{path}: {exc}") from None
    enforce = settings.get("part_enforce", DEFAULT_ENFORCEMENT).lower()
    if settings.get("no_partition_enforcement", "FALSE").upper() == "TRUE":
        enforce = "off"
    return OpenSmConfig(key, enforce)


def _enforcement_option(argv: list[str]) -> str | None:
    """``-Z``/``--part_enforce`` or the deprecated ``-N``/``--no_part_enforce`` of OpenSM's command line
    (they override the config file)."""
    found = None
    for i, arg in enumerate(argv):
        if arg in ("-Z", "--part_enforce") and i + 1 < len(argv):
            found = argv[i + 1].lower()
        elif arg.startswith("--part_enforce="):
            found = arg.partition("=")[2].lower()
        elif arg in ("-N", "--no_part_enforce"):
            found = "off"
    return found


def read_config(read: Callable[[str], str | None], argv: list[str] | None) -> OpenSmConfig:
    """The running OpenSM's config: ``read(path)`` gives a file's text on the SM host (None: unreadable);
    ``argv`` is OpenSM's command line (None: unknown, OpenSM's default config file)."""
    path = config_file(argv or [])
    config = from_config(read(path), path)
    enforce = _enforcement_option(argv or []) or config.partition_enforcement
    if enforce not in ("both", "in", "out", "off"):
        enforce = DEFAULT_ENFORCEMENT  # not a value OpenSM takes: judged as its default, the stricter reading
    return OpenSmConfig(config.sa_key, enforce)
