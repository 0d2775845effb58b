"""The lab's gNMI servers: ``python -m xoff.lab.gnmi.run --lab-dir DIR [--shard I/N]`` serves gNMI for every
SONiC and Cumulus switch of its shard (every N-th in name order, as the switch SSH servers are sharded), each on
the port its NOS uses, bound inside the switch's namespace (all its addresses, so it is there as soon as the
management address is): SONiC's telemetry on 8080 without TLS (``--insecure``, as SONiC's document runs it for
testing), Cumulus' gNMI server on 9339 with the lab's self-signed certificate (``tls.py``). Every RPC needs the
lab's switch username and password (``secrets.yaml``), as the real servers authenticate users.
"""

from __future__ import annotations

from pathlib import Path

from xoff.lab.processes import ProcessSpec, shard_servers

PORTS = {"sonic": 8080, "cumulus": 9339}
TLS = {"sonic": False, "cumulus": True}
READY = "xoff lab gnmi: listening"
TLS_DIR = "gnmi-tls"
PER_PROCESS = 32  # switches per server process (a server's threads mostly wait)


def specs(lab_dir: Path, switches: list[tuple[str, str]]) -> list[ProcessSpec]:
    """The gNMI server processes for the lab's switches (name, platform); none without a SONiC or Cumulus one."""
    count = sum(platform in PORTS for _, platform in switches)
    if count == 0:
        return []
    return shard_servers(lab_dir, "gnmi", "xoff.lab.gnmi.run", -(-count // PER_PROCESS), READY)
