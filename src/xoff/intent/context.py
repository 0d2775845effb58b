"""Shared context of one resolution pass: the document, where things were written, and problems."""

from __future__ import annotations

from dataclasses import dataclass, field

from xoff.errors import Location, Problem
from xoff.intent.document import IntentDocument
from xoff.intent.yamlsource import Path_, SourceMap, dotted


@dataclass
class Context:
    doc: IntentDocument
    smap: SourceMap
    problems: list[Problem] = field(default_factory=list)

    def at(self, path: Path_) -> Location | None:
        return self.smap.value(path)

    def report(self, path: Path_, message: str, *, key: bool = False) -> None:
        where = self.smap.key(path) if key else self.smap.value(path)
        self.problems.append(Problem(where, dotted(path), message))
