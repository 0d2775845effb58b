"""InfiniBand running state: infiniband-diags commands, their TextFSM parsers (``textfsm/``), the
observation model (``model.py``) and the collect step for a fabric's subnet manager host."""

from xoff.platforms.record import Platform

PLATFORM = Platform(
    name="infiniband",
    label="NVIDIA Quantum InfiniBand switch",
    kind="ib_switch",
    mgmt_interface="mgmt0",
    loopback_interface=None,
    interface_naming="port numbers `1`..`N`",
    port_pattern=r"\d+",
    # programmed by the subnet manager, not configured: no transport, renderer, strategy or collector of
    # its own (the fabric is read through infiniband-diags on the SM host: xoff.platforms.infiniband.collect)
    clab_skipped="containerlab has no InfiniBand kind",
)
