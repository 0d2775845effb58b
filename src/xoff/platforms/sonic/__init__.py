"""SONiC: CONFIG_DB (config_db.json) rendering, its YANG validation, and its parser.

FRR's frr.conf for SONiC's BGP comes from ``xoff.platforms.frr`` (see xoff.render.registry).
"""

from xoff.contracts.apply import Capabilities
from xoff.platforms import frr
from xoff.platforms.record import Platform, Ref, Renderer, Transport
from xoff.platforms.sonic import hash_tables

PLATFORM = Platform(
    name="sonic",
    label="SONiC (community)",
    kind="switch",
    mgmt_interface="eth0",
    loopback_interface="Loopback0",
    interface_naming="`Ethernet<n>` (n: the port's first lane)",
    port_pattern=r"Ethernet\d+",
    transport=Transport(netmiko_device_type="linux"),  # community SONiC: a bash login shell in front of show/config
    capabilities=Capabilities(
        atomic_replace=True,
        commit_confirm=False,
        rollback=True,
        on_box_diff=True,
        apply_means="config checkpoint xoff-<run> + config apply-patch (JSON Patch, YANG-validated whole)",
        undo_means="config rollback xoff-<run> (or config replace with the backup's CONFIG_DB)",
        restore_means="config checkpoint xoff-<run>, config replace with the run's backup's CONFIG_DB",
    ),
    renderers=(Renderer("sonic", Ref("xoff.platforms.sonic.render:render")), frr.RENDERER),
    strategy=Ref("xoff.platforms.sonic.apply:Strategy"),
    collector=Ref("xoff.platforms.sonic.collect:Collector"),
    watch=Ref("xoff.platforms.sonic.watch:READER"),
    clab=Ref("xoff.platforms.sonic.clab:KIND"),
    # its shell over plain SSH (password), show/config through ansible.builtin.raw
    ansible_vars={"ansible_connection": "ansible.builtin.ssh"},
    emulator=".sonic:Emulator",  # in the lab's emulator package
    load_balancing=hash_tables.SUPPORT,
    vrf_names=r"Vrf[a-zA-Z0-9_-]+",  # sonic-vrf.yang VRF_LIST name
    names_hwsku=True,  # DEVICE_METADATA|localhost hwsku: a catalogue sku gives it when the intent has none
)
