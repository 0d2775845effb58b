"""Shared context of one resolution pass: the document, where things were written, and problems."""

from __future__ import annotations

from dataclasses import dataclass, field

from xoff.errors import Location, Problem
from xoff.intent.damage import Damage
from xoff.intent.document import IntentDocument
from xoff.intent.yamlsource import Path_, SourceMap, dotted

MAX_INTENT_NAMES = 1_000_000  # device and port names all brace patterns of one intent stand for together


@dataclass
class Context:
    doc: IntentDocument
    smap: SourceMap
    problems: list[Problem] = field(default_factory=list)
    names_left: int = field(default_factory=lambda: MAX_INTENT_NAMES)  # names patterns may still stand for
    damage: Damage = field(default_factory=Damage)  # what schema problems took out; paths point into what was kept

    def at(self, path: Path_) -> Location | None:
        return self.smap.value(self.damage.origin(path))

    def report(self, path: Path_, message: str, *, key: bool = False) -> None:
        path = self.damage.origin(path)
        where = self.smap.key(path) if key else self.smap.value(path)
        self.problems.append(Problem(where, dotted(path), message))
