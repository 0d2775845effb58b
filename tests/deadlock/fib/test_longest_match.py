"""``from_fib.LongestMatch`` (masked dict probes per prefix length) picks the entry the plain scan picks: of the
entries containing the address the longest prefix, of equal ones the first in the FIB; none when none contains it."""

from __future__ import annotations

import random
from collections.abc import Sequence
from ipaddress import IPv4Address, IPv4Network

from xoff.contracts.fib import FibEntry
from xoff.deadlock.from_fib import LongestMatch


def _scan(fib: Sequence[FibEntry], address: IPv4Address) -> FibEntry | None:
    best: FibEntry | None = None
    for entry in fib:
        if address in entry.prefix and (best is None or entry.prefix.prefixlen > best.prefix.prefixlen):
            best = entry
    return best


def _fib(rng: random.Random, size: int) -> list[FibEntry]:
    base = int(IPv4Address("198.18.0.0"))
    out = []
    for i in range(size):
        length = rng.choice([0, 8, 15, 16, 22, 24, 24, 31, 32, 32])
        network = IPv4Network(((base + rng.randrange(1 << 17)) & ~((1 << (32 - length)) - 1), length))
        out.append(FibEntry(network, rng.choice(["bgp", "connected", "static"]), (f"Ethernet{i}",)))
    return out


def test_the_same_entry_as_a_scan() -> None:
    rng = random.Random(19)
    checked = 0
    for _ in range(60):
        fib = _fib(rng, rng.randrange(1, 80))
        fib += [FibEntry(e.prefix, e.protocol, ("dup",)) for e in rng.sample(fib, min(5, len(fib)))]  # equal prefixes
        match = LongestMatch(fib)
        inside = [int(e.prefix.network_address) + rng.randrange(e.prefix.num_addresses) for e in fib]
        for value in inside + [rng.randrange(1 << 32) for _ in range(40)]:
            address = IPv4Address(value)
            want = _scan(fib, address)
            assert match(address) is want, address
            checked += want is not None
    assert checked > 1000  # most probes hit an entry: the test is about picking, not about missing


def test_no_entry_and_the_default_route() -> None:
    fib = [FibEntry(IPv4Network("198.18.0.0/24"), "bgp", ("a",))]
    assert LongestMatch(fib)(IPv4Address("198.19.0.1")) is None
    assert LongestMatch([])(IPv4Address("198.19.0.1")) is None
    default = FibEntry(IPv4Network("0.0.0.0/0"), "static", ("b",))
    assert LongestMatch([*fib, default])(IPv4Address("198.19.0.1")) is default
    assert LongestMatch([default, *fib])(IPv4Address("198.18.0.9")) is fib[0]
