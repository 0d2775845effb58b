"""``render(device, fabric)``: the files of a Linux GPU host (reference/lossless.md §4).

- ``xoff-host-apply.sh``: idempotent bash that brings the host to the desired state and reports each
  change (``--check``: report only, exit 1 on any difference);
- ``xoff-host-state.json``: the desired values that script applies, for collect and verify;
- ``nccl.env``: the NCCL environment, which the script also installs at ``/etc/xoff/nccl.env``.
"""

from __future__ import annotations

from functools import lru_cache

from xoff.desired.models import Device, FabricState
from xoff.platforms.linux import builders as b
from xoff.render.jinja import render_template

APPLY_SCRIPT = "xoff-host-apply.sh"
STATE_FILE = "xoff-host-state.json"
NCCL_ENV = "nccl.env"


@lru_cache(maxsize=256)
def _dscp_args(pairs: tuple[tuple[int, int], ...]) -> str:
    """`` DSCP:PRIO`` per pair: xoff_qos's arguments (the same 64-entry map on every NIC of the fabric)."""
    return "".join(f" {dscp}:{priority}" for dscp, priority in pairs)


def render(device: Device, fabric: FabricState) -> dict[str, str]:
    config = b.host_config(device, fabric)
    dscp_args = {
        q["netdev"]: _dscp_args(tuple((m["dscp"], m["priority"]) for m in q["dscp_to_priority"])) for q in config["qos"]
    }
    nccl_text = render_template(
        "host/nccl.env.j2", device=config["device"], fabric=config["fabric"], nccl=config["nccl"]
    )
    return {
        APPLY_SCRIPT: render_template("host/xoff-host-apply.sh.j2", **config, nccl_text=nccl_text, dscp_args=dscp_args),
        STATE_FILE: render_template("host/xoff-host-state.json.j2", state=config),
        NCCL_ENV: nccl_text,
    }
