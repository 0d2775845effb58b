"""The one Jinja2 environment: strict (an undefined name is an error), print-only templates."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

# The templates sit at the top of the repository (templates/<platform>/); the package reaches them through the
# symlink src/xoff/data/templates, which the wheel replaces with a copy (pyproject's package-data).
TEMPLATES = "data/templates"


def _to_json(value: Any, indent: int = 4) -> str:
    return json.dumps(value, indent=indent, sort_keys=False)


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("xoff", TEMPLATES),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # configuration text, not HTML
    )
    env.filters["to_json"] = _to_json
    return env


def render_template(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)
