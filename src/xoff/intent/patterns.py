"""Brace patterns for names (``leaf{1..4}``, ``gpu{001..128}``, ``Ethernet{0..248..8}``)."""

from __future__ import annotations

import re
from itertools import islice

from braceexpand import UnbalancedBracesError, braceexpand  # type: ignore[attr-defined]

MAX_NAMES = 100_000  # names one brace pattern may stand for (documented in docs/intent-limits.md)


_RANGE = re.compile(r"\{(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?\}")


class PatternError(ValueError):
    pass


def _too_many(pattern: str) -> PatternError:
    return PatternError(
        f"{pattern!r} stands for more than {MAX_NAMES} names (allowed: at most {MAX_NAMES} names per pattern)"
    )


def _check_ranges(pattern: str) -> None:
    """Refuse a numeric range too long before expanding it (braceexpand builds each range whole)."""
    for m in _RANGE.finditer(pattern):
        start, end = int(m.group(1)), int(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        if abs(end - start) // step + 1 > MAX_NAMES:
            raise _too_many(pattern)


def expand(pattern: str) -> list[str]:
    """Every name a bash-style brace pattern stands for, in order; a plain name stands for itself."""
    if "{" not in pattern and "}" not in pattern:
        return [pattern]
    _check_ranges(pattern)
    try:
        names = list(islice(braceexpand(pattern), MAX_NAMES + 1))
    except UnbalancedBracesError:
        raise PatternError(
            f"{pattern!r} has unbalanced braces (allowed: name{{1..4}}, name{{01..16}}, name{{0..248..8}}, name{{a,b}})"
        ) from None
    if len(names) > MAX_NAMES:
        raise _too_many(pattern)
    if any("{" in n or "}" in n for n in names):
        raise PatternError(
            f"{pattern!r} is not a brace pattern xoff understands "
            "(allowed: name{1..4}, name{01..16}, name{0..248..8}, name{a,b})"
        )
    return names


def expand_names(names: str | list[str]) -> list[str]:
    """A generator's device selection: one pattern, or a list of names or patterns."""
    out: list[str] = []
    for item in [names] if isinstance(names, str) else names:
        out.extend(expand(item))
    return out
