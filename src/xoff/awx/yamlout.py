"""YAML as ansible-lint's yaml rule wants it: a document start, sequences indented under their key."""

from __future__ import annotations

from typing import Any

import yaml


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:  # noqa: ARG002
        super().increase_indent(flow, False)  # "key:\n  - item", never "key:\n- item"


def document(data: Any, header: str = "") -> str:
    """``---``, the comment ``header`` (its own lines, each starting with ``#``), then ``data``."""
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=200, allow_unicode=True)
    return "---\n" + header + body.replace(": null\n", ":\n")
