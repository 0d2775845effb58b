"""Text-only command output -> rows, through TextFSM templates kept in ntc-templates' layout.

Each platform that needs them has ``platforms/<nos>/textfsm/``: an ``index`` (``Template, Hostname,
Platform, Command``, commands in clitable's ``sh[[ow]]`` completion form) and one
``<platform>_<command>.textfsm`` per command. Templates in this project end with an ``Error`` rule
for any line they do not know, so output in an unexpected format fails loudly instead of parsing to
fewer rows (the silent fallback netmiko's ``use_textfsm`` has).
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path
from typing import Any

import textfsm  # type: ignore[import-untyped]
from textfsm import clitable
from textfsm.parser import Error as TextFSMError  # type: ignore[import-untyped]

_LOCK = threading.Lock()  # a compiled template keeps its parse state on the instance: one parse at a time


class TextParseError(ValueError):
    """Output a template could not read (the message is one line)."""


@cache
def _index(template_dir: str) -> Any:
    return clitable.CliTable("index", template_dir)


@cache
def _template(template_dir: str, platform: str, command: str) -> Any:
    """The compiled template the index gives ``command`` on ``platform``, compiled once per process: clitable's
    ``ParseCmd`` compiles it again at every parse and deep-copies its result table (a tenth of a 64-device
    collect's CPU). One template per command (clitable would merge several by their Key values)."""
    table = _index(template_dir)
    row = table.index.GetRowMatch({"Command": command, "Platform": platform})
    if not row:
        raise TextParseError(f"no template for {command!r} on {platform}: no index row matches")
    names = [n.strip() for n in str(table.index.index[row]["Template"]).split(":") if n.strip()]
    if len(names) != 1:
        raise TextParseError(f"no template for {command!r} on {platform}: the index names {len(names)}, not one")
    with (Path(template_dir) / names[0]).open(encoding="utf-8") as f:
        return textfsm.TextFSM(f)


def _cell(value: Any) -> str | list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else str(value)  # as clitable's rows hold it


def parse_text(template_dir: Path, platform: str, command: str, text: str) -> list[dict[str, str | list[str]]]:
    """The rows ``command``'s template reads from ``text`` (header names lower-cased)."""
    try:
        with _LOCK:
            fsm = _template(str(template_dir), platform, command)
            fsm.Reset()  # the previous parse's state, and a record it left half-filled by an Error rule
            header = [str(h).lower() for h in fsm.header]
            rows = [dict(zip(header, [_cell(v) for v in record], strict=True)) for record in fsm.ParseText(text)]
    except TextFSMError as exc:  # an Error rule fired, or the template itself is broken
        message = " ".join(str(exc).split())
        raise TextParseError(f"{command!r}: {message}") from None
    return rows
