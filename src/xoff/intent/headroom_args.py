"""Parse the headroom calculator's command-line values with the intent's own domain types."""

from __future__ import annotations

from pydantic import TypeAdapter, ValidationError

from xoff.intent.types import CableMetres, SpeedMbps

_SPEED: TypeAdapter[int] = TypeAdapter(SpeedMbps)
_CABLE: TypeAdapter[int] = TypeAdapter(CableMetres)


def parse_headroom_args(speed: str, cable: str) -> tuple[int, int]:
    """``("400G", "40m")`` -> ``(400000, 40)``; ValueError with the allowed values otherwise."""
    out = []
    for name, adapter, raw in (("--speed", _SPEED, speed), ("--cable", _CABLE, cable.strip())):
        value: object = int(raw) if raw.isdigit() else raw
        try:
            out.append(adapter.validate_python(value))
        except ValidationError as exc:
            raise ValueError(f"{name}: {exc.errors()[0]['msg']}") from None
    return out[0], out[1]
