"""The one error of fault seeding, apart from the records, so reaching a device needs no record type."""

from __future__ import annotations


class SeedError(RuntimeError):
    """The device refused the fault (or its undo): nothing was seeded, or the lab needs a push."""
