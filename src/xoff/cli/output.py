"""What every command does at its edge: bad input as its located lines and exit 2, the console people read,
a report written to a file or to stdout.

rich is imported only when something is printed with it: ``xoff --help`` and ``--version`` load none of it
(``tests/api/test_cli_imports.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from xoff.errors import InputError
from xoff.exitcodes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

FILE_WIDTH = 160  # a text report written to a file: wide enough for the tables, fixed so files compare


def exit_bad_input(exc: InputError) -> NoReturn:
    """One line per problem on stderr (FILE:LINE:COL: path: what), exit 2: nothing ran."""
    for problem in exc.sorted():
        print(str(problem), file=sys.stderr)
    raise typer.Exit(ExitCode.BAD_INPUT) from None


def terminal() -> Console:
    """The console for people on stdout."""
    from rich.console import Console

    # pipes and CI logs get wide tables rather than 80-column ones with clipped names
    return Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)


def write_file(path: Path, text: str) -> None:
    """``text`` into ``path``, its directory made if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_report(text: str, output: Path | None, wrote: str = "") -> None:
    """``text`` to ``output`` (then ``wrote {output}{wrote}`` on stderr), or to stdout."""
    if output is None:
        sys.stdout.write(text)
        return
    write_file(output, text)
    print(f"wrote {output}{wrote}", file=sys.stderr)


def show_report(text: str | None, people: Callable[[], RenderableType], output: Path | None, wrote: str) -> None:
    """A report in a machine format (``text``) as :func:`write_report` writes it; ``None``: the text format,
    ``people()`` printed with rich to ``output`` or to the terminal."""
    if text is not None:
        write_report(text, output, wrote)
        return
    if output is None:
        terminal().print(people())
        return
    from rich.console import Console

    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("w", encoding="utf-8") as fh:
        Console(file=fh, width=FILE_WIDTH, soft_wrap=True).print(people())
