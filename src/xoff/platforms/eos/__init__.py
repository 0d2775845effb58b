"""Arista EOS: the running-config text from FabricState (reference/lossless.md §3.1).

``structured.py`` builds a plain structured config per device, keyed and nested like AVD's
``eos_cli_config_gen`` input so the two can be compared line by line; ``templates/eos/*.j2``
only print it; ``render.py`` joins them.
"""

from xoff.contracts.apply import Capabilities
from xoff.platforms.eos import load_balancing
from xoff.platforms.limits import RenderLimits
from xoff.platforms.record import Platform, Ref, Renderer, Transport

COMMIT_TIMER = "00:05:00"  # EOS rolls a committed session back by itself unless xoff confirms within this time

PLATFORM = Platform(
    name="eos",
    label="Arista EOS",
    kind="switch",
    mgmt_interface="Management1",
    loopback_interface="Loopback0",
    interface_naming="`Ethernet<n>[/<m>]` (breakout lanes after the slash)",
    port_pattern=r"Ethernet\d+(/\d+)*",
    transport=Transport(netmiko_device_type="arista_eos", enable=True),  # show running-config is privileged
    capabilities=Capabilities(
        atomic_replace=True,
        commit_confirm=True,
        rollback=True,
        on_box_diff=True,
        apply_means=f"configure session xoff-<run>: rollback clean-config + full config, commit timer {COMMIT_TIMER}, "
        "verify, confirm",
        undo_means="configure session xoff-<run> abort (or the commit timer lapses); else configure replace backup",
        restore_means="configure replace of the run's backup",
    ),
    renderers=(Renderer("eos", Ref("xoff.platforms.eos.render:render")),),
    strategy=Ref("xoff.platforms.eos.apply:Strategy"),
    collector=Ref("xoff.platforms.eos.collect:Collector"),
    watch=Ref("xoff.platforms.eos.watch:READER"),
    clab=Ref("xoff.platforms.eos.clab:KIND"),
    ansible_vars={
        "ansible_connection": "ansible.netcommon.network_cli",
        "ansible_network_os": "arista.eos.eos",
        "ansible_network_cli_ssh_type": "paramiko",
        "ansible_become": True,
        "ansible_become_method": "enable",
    },
    emulator=".eos:Emulator",  # in the lab's emulator package
    # qos.py: traffic class N goes to tx-queue N and PFC priority N pauses traffic class N (xoff renders no
    # `qos map traffic-class ... to tx-queue`); the watchdog acts by dropping and takes seconds with two decimals;
    # interfaces.py: `speed <n>g[-<lanes>]` from 10g up
    render_limits=RenderLimits(
        queue_is_traffic_class=True,
        lossless_priority_is_traffic_class=True,
        watchdog_actions=("drop",),
        watchdog_time_step_ms=10,
        port_speeds_mbps=(10_000, 25_000, 40_000, 50_000, 100_000, 200_000, 400_000, 800_000, 1_600_000),
    ),
    load_balancing=load_balancing.SUPPORT,
    vrf_names=r"[A-Za-z][A-Za-z0-9_-]*",  # vrf instance NAME ("default" is the underlay's)
    evpn=True,  # interface Vxlan1 vxlan vrf X vni N, router bgp address-family evpn, vrf rd/route-target evpn
)
