"""Problems found in user input, each pinned to a place in a file.

Every bad-input path in xoff ends here: one line per problem, in the form
``FILE:LINE:COL: path.to.field: what is wrong (what is allowed)``, sorted by file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based position in a source file."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input."""

    location: Location | None
    path: str
    message: str

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        if loc is None:
            return ("\uffff", 0, 0, self.path, self.message)
        return (loc.file, loc.line, loc.column, self.path, self.message)

    def __str__(self) -> str:
        where = str(self.location) if self.location else "<intent>"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


@dataclass(frozen=True)
class UsageProblem(Problem):
    """A problem with how a job was asked for (an option, a combination), not with a file: printed as
    its message alone."""

    def __str__(self) -> str:
        return self.message


def usage_error(message: str) -> InputError:
    """An InputError of one usage problem (``--device: no device named 'x' in this intent``)."""
    return InputError([UsageProblem(None, "", message)])


@dataclass
class InputError(Exception):
    """Raised when input is unusable; carries every problem found, not only the first."""

    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(self.render())

    def sorted(self) -> list[Problem]:
        unique = {(p.location, p.path, p.message): p for p in self.problems}
        return sorted(unique.values(), key=Problem.sort_key)

    def render(self) -> str:
        return "\n".join(str(p) for p in self.sorted())
