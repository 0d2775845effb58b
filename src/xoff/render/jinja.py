"""The one Jinja2 environment: strict (an undefined name is an error), print-only templates."""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from xoff.render import json_text

# The templates sit at the top of the repository (templates/<platform>/); the package reaches them through the
# symlink src/xoff/data/templates, which the wheel replaces with a copy (pyproject's package-data).
TEMPLATES = "data/templates"


def _to_json(value: Any, indent: int = 4) -> str:
    return json_text.dumps(value, indent)  # json.dumps(value, indent=indent), faster


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("xoff", TEMPLATES),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # configuration text, not HTML
        auto_reload=False,  # the templates ship with the package: no stat() of the file on every include
    )
    env.filters["to_json"] = _to_json
    return env


def render_template(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)
