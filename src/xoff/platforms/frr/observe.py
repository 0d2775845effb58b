"""FRR's running state: ``show bgp summary json`` -> BGP sessions, ``show running-config`` -> the
``router bgp`` values FabricState holds (ASN, router id, maximum-paths, originated networks)."""

from __future__ import annotations

import json
import re
from typing import Any, TypedDict

from xoff.contracts.observed import BgpSession

# Debian's FRR is built with MULTIPATH_NUM 64; FRR prints ``maximum-paths`` only when it differs
FRR_DEFAULT_MAX_PATHS = 64


class FrrParseError(ValueError):
    pass


class FrrBgp(TypedDict):
    asn: int
    router_id: str | None
    max_paths: int
    networks: list[str]


def asn(value: Any) -> int:
    """An AS number as FRR prints it: a number, or with ``bgp as-notation dot|dot+`` (FRR 9.0 and later,
    lib/asn.c ``asn_asn2json``) the string ``"<high>.<low>"`` (``"1.10"`` is 65546)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not an AS number")
    if isinstance(value, int):
        return value
    high, dot, low = str(value).partition(".")
    return int(high) * 65536 + int(low) if dot else int(high)


def parse_bgp_summary(text: str) -> list[BgpSession]:
    """IPv4 unicast peers of ``show bgp summary json`` (``{}`` when BGP is not configured)."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FrrParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise FrrParseError("expected a JSON object")
    af = data.get("ipv4Unicast")
    if af is None:
        return []
    peers = af.get("peers") if isinstance(af, dict) else None
    if not isinstance(peers, dict):
        raise FrrParseError("ipv4Unicast.peers: missing")
    sessions = []
    for address, peer in peers.items():
        try:
            state = str(peer["state"])
            sessions.append(
                BgpSession(
                    address=address,
                    remote_asn=asn(peer["remoteAs"]),
                    state=state,
                    prefixes_received=int(peer["pfxRcd"]) if state == "Established" and "pfxRcd" in peer else None,
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise FrrParseError(f"ipv4Unicast.peers.{address}: {exc!r} missing or malformed") from None
    return sorted(sessions, key=lambda s: tuple(int(p) for p in s.address.split(".")) if "." in s.address else ())


_ROUTER = re.compile(r"^router bgp (\d+)\s*$")
_ROUTER_ID = re.compile(r"^ bgp router-id (\S+)\s*$")
_MAX_PATHS = re.compile(r"^  maximum-paths (\d+)\s*$")
_NETWORK = re.compile(r"^  network (\S+)\s*$")


def parse_router_bgp(running: str) -> FrrBgp | None:
    """The default VRF's ``router bgp`` block of FRR's running config (None: there is none)."""
    found: FrrBgp | None = None
    inside = False
    for line in running.splitlines():
        if line.startswith("router bgp "):
            match = _ROUTER.match(line)
            if match is None:  # ``router bgp N vrf X``: other VRFs are not modelled
                inside = False
                continue
            if found is not None:
                raise FrrParseError("two 'router bgp' blocks in the default VRF")
            found = FrrBgp(asn=int(match[1]), router_id=None, max_paths=FRR_DEFAULT_MAX_PATHS, networks=[])
            inside = True
        elif inside and found is not None:
            if line in ("exit", "!") or (line and not line.startswith(" ")):
                inside = False
            elif m := _ROUTER_ID.match(line):
                found["router_id"] = m[1]
            elif m := _MAX_PATHS.match(line):
                found["max_paths"] = int(m[1])
            elif m := _NETWORK.match(line):
                found["networks"].append(m[1])
    return found
