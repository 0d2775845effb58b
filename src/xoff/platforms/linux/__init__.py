"""Linux GPU hosts with NVIDIA ConnectX NICs: an idempotent apply/check script, its state file and the
NCCL environment (reference/lossless.md §4)."""

from xoff.contracts.apply import Capabilities
from xoff.platforms.limits import RenderLimits
from xoff.platforms.record import Platform, Ref, Renderer, Transport

# the names the host files print into shell scripts unquoted (builders.py checks them again)
NETDEV_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}"  # IFNAMSIZ: at most 15 characters
RDMA_NAME = r"[A-Za-z0-9][A-Za-z0-9_]*"

PLATFORM = Platform(
    name="linux",
    label="Linux GPU host (ConnectX)",
    kind="host",
    mgmt_interface="eno1",
    loopback_interface=None,
    interface_naming="Linux netdev names (at most 15 characters), e.g. `eth0`, `ens1f0np0`",
    port_pattern=r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}",
    # `ssh host CMD` for collect: exit statuses, and no login profile resetting PATH
    transport=Transport(netmiko_device_type="linux", exec_channel=True),
    capabilities=Capabilities(
        atomic_replace=False,
        commit_confirm=False,
        rollback=True,
        on_box_diff=True,
        apply_means="one read of the host, then a script of only what differs, in one batch (set -e)",
        undo_means="restore script generated from the backup snapshot (links, routes, rules, NIC QoS, RoCE, ECN, NCCL)",
        restore_means="restore script generated from the run's backup snapshot",
    ),
    renderers=(Renderer("host", Ref("xoff.platforms.linux.render:render")),),
    strategy=Ref("xoff.platforms.linux.apply:Strategy"),
    collector=Ref("xoff.platforms.linux.collect:Collector"),
    clab=Ref("xoff.platforms.linux.clab:KIND"),
    ansible_vars={"ansible_connection": "ansible.builtin.ssh"},
    emulator=None,  # the lab's hosts run the real OpenSSH sshd in their namespace
    render_limits=RenderLimits(netdev_name=NETDEV_NAME, rdma_name=RDMA_NAME),
)
