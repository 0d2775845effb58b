"""``--shard K/N``: a deterministic split of a fabric's devices over N controllers, each taking part K.

Every controller computes the same split from the same intent (no coordination): by failure domain
(``--shard-by pod``: whole domains, largest first onto the shard with the fewest devices, ties to the lower
shard) or, without one, by a stable hash of the device name. Together the N parts hold every device once.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from xoff.desired.domains import DomainKind, domains, members
from xoff.desired.models import FabricState
from xoff.errors import InputError, Location, Problem

_SHARD = re.compile(r"^(\d+)/(\d+)$")
MAX_SHARDS = 4096  # far more controllers than any fabric has; a bound, so a typo cannot ask for billions of parts


@dataclass(frozen=True)
class Shard:
    index: int  # K, from 1
    count: int  # N
    by: DomainKind | None = None  # whole failure domains per shard; None: a hash of the name

    def __str__(self) -> str:
        return f"{self.index}/{self.count}" + (f" by {self.by}" if self.by else "")


def parse_shard(text: str | None, by: DomainKind | None = None) -> Shard | None:
    """``"2/4"`` -> Shard(2, 4); None: no sharding; anything else (or ``by`` without a shard) is a located input
    error."""
    if text is None:
        if by is not None:
            raise InputError([Problem(Location("--shard-by", 1, 1), by, "needs --shard K/N (allowed: with --shard)")])
        return None
    match = _SHARD.match(text.strip())
    if match is None or not 1 <= int(match[1]) <= int(match[2]) <= MAX_SHARDS:
        raise InputError(
            [
                Problem(
                    Location("--shard", 1, 1),
                    text,
                    f"expected K/N with 1 <= K <= N <= {MAX_SHARDS} (allowed: 1/4, 2/4)",
                )
            ]
        )
    return Shard(int(match[1]), int(match[2]), by)


def _hash(name: str, count: int) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") % count


def split(state: FabricState, names: Iterable[str], count: int, by: DomainKind | None) -> list[list[str]]:
    """The ``count`` parts of ``names`` (devices of ``state``), each in the order given."""
    ordered = list(names)
    if by is None:
        part_of = {name: _hash(name, count) for name in ordered}
    else:
        labels = domains(state, by)
        groups = members({name: labels.get(name, "-") for name in ordered})
        sizes = [0] * count
        part_of = {}
        for _, group in sorted(groups.items(), key=lambda kv: -len(kv[1])):  # stable: equal sizes keep label order
            part = min(range(count), key=lambda i: (sizes[i], i))
            sizes[part] += len(group)
            part_of.update(dict.fromkeys(group, part))
    parts: list[list[str]] = [[] for _ in range(count)]
    for name in ordered:
        parts[part_of[name]].append(name)
    return parts


def shard_names(state: FabricState, names: Iterable[str], shard: Shard) -> set[str]:
    """The devices of ``names`` that are shard K's. With ``by``, a fabric with no domain of that kind is an input
    error (every device would be part 1 on every controller, the other parts empty, and nothing would say so)."""
    names = list(names)
    if shard.by is not None and shard.count > 1:
        labels = domains(state, shard.by)
        if all(labels.get(name, "-") == "-" for name in names):
            raise InputError(
                [
                    Problem(
                        Location("--shard-by", 1, 1),
                        shard.by,
                        f"no device is in a {shard.by} domain, so {shard.count} shards by {shard.by} would put every"
                        f" device in shard 1 (allowed: a kind the intent sets, or no --shard-by to split by name)",
                    )
                ]
            )
    return set(split(state, names, shard.count, shard.by)[shard.index - 1])
