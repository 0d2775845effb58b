"""NVIDIA Cumulus Linux, configured with NVUE.

``render`` turns a Device into ``nvue-commands.txt`` (the ``nv set`` lines the push step runs before
``nv config apply``) and ``startup.yaml`` (the same settings as the ``/etc/nvue.d/startup.yaml`` tree).
One builder per FabricState key fills the NVUE tree (``nvue.py``): ``interfaces`` (system, interfaces),
``qos`` (classification, queues, PFC, ECN, ETS), ``watchdog`` (PFC watchdog), ``bgp``.

Syntax target: Cumulus Linux 5.6 to 5.14, the releases whose NVUE has both the QoS profiles (5.3) and
the PFC watchdog (5.6) and still spells switches ``enable on`` / ``tx enable``; 5.15 renamed some of
them (``nv set qos roce state enabled``, per the NVUE reference's QoS page). Every command path xoff
writes is checked against the published ``nv list-commands`` grammar in ``grammar.py``.
"""

from __future__ import annotations

NVUE_RELEASES = "Cumulus Linux 5.6-5.14"


class CumulusRenderError(ValueError):
    """FabricState asks for something NVUE cannot express; the message names the device and the value."""
