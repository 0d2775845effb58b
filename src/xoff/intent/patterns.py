"""Brace patterns for names (``leaf{1..4}``, ``gpu{001..128}``, ``Ethernet{0..248..8}``)."""

from __future__ import annotations

from braceexpand import UnbalancedBracesError, braceexpand  # type: ignore[attr-defined]


class PatternError(ValueError):
    pass


def expand(pattern: str) -> list[str]:
    """Every name a bash-style brace pattern stands for, in order; a plain name stands for itself."""
    if "{" not in pattern and "}" not in pattern:
        return [pattern]
    try:
        names = list(braceexpand(pattern))
    except UnbalancedBracesError:
        raise PatternError(
            f"{pattern!r} has unbalanced braces (allowed: name{{1..4}}, name{{01..16}}, name{{0..248..8}}, name{{a,b}})"
        ) from None
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
