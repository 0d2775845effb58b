"""``render(device, fabric)``: the OpenSM files for the host that runs the subnet manager."""

from __future__ import annotations

from xoff.desired.ib_guids import hca_port_guids
from xoff.desired.models import Device, FabricState
from xoff.platforms.opensm import builders as b
from xoff.render.jinja import render_template


def render(device: Device, fabric: FabricState, config_dir: str = b.DEFAULT_CONFIG_DIR) -> dict[str, str]:
    """opensm.conf, partitions.conf, qos-policy.conf and the ftree/updn GUID files.

    ``config_dir`` is where the files are installed on the SM host; opensm.conf names the other
    files by it (Debian: /etc/opensm).
    """
    sm = b.subnet_manager(device)
    hcas = hca_port_guids(fabric)
    b.check_compute_nodes(device, sm, hcas)
    paths = b.Paths(config_dir)
    host = device.name
    return {
        b.OPENSM_CONF: render_template("opensm/opensm.conf.j2", host=host, sections=b.opensm_conf(sm, paths)),
        b.PARTITIONS_CONF: render_template("opensm/partitions.conf.j2", host=host, partitions=b.partitions(sm, hcas)),
        b.QOS_POLICY_CONF: render_template("opensm/qos-policy.conf.j2", host=host, **b.qos_policy(sm)),
        b.ROOT_GUIDS: render_template(
            "opensm/guids.txt.j2",
            host=host,
            title="Root (spine) switch node GUIDs",
            option="root_guid_file",
            rows=b.guid_file("root_guids", sm.root_guids, b.switch_names(fabric)),
        ),
        b.CN_GUIDS: render_template(
            "opensm/guids.txt.j2",
            host=host,
            title="Compute node HCA port GUIDs",
            option="cn_guid_file",
            rows=b.guid_file("compute_node_guids", sm.compute_node_guids, b.hca_names(hcas)),
        ),
    }
