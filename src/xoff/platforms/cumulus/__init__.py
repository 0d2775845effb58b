"""NVIDIA Cumulus Linux, configured with NVUE.

``render`` turns a Device into ``nvue-commands.txt`` (the ``nv set`` lines the push step runs before
``nv config apply``) and ``startup.yaml`` (the same settings as the ``/etc/nvue.d/startup.yaml`` tree).
One builder per FabricState key fills the NVUE tree (``nvue.py``): ``interfaces`` (system, interfaces),
``qos`` (classification, queues, PFC, ECN, ETS), ``watchdog`` (PFC watchdog), ``bgp``.

Syntax target: Cumulus Linux 5.6 to 5.14, the releases whose NVUE has both the QoS profiles (5.3) and
the PFC watchdog (5.6) and still spells switches ``enable on`` / ``tx enable``; 5.15 renamed some of
them (``nv set qos roce state enabled``, per the NVUE reference's QoS page). Every command path xoff
writes is checked against the published ``nv list-commands`` grammar in ``grammar.py``.

Command forms checked against NVIDIA's docs (CumulusNetworks/docs; "5.5 list" = content/cumulus-linux-55/
System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-Commands.md, "5.9 QoS" = content/cumulus-linux-59/
Layer-1-and-Switch-Ports/Quality-of-Service/_index.md, "5.6 new" = content/cumulus-linux-56/Whats-New):

- confirmed, as rendered: ``qos pfc <profile> switch-priority <sp>``, ``tx|rx enable``, ``cable-length
  1-100000`` (5.5 list; 5.9 QoS "PFC"); ``interface <if> qos pfc profile <name>`` (5.5 list); ``qos
  congestion-control <profile> traffic-class <tc> min-threshold|max-threshold <bytes>``, ``probability
  0-100``, ``ecn enable|disable`` (5.5 list; 5.9 QoS "Congestion Control (ECN)", values in bytes); ``qos
  egress-scheduler ... mode dwrr|strict``, ``bw-percent`` (5.5 list; 5.9 QoS "Egress Scheduler"); ``qos
  egress-queue-mapping default-global switch-priority <sp> traffic-class <q>`` (5.5 list; 5.9 QoS "Egress
  Queues": default-global only); ``qos mapping default-global trust l3|l2``, ``dscp <d> switch-priority
  <sp>`` (5.5 list; 5.9 QoS "Trust DSCP"); ``qos traffic-pool default-lossless|default-lossy
  memory-percent`` (5.5 list; 5.9 QoS "Flow Control Buffers", 50/50); ``qos pfc-watchdog polling-interval
  100-5000`` / ``robustness 1-1000`` (5.6 new; 5.9 QoS "PFC Watchdog", defaults 100 ms / 3);
  ``interface <if> qos pfc-watchdog state enable`` (5.9 QoS "PFC Watchdog" names ``state disable``;
  plain ``nv set interface <if> qos pfc-watchdog`` also enables it); ``interface <if> link
  speed|mtu 552-9216|state|breakout``, ``ip address`` (5.5 list);
- not re-checked here (taken from the 5.5 list by this package's first author and the 5.14 BGP guide
  ``bgp.py`` cites): ``router bgp enable|autonomous-system|router-id``, ``vrf default router bgp
  neighbor <addr> remote-as <asn>`` / ``type numbered``, ``address-family ipv4-unicast network`` /
  ``multipaths ebgp``;
- not used: the headroom knobs ``qos pfc <profile> xoff-threshold|xon-threshold|port-buffer`` (5.5
  list): NVIDIA advises letting switchd size them from the cable length, which xoff renders; ``qos
  advance-buffer-config``. The 5.9 QoS page's port-group ECN example spells ``min-threshold-bytes``;
  the command list (and its default-global example) says ``min-threshold``, which xoff keeps;
- open: whether the documented default-global DWRR shares (12/13 %) stay on queues a profile does not
  name (if they do, NVUE would refuse xoff's 40 + 60 % as over 100 %); the lab's emulator assumes not.
"""

from __future__ import annotations

from xoff.contracts.apply import Capabilities
from xoff.platforms.cumulus import load_balancing
from xoff.platforms.limits import RenderLimits
from xoff.platforms.record import Platform, Ref, Renderer, Transport

NVUE_RELEASES = "Cumulus Linux 5.6-5.14"


class CumulusRenderError(ValueError):
    """FabricState asks for something NVUE cannot express; the message names the device and the value."""


CONFIRM_TIMER_S = 300  # NVUE rolls back by itself unless xoff confirms within this time

PLATFORM = Platform(
    name="cumulus",
    label="NVIDIA Cumulus Linux (NVUE)",
    kind="switch",
    mgmt_interface="eth0",
    loopback_interface="lo",
    interface_naming="`swp<n>[s<m>]` (breakout lanes as `s<m>`)",
    port_pattern=r"swp\d+(s\d+)?",
    transport=Transport(netmiko_device_type="cumulus_linux"),
    capabilities=Capabilities(
        atomic_replace=True,
        commit_confirm=True,
        rollback=True,
        on_box_diff=True,
        apply_means=f"nv unset/set into a pending revision, nv config diff, nv config apply --confirm {CONFIRM_TIMER_S}s -y "
        "(whole revision or nothing), verify, nv config apply --confirm-yes",
        undo_means="nv config apply --confirm-no (or the confirm timer lapses); else nv config apply <previous revision> -y",
        restore_means="the run's backup as a revision: nv config apply --confirm, verify, --confirm-yes",
    ),
    renderers=(Renderer("cumulus", Ref("xoff.platforms.cumulus.render:render")),),
    strategy=Ref("xoff.platforms.cumulus.apply:Strategy"),
    collector=Ref("xoff.platforms.cumulus.collect:Collector"),
    watch=Ref("xoff.platforms.cumulus.watch:READER"),
    clab=Ref("xoff.platforms.cumulus.clab:KIND"),
    # NVUE's nv in its bash shell over plain SSH (password), through ansible.builtin.raw
    ansible_vars={"ansible_connection": "ansible.builtin.ssh"},
    emulator=".cumulus:Emulator",  # in the lab's emulator package
    # qos.py: DSCP maps to one switch priority, DWRR weights are bw-percent, a PFC profile's cable-length is
    # 1-100000 m; watchdog.py: mitigation drops; interfaces.py: breakout 2x/4x/8x; bgp.py: multipaths 1-128
    render_limits=RenderLimits(
        one_priority_per_traffic_class=True,
        watchdog_actions=("drop",),
        dwrr_total_max=100,
        pfc_cable_m_min=1,
        sub_port=r"(swp\d+)s(\d+)",
        sub_ports_max=8,
        bgp_max_paths_max=128,
    ),
    cable_length_needs_pfc=True,  # `nv set qos pfc <profile> cable-length`: no other place holds it
    load_balancing=load_balancing.SUPPORT,
    vrf_names=r"(?!mgmt$)[A-Za-z][A-Za-z0-9_-]{0,14}",  # at most 15 characters, mgmt is the management VRF's
)
