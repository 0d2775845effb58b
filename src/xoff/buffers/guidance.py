"""Vendors' published headroom guidance for NOSes that SONiC's tables do not speak for (EOS, Cumulus), read from
``xoff/data/skus/guidance/*.yaml`` and used by the plan (issue 15).

A guidance file names the NOS (``nos``, a platform name) and the ASICs (``asics``, or an ``asic_family`` prefix)
it is for, and how the plan uses it (``use``):

- ``headroom: nos_computed``: the NOS sizes the headroom itself (Cumulus: switchd, from each port's PFC profile
  ``cable-length``). xoff renders no threshold; the plan says whose the headroom is and shows the documented
  defaults it relies on (``show``), with xoff's own model beside them for comparison.
- ``headroom: per_port``: one number is the per-port ingress headroom (``number``; EOS on Trident: Habana's
  ``ingress headroom`` of the MMU queue profile). Where xoff's model has no numbers (SONiC has no table for the
  switch), the plan's headroom is that number; where it has, the plan keeps its own and shows the guidance beside
  it, saying whether they agree.

The plan's per-port source (``BufferProfile.source``, ``xoff plan --device D --format text``) names the file and
the numbers used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from xoff.buffers.result import Headroom

__all__ = ["Guidance", "guidance_for", "guided", "load_guidance"]

_DIR = Path(__file__).resolve().parents[1] / "data" / "skus" / "guidance"
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # C where PyYAML was built with it


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class GuidanceNumber(_Data):
    name: str = Field(min_length=1)
    value: int = Field(gt=0)
    unit: str = Field(min_length=1)
    where: str = Field(min_length=1, description="where on the page the number is")

    def cite(self) -> str:
        return f"{self.name} {self.value} {self.unit}"


class GuidanceUse(_Data):
    headroom: Literal["nos_computed", "per_port"]
    by: str | None = Field(None, description="nos_computed: who sizes it (switchd)")
    number: str | None = Field(None, description="per_port: the number that is the per-port headroom, in bytes")
    show: list[str] = Field(default_factory=list, description="the numbers the plan shows beside it")


class GuidanceSource(_Data):
    repo: str | None
    path: str | None
    commit: str | None = None


class Guidance(_Data):
    """One guidance file."""

    name: str = Field(min_length=1)
    platform: str = Field(min_length=1)
    asics: list[str]
    asic_family: str | None = Field(None, description="ASICs whose name starts with this (the page names a family)")
    nos: str | None = Field(None, description="the xoff platform it is for; None: informational only")
    summary: str = Field(min_length=1)
    url: str = Field(pattern=r"^https://")
    source: GuidanceSource
    numbers: list[GuidanceNumber] = Field(min_length=1)
    use: GuidanceUse | None = None

    def number(self, name: str) -> GuidanceNumber:
        found = next((n for n in self.numbers if n.name == name), None)
        if found is None:
            raise KeyError(f"guidance {self.name}: no number {name!r}")
        return found

    def applies(self, platform: str, asic: str) -> bool:
        on_asic = asic in self.asics or (self.asic_family is not None and asic.startswith(self.asic_family))
        return self.use is not None and self.nos == platform and on_asic

    def cite(self, names: Sequence[str]) -> str:
        """``cumulus-pfc-profile.yaml: port_buffer 25000 B, xoff_threshold 10000 B``."""
        return f"{self.name}.yaml: " + ", ".join(self.number(n).cite() for n in names)


def load_guidance(directory: Path = _DIR) -> tuple[Guidance, ...]:
    """Every guidance file of ``directory``, by name; a malformed one raises (the shipped ones are tested)."""
    out = []
    for path in sorted(directory.glob("*.yaml")):
        # every plan reads these files: PyYAML's pure-Python loader was half of a 10k plan's buffer planning
        out.append(Guidance.model_validate(yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)))
    return tuple(out)


@cache
def _shipped() -> tuple[Guidance, ...]:
    return load_guidance()


def guidance_for(platform: str, asic: str) -> tuple[Guidance, ...]:
    """The shipped guidance the plan uses for a switch of ``platform`` (its NOS) and ``asic`` (canonical name)."""
    return tuple(g for g in _shipped() if g.applies(platform, asic))


def guided(
    guides: Sequence[Guidance], model: Headroom | None, why_none: str, speed: int, cable: int
) -> Headroom | None:
    """The headroom the plan uses under ``guides``: xoff's ``model`` (None: it has none, ``why_none``) with the
    guidance in its source, or the guidance's per-port number. None when nothing gives numbers."""
    computed = [g for g in guides if g.use is not None and g.use.headroom == "nos_computed"]
    if computed:
        return _nos_computed(computed, model, cable)
    per_port = next((g for g in guides if g.use is not None and g.use.headroom == "per_port"), None)
    if per_port is None:
        return model
    return _per_port(per_port, model, why_none, speed, cable)


def _nos_computed(guides: list[Guidance], model: Headroom | None, cable: int) -> Headroom | None:
    if model is None:
        return None
    by = next((g.use.by for g in guides if g.use is not None and g.use.by), "the NOS")
    cites = "; ".join(g.cite(g.use.show) for g in guides if g.use is not None and g.use.show)
    text = (
        f"{by}'s: the NOS sizes it from the port's cable-length {cable} m, xoff renders no threshold (documented"
        f" defaults: {cites}); xoff's model, for comparison: {model.source}"
    )
    return replace(model, source=text)


def _per_port(guide: Guidance, model: Headroom | None, why_none: str, speed: int, cable: int) -> Headroom:
    assert guide.use is not None and guide.use.number is not None  # a per_port guidance names its number
    number = guide.number(guide.use.number)
    shown = [n for n in guide.use.show if n != number.name]
    said = f"guidance {guide.cite([number.name, *shown])} ({guide.url})"
    if model is None:
        # SONiC has no table for this switch: the guidance's number is the PG's headroom (no xon is given)
        why = why_none.split(" (rows that exist", 1)[0]
        return Headroom(0, number.value, number.value, None, f"{said}; xoff's model has none: {why}", speed, cable)
    if model.xoff == number.value:
        return replace(model, source=f"{model.source}; agrees with {said}")
    return replace(
        model,
        source=f"xoff's model: xoff {model.xoff} size {model.size} ({model.source}); the guidance differs: {said}",
    )
