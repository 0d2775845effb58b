"""What a command returns to the shell: its output and exit status, or a question first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Result:
    out: str = ""  # text with "\n" line ends; the shell converts them for a terminal
    status: int = 0


@dataclass
class Confirm(Result):
    """click.confirm: ``<message> [y/N]: ``; ``then`` runs on yes, anything else aborts.

    ``before`` is printed ahead of the question (reload's lock line), ``on_abort`` after a no."""

    message: str = ""
    then: Callable[[], Result] | None = None
    before: str = ""
    on_abort: str = ""

    def __init__(self, message: str, then: Callable[[], Result], before: str = "", on_abort: str = "") -> None:
        super().__init__("", 0)
        self.message = message
        self.then = then
        self.before = before
        self.on_abort = on_abort

    @property
    def prompt(self) -> str:
        return f"{self.message} [y/N]: "
