"""PFC deadlock risk: cyclic buffer dependency (CBD) analysis of forwarding snapshots.

Semantics: ``../shared/reference/forwarding-snapshot.md`` (normative) and ``deadlock.md``.
``model`` is the in-memory snapshot every producer builds (file loader, routing model, failure
sweep); ``analysis.analyse`` is the one entry point that judges it.
"""
