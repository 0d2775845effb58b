"""The lab's gNMI servers: SONiC's telemetry service over COUNTERS_DB and Cumulus' OpenConfig gNMI, served
from the same ``state/counters.json`` the emulators' show commands print from.

An independent oracle: built from the vendors' documentation and published outputs (see ``sonic.py`` and
``cumulus.py``), never importing xoff's parsers, renderers or strategy code.
"""
