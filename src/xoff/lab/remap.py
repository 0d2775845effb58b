"""Lab-safe addresses: the check, and ``--remap`` into 198.18.0.0/15.

The lab puts the intent's addresses on real interfaces and the management gateway on the
controller itself, so only ranges no real network should use are accepted: 198.18.0.0/15
(RFC 2544, benchmarking) and 2001:db8::/32 (RFC 3849). Not 192.0.2.0/24 (RFC 5737): documentation
addresses do show up on real machines (this project's VMs have their uplink in it), and a lab
management prefix there would take the machine's own route; the examples live in 198.18.0.0/15.

``remap`` moves every IPv4 address and prefix of a FabricState (and the management prefix and
gateway, which the intent has and FabricState does not) into 198.18.0.0/15, consistently: the
intent's address space is cut into blocks (the network pools, the management prefix, and the
network of every address not inside one); a block already inside 198.18.0.0/15 and free on this
machine stays, every other one is moved whole to a free aligned block of the same size, and every
address keeps its offset and prefix length. So /31 peers stay peers, a
loopback pool stays the pool its /32s come from, and prefix lists still match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from ipaddress import (
    IPv4Address,
    IPv4Interface,
    IPv4Network,
    IPv6Network,
    collapse_addresses,
    ip_interface,
)
from typing import Any

from xoff.desired.addressmap import V4 as _V4
from xoff.desired.addressmap import convert, mover
from xoff.desired.models import FabricState

LAB_SAFE_V4 = (IPv4Network("198.18.0.0/15"),)
LAB_SAFE_V6 = (IPv6Network("2001:db8::/32"),)
REMAP_INTO = IPv4Network("198.18.0.0/15")
LAB_SAFE_TEXT = ", ".join(str(n) for n in (*LAB_SAFE_V4, *LAB_SAFE_V6))
_V6 = re.compile(r"^[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*(/\d{1,3})?$")


@dataclass(frozen=True)
class Management:
    """The management network as the intent has it (FabricState has only device addresses)."""

    prefix: IPv4Network
    gateway: IPv4Address | None = None


@dataclass(frozen=True)
class Remapped:
    fabric: FabricState
    management: Management
    blocks: list[tuple[IPv4Network, IPv4Network]]  # source block -> lab block

    def summary(self) -> list[str]:
        return [f"{src} -> {dst}" for src, dst in self.blocks]


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def addresses(fabric: FabricState, management: Management) -> list[str]:
    """Every IP address or prefix written in the fabric (values only; map keys are names)."""
    found = [
        s for s in _strings(fabric.model_dump(mode="json")) if _V4.match(s) or (":" in s and _V6.match(s) and _ip(s))
    ]
    found.append(str(management.prefix))
    if management.gateway is not None:
        found.append(str(management.gateway))
    return found


def _ip(text: str) -> bool:
    """An address or prefix, not a look-alike (a route target ``50001:50001`` has colons too)."""
    try:
        ip_interface(text)
    except ValueError:
        return False
    return True


def unsafe(fabric: FabricState, management: Management) -> list[str]:
    """Addresses outside the lab-safe ranges, in order of appearance, each once."""
    out: dict[str, None] = {}
    for text in addresses(fabric, management):
        try:
            iface = ip_interface(text)
        except ValueError:
            continue
        safe = LAB_SAFE_V4 if iface.version == 4 else LAB_SAFE_V6
        if not any(iface.network.subnet_of(n) for n in safe if n.version == iface.version):  # type: ignore[arg-type]
            out[text] = None
    return list(out)


def _blocks(fabric: FabricState, management: Management) -> list[IPv4Network]:
    nets: list[IPv4Network] = [management.prefix]
    for plan in fabric.networks.values():
        nets += [IPv4Network(p) for p in (plan.p2p_prefix, plan.loopback_prefix) if p]
    for text in addresses(fabric, management):
        if _V4.match(text):
            nets.append(IPv4Interface(text).network)
        elif ":" in text:
            raise ValueError(f"{text}: IPv6 outside 2001:db8::/32 cannot be remapped (only IPv4 is)")
    return sorted(collapse_addresses(nets), key=lambda n: (n.prefixlen, n.network_address))


def _allocate(blocks: list[IPv4Network], avoid: list[IPv4Network]) -> list[tuple[IPv4Network, IPv4Network]]:
    """Blocks already inside 198.18.0.0/15 and clear of ``avoid`` stay where they are; every other
    block, largest first, goes to the lowest aligned place in 198.18.0.0/15 clear of ``avoid`` and of
    the blocks placed before it."""
    taken = [n for n in avoid if n.overlaps(REMAP_INTO) and n.prefixlen > 0]
    out: list[tuple[IPv4Network, IPv4Network]] = []
    moving: list[IPv4Network] = []
    for block in blocks:
        if block.subnet_of(REMAP_INTO) and not any(block.overlaps(t) for t in taken):
            out.append((block, block))
        else:
            moving.append(block)
    taken += [dst for _, dst in out]
    for block in moving:
        if block.prefixlen < REMAP_INTO.prefixlen:
            raise ValueError(f"{block}: larger than {REMAP_INTO}, cannot be remapped")
        for candidate in REMAP_INTO.subnets(new_prefix=block.prefixlen):
            if not any(candidate.overlaps(t) for t in taken):
                out.append((block, candidate))
                taken.append(candidate)
                break
        else:
            raise ValueError(f"no room for {block} in {REMAP_INTO} (the intent needs more address space than it has)")
    return out


def remap(fabric: FabricState, management: Management, avoid: Iterable[IPv4Network] = ()) -> Remapped:
    """``fabric`` and ``management`` with every IPv4 address moved into 198.18.0.0/15 (see module doc);
    ``avoid``: networks the lab blocks must not overlap (those in use on this machine)."""
    blocks = _allocate(_blocks(fabric, management), list(avoid))
    move = mover(blocks, strict=True)  # _blocks covers every address
    data = convert(fabric.model_dump(mode="json"), move)
    mgmt = Management(
        prefix=IPv4Network(convert(str(management.prefix), move)),
        gateway=None if management.gateway is None else move(management.gateway),
    )
    return Remapped(FabricState.model_validate(data), mgmt, sorted(blocks))
