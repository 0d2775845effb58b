"""Lossless profile names as SONiC's buffer managers make them.

Static model (``buffermgr.cpp``): ``pg_lossless_<speed>_<cable>_profile``. Dynamic model
(``buffermgrdyn.cpp`` ``getDynamicProfileName``, sonic-swss e6b0c5b5):
``pg_lossless_<speed>_<cable>[_mtu<port mtu>][_th<dynamic_th>][_<gearbox model>][_8lane]_profile``:

- ``_mtu<N>`` when the port MTU is not ``DEFAULT_MTU_STR`` (9100);
- ``_th<N>`` when the PG's threshold is not ``DEFAULT_LOSSLESS_BUFFER_PARAMETER.default_dynamic_th``;
- ``_8lane`` on Mellanox for 8-lane ports of SN4xxx switches at any speed but 400G and of SN5xxx
  switches at any speed but 800G (those speeds always have 8 lanes there, so they share one name).
  The switch model number is the four digits after ``sn`` in the platform name; xoff maps it from the
  ASIC: SN4xxx are Spectrum-3, SN5xxx are Spectrum-4 and Spectrum-5 (SN5400, SN5600, SN5640).
"""

from __future__ import annotations

__all__ = ["DEFAULT_PORT_MTU", "always_eight_lanes", "dynamic_profile_name", "static_profile_name"]

DEFAULT_PORT_MTU = 9100  # buffermgrdyn.h DEFAULT_MTU_STR

# Model-number series (first digit) per ASIC, and the speed whose ports always have 8 lanes there.
_EIGHT_LANE_SERIES: dict[str, int] = {"spectrum3": 400000, "spectrum4": 800000, "spectrum5": 800000}


def always_eight_lanes(asic: str, speed_mbps: int) -> bool:
    """True where every port at this speed has 8 lanes, as ``buffermgrdyn`` states it: 400G on SN4xxx
    (Spectrum-3), 800G on SN5xxx (Spectrum-4/-5). Elsewhere the lane count is the port's, unknown here."""
    return _EIGHT_LANE_SERIES.get(asic) == speed_mbps


def static_profile_name(speed_mbps: int, cable_m: int) -> str:
    """``pg_lossless_<speed>_<cable>m_profile`` (buffermgr.cpp, the static model)."""
    return f"pg_lossless_{speed_mbps}_{cable_m}m_profile"


def dynamic_profile_name(
    asic: str,
    speed_mbps: int,
    cable_m: int,
    *,
    port_mtu: int = DEFAULT_PORT_MTU,
    eight_lanes: bool = False,
    threshold: int | None = None,
    default_threshold: int | None = None,
    gearbox_model: str = "",
) -> str:
    """The profile name ``buffermgrdyn`` gives a port's lossless PGs (see the module docstring).

    ``asic`` is xoff's canonical ASIC name; ``threshold`` None means the default threshold.
    """
    name = f"pg_lossless_{speed_mbps}_{cable_m}m"
    if port_mtu != DEFAULT_PORT_MTU:
        name += f"_mtu{port_mtu}"
    if threshold is not None and threshold != default_threshold:
        name += f"_th{threshold}"
    if gearbox_model:
        name += f"_{gearbox_model}"
    always_eight = _EIGHT_LANE_SERIES.get(asic)
    if eight_lanes and always_eight is not None and speed_mbps != always_eight:
        name += "_8lane"
    return name + "_profile"
