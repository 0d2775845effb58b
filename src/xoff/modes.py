"""Where ``validate`` takes the state it judges from: exactly one mode, always explicit, for the library and the
command line alike (standard library only: ``xoff validate`` says a missing mode before it loads anything)."""

from __future__ import annotations

MODES = "--offline, --snapshot FILE, --lab NAME or --live"


def mode_problem(offline: bool, snapshot: object | None, lab: str | None, live: bool) -> str | None:
    """One line when the mode is not exactly one of offline, snapshot, lab, live (real devices are never reached by
    default); else None."""
    given = sum((offline, snapshot is not None, lab is not None, live))
    if given == 0:
        return f"xoff validate: say where the state comes from: {MODES} (real devices only with --live)"
    if given > 1:
        return f"xoff validate: give one of {MODES} (allowed: one)"
    return None
