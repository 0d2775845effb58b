"""The neutral contracts at the bottom of the import graph: what the core and the platforms agree on.

- ``session``: the slice of an SSH/CLI session a strategy or collector may use (``Session``);
- ``apply``: the apply-strategy contract (``ApplyStrategy``, ``ChangeSet``, ``ApplyError``, ``Capabilities``);
- ``collect``: the collector contract (``Collector``, ``Command``, ``DeviceObservation``, ``read``);
- ``observed``: the observed-state models (LLDP, BGP, counters, host facts, FIB routes, ``Snapshot``);
- ``fib``: the forwarding table as the deadlock analysis reads it (``FibEntry``);
- ``infiniband``: what infiniband-diags read from a fabric (``IbObservation``);
- ``clab``: how a platform runs under containerlab (``ClabKind``, ``ExportError``).

These modules import only the standard library, pydantic and ``xoff.desired.models`` (the Device and
FabricState an observation is expressed in); nothing here imports a platform, an engine or the lab.
"""
