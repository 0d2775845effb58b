"""The base for every intent model: strict (unknown keys rejected) and immutable."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class IntentModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=False)
