"""What a headroom model gives: the numbers of one lossless PG profile and where they came from, and the
error when a model has none. Its own module so the models (the formula in ``headroom``, the table in ``static``)
and the dispatch between them import it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass

from xoff.buffers.names import static_profile_name


class HeadroomUnavailable(ValueError):  # noqa: N818 - name fixed by the public API
    """No headroom can be produced for this ASIC, speed and cable under the chosen model."""


@dataclass(frozen=True)
class Headroom:
    """A lossless PG profile's headroom numbers, with where they came from."""

    xon: int
    xoff: int
    size: int
    xon_offset: int | None
    source: str
    speed_mbps: int
    cable_m: int
    dynamic_name: str | None = None  # the dynamic model's name (buffermgrdyn), else the static one
    dynamic_th: int | None = None  # the lookup row's threshold; None: the formula's (the policy gives it)

    @property
    def profile_name(self) -> str:
        """The name SONiC gives the profile: ``buffermgrdyn``'s in the dynamic model, else buffermgr's
        ``pg_lossless_<speed>_<cable>m_profile`` (§1.3)."""
        return self.dynamic_name or static_profile_name(self.speed_mbps, self.cable_m)
