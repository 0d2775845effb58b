"""A question a SONiC command asks before it acts (click's ``confirm``): a reply that waits for y/N."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xoff.lab.emulators.base import Reply


@dataclass
class Confirm(Reply):
    """click.confirm: ``<message> [y/N]: ``; ``then`` runs on yes, anything else aborts.

    ``before`` is printed ahead of the question (reload's lock line), ``on_abort`` after a no."""

    message: str = ""
    then: Callable[[], Reply] | None = None
    before: str = ""
    on_abort: str = ""

    def __init__(self, message: str, then: Callable[[], Reply], before: str = "", on_abort: str = "") -> None:
        super().__init__("", 0)
        self.message = message
        self.then = then
        self.before = before
        self.on_abort = on_abort

    @property
    def prompt(self) -> str:
        return f"{self.message} [y/N]: "
