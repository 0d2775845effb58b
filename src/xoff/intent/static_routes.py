"""Static routes of a switch: which cabled link a route's ``via`` names, once the links are addressed.

``via`` may be a peer device's name (every link to it: ECMP over parallel links), the peer's
address on a shared link, or a local port name. Used by the load-time check (a bad ``via`` is bad
input) and by the desired-state builder (the next hops it renders).
"""

from __future__ import annotations

from collections.abc import Iterable
from ipaddress import IPv4Address

from xoff.intent.resolved import Link

NextHop = tuple[str, str]  # (next-hop address, local port)


def cabled_ports(switch: str, links: Iterable[Link]) -> list[tuple[str, str, str]]:
    """(local port, peer device, peer address) of every addressed link of ``switch``, in link order."""
    out = []
    for link in links:
        for end in (link.a, link.b):
            if end[0] != switch:
                continue
            texts = link.address_texts(end)
            if texts is not None:
                peer = link.b if end == link.a else link.a
                out.append((end[1], peer[0], texts[1]))
    return out


def next_hops(switch: str, via: str, ports: list[tuple[str, str, str]]) -> list[NextHop] | str:
    """The next hops ``via`` names at ``switch`` (``ports`` from :func:`cabled_ports`), or what is wrong."""
    try:
        addr = str(IPv4Address(via))
    except ValueError:
        addr = None
    if addr is not None:
        found = [(a, port) for port, _, a in ports if a == addr]
    else:
        found = [(a, port) for port, peer, a in ports if via in (port, peer)]
    if found:
        return found
    if not ports:
        return f"next hop {via!r}: {switch} has no cabled, addressed link (allowed: a route via a cabled link)"
    if addr is not None:
        sample = ", ".join(a for _, _, a in ports[:3])
        return f"next hop {via!r} is not a peer's address on a link of {switch} (allowed: e.g. {sample})"
    peers = ", ".join(sorted({peer for _, peer, _ in ports})[:3])
    return (
        f"next hop {via!r} is not a cabled peer or port of {switch}"
        f" (allowed: a peer such as {peers}, a port such as {ports[0][0]}, or a peer's address)"
    )
