"""Named domain types for intent fields.

Each type validates and normalises once (``"400G"`` -> 400000 Mb/s, ``"40m"`` -> 40), with an
error message that says what is allowed, so downstream code only ever sees canonical values.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

# Ethernet speeds a switch or NIC port can run at, in Mb/s.
SPEEDS_MBPS = (100, 1000, 10000, 25000, 40000, 50000, 100000, 200000, 400000, 800000, 1600000)
_SPEED_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*([MGT])(?:b(?:ps|/s)?)?$", re.IGNORECASE)
_UNITS = {"M": 1, "G": 1000, "T": 1000000}


def speed_label(mbps: int) -> str:
    """400000 -> "400G", 100 -> "100M", 1600000 -> "1.6T"."""
    if mbps >= 1000000 and mbps % 100000 == 0:
        return f"{mbps / 1000000:g}T"
    return f"{mbps // 1000}G" if mbps >= 1000 else f"{mbps}M"


def _strict_int(value: Any, what: str, allowed: str | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        hint = f" (allowed: {allowed})" if allowed else ""
        raise PydanticCustomError(
            "not_int",
            "expected an integer {what}, got {got}{hint}",
            {"what": what, "got": describe(value), "hint": hint},
        )
    return value


def describe(value: Any) -> str:
    """A value as an error message says it: a string quoted, YAML's true/false, nothing, a mapping, a list."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return str(value)


def in_range(lo: int, hi: int, what: str) -> BeforeValidator:
    """A validator bounding an integer to [lo, hi], with a message naming the range."""

    def check(value: Any) -> int:
        v = _strict_int(value, what, f"{lo}..{hi}")
        if not lo <= v <= hi:
            raise PydanticCustomError(
                "out_of_range",
                "{value} is out of range (allowed: {lo}..{hi})",
                {"value": v, "lo": lo, "hi": hi},
            )
        return v

    return BeforeValidator(check)


def schema_range(lo: int, hi: int) -> WithJsonSchema:
    return WithJsonSchema({"type": "integer", "minimum": lo, "maximum": hi})


Priority = Annotated[int, in_range(0, 7, "priority"), schema_range(0, 7)]
Dscp = Annotated[int, in_range(0, 63, "DSCP"), schema_range(0, 63)]
# an L3 VNI xoff renders: 24 bits in VXLAN (RFC 7348), but the RD (router-id:VNI, RFC 4364 §4.2 type 1) and RT
# (VNI:VNI) it derives carry it in 16 bits
L3Vni = Annotated[int, in_range(1, 65535, "L3 VNI"), schema_range(1, 65535)]
TrafficClass = Annotated[int, in_range(0, 7, "traffic class"), schema_range(0, 7)]
QueueId = Annotated[int, in_range(0, 7, "queue"), schema_range(0, 7)]
Percent = Annotated[int, in_range(0, 100, "percentage"), schema_range(0, 100)]
OverSubscribeRatio = Annotated[int, in_range(1, 65535, "over-subscribe ratio"), schema_range(1, 65535)]
GearboxDelayNs = Annotated[int, in_range(0, 1000000, "gearbox delay in ns"), schema_range(0, 1000000)]
SwitchMtu = Annotated[int, in_range(1500, 9216, "MTU"), schema_range(1500, 9216)]
HostMtu = Annotated[int, in_range(1280, 9216, "MTU"), schema_range(1280, 9216)]
Milliseconds = Annotated[int, in_range(1, 600000, "milliseconds"), schema_range(1, 600000)]
Asn = Annotated[int, in_range(1, 4294967294, "ASN"), schema_range(1, 4294967294)]
Weight = Annotated[int, in_range(1, 100, "weight"), schema_range(1, 100)]
Count = Annotated[int, in_range(1, 100000, "count"), schema_range(1, 100000)]
Index = Annotated[int, in_range(0, 100000, "index"), schema_range(0, 100000)]
PKey = Annotated[int, in_range(1, 0x7FFF, "PKey"), schema_range(1, 0x7FFF)]
ServiceLevel = Annotated[int, in_range(0, 15, "service level"), schema_range(0, 15)]
VirtualLane = Annotated[int, in_range(0, 14, "virtual lane"), schema_range(0, 14)]
LosslessLimit = Annotated[int, in_range(1, 8, "lossless class limit"), schema_range(1, 8)]
PollIntervalMs = Annotated[int, in_range(100, 1000, "poll interval in ms"), schema_range(100, 1000)]
DetectionMs = Annotated[int, in_range(100, 5000, "detection time in ms"), schema_range(100, 5000)]
RestorationMs = Annotated[int, in_range(100, 60000, "restoration time in ms"), schema_range(100, 60000)]
DynamicTh = Annotated[int, in_range(-8, 7, "dynamic threshold exponent"), schema_range(-8, 7)]
GpuCount = Annotated[int, in_range(0, 16, "GPU count"), schema_range(0, 16)]

_BYTES_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB)?$", re.IGNORECASE)
_BYTE_UNITS = {"b": 1, "kb": 1000, "kib": 1024, "mb": 1000000, "mib": 1048576}


def _bytes(value: Any) -> int:
    if isinstance(value, str):
        m = _BYTES_RE.match(value.strip())
        if not m:
            raise PydanticCustomError(
                "bad_bytes",
                "{got} is not a byte count (allowed: an integer, or a number with B, KB, KiB, MB, MiB)",
                {"got": repr(value)},
            )
        value = int(float(m.group(1)) * _BYTE_UNITS[(m.group(2) or "b").lower()])
    v = _strict_int(value, "byte count", "an integer, or a number with B, KB, KiB, MB, MiB")
    if v < 0 or v > 1 << 40:
        raise PydanticCustomError(
            "out_of_range", "{value} is out of range (allowed: 0..{hi} bytes)", {"value": v, "hi": 1 << 40}
        )
    return v


Bytes = Annotated[
    int,
    BeforeValidator(_bytes),
    WithJsonSchema({"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": _BYTES_RE.pattern}]}),
]


def _speed(value: Any) -> int:
    allowed = ", ".join(speed_label(s) for s in SPEEDS_MBPS)
    if isinstance(value, str):
        m = _SPEED_RE.match(value.strip())
        if not m:
            raise PydanticCustomError(
                "bad_speed",
                "{got} is not a port speed (allowed: {allowed})",
                {"got": repr(value), "allowed": allowed},
            )
        value = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    v = _strict_int(value, "speed in Mb/s")
    if v not in SPEEDS_MBPS:
        raise PydanticCustomError(
            "bad_speed",
            "{got} is not a port speed (allowed: {allowed})",
            {"got": speed_label(v), "allowed": allowed},
        )
    return v


SpeedMbps = Annotated[
    int,
    BeforeValidator(_speed),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "enum": list(SPEEDS_MBPS)},
                {"type": "string", "pattern": _SPEED_RE.pattern},
            ]
        }
    ),
]


def _metres(value: Any) -> int:
    if isinstance(value, str) and value.strip().lower().endswith("m") and value.strip()[:-1].strip().isdigit():
        value = int(value.strip()[:-1])
    v = _strict_int(value, "length in metres", "0..10000, or a length like 40m")
    if not 0 <= v <= 10000:
        raise PydanticCustomError("out_of_range", "{value} is out of range (allowed: 0..10000 metres)", {"value": v})
    return v


CableMetres = Annotated[
    int,
    BeforeValidator(_metres),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": 10000},
                {"type": "string", "pattern": "^[0-9]+m$"},
            ]
        }
    ),
]

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")


def _name(value: Any) -> str:
    if not isinstance(value, str) or not _NAME_RE.match(value):
        raise PydanticCustomError(
            "bad_name",
            "{got} is not a valid name (allowed: letters, digits, '.', '_', '-', starting with a letter or digit, "
            "at most 63 characters)",
            {"got": describe(value)},
        )
    return value


Name = Annotated[str, BeforeValidator(_name), WithJsonSchema({"type": "string", "pattern": _NAME_RE.pattern})]

_IFNAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_./:-]{0,31}$")


def _ifname(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # InfiniBand switch ports are numbers
    if not isinstance(value, str) or not _IFNAME_RE.match(value):
        raise PydanticCustomError(
            "bad_interface",
            "{got} is not a valid interface name (allowed: letters, digits, '/', '.', ':', '_', '-', at most 32 characters)",
            {"got": describe(value)},
        )
    return value


InterfaceName = Annotated[
    str, BeforeValidator(_ifname), WithJsonSchema({"type": "string", "pattern": _IFNAME_RE.pattern})
]

__all__ = [
    "SPEEDS_MBPS",
    "Asn",
    "Bytes",
    "CableMetres",
    "Count",
    "DetectionMs",
    "Dscp",
    "DynamicTh",
    "GearboxDelayNs",
    "GpuCount",
    "HostMtu",
    "Index",
    "InterfaceName",
    "LosslessLimit",
    "Milliseconds",
    "Name",
    "OverSubscribeRatio",
    "PKey",
    "Percent",
    "PollIntervalMs",
    "Priority",
    "QueueId",
    "RestorationMs",
    "ServiceLevel",
    "SpeedMbps",
    "SwitchMtu",
    "TrafficClass",
    "VirtualLane",
    "Weight",
    "in_range",
    "schema_range",
    "speed_label",
]
