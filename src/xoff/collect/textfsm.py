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

from textfsm import clitable  # type: ignore[import-untyped]
from textfsm.parser import Error as TextFSMError  # type: ignore[import-untyped]

_LOCK = threading.Lock()  # CliTable keeps parse state on the instance: one parse at a time per table


class TextParseError(ValueError):
    """Output a template could not read (the message is one line)."""


@cache
def _table(template_dir: str) -> Any:
    return clitable.CliTable("index", template_dir)


def parse_text(template_dir: Path, platform: str, command: str, text: str) -> list[dict[str, str | list[str]]]:
    """The rows ``command``'s template reads from ``text`` (header names lower-cased)."""
    table = _table(str(template_dir))
    try:
        with _LOCK:
            table.ParseCmd(text, attributes={"Command": command, "Platform": platform})
            header = [str(h).lower() for h in table.header]
            rows = [dict(zip(header, list(row), strict=True)) for row in table]
    except clitable.CliTableError as exc:
        raise TextParseError(f"no template for {command!r} on {platform}: {exc}") from None
    except TextFSMError as exc:  # an Error rule fired, or the template itself is broken
        message = " ".join(str(exc).split())
        raise TextParseError(f"{command!r}: {message}") from None
    return rows
