"""The lab's gNMI server process (see ``xoff.lab.gnmi.lab``): the SONiC and Cumulus switches of one shard."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from xoff.lab import credentials, daemons, netns, sshd
from xoff.lab.emulators.cumulus.store import Store as CumulusStore
from xoff.lab.emulators.sonic.store import Store as SonicStore
from xoff.lab.gnmi import tls
from xoff.lab.gnmi.lab import PORTS, READY, TLS, TLS_DIR
from xoff.lab.gnmi.server import bind, build
from xoff.lab.state import load


def _serve(lab_dir: Path, index: int, count: int) -> list[Any]:
    state = load(lab_dir)
    if state is None:
        raise SystemExit(f"{lab_dir}: no lab.json")
    secrets = credentials.Secrets.load(lab_dir)
    pair = (secrets.switch_username, secrets.switch_password)
    mine = sorted(
        (d for d in state.devices.values() if d.kind == "switch" and d.platform in PORTS), key=lambda d: d.name
    )
    mine = mine[index::count]
    names = {d.name for d in mine}
    # the switches' databases exist before their telemetry serves from them: a switch boots with its factory
    # CONFIG_DB (SONiC) or NVUE state (Cumulus), which the emulators otherwise make at their first session
    for listener in (x for x in sshd.listeners(state) if x.device in names):
        if listener.platform == "sonic":
            SonicStore(listener.context).running()
        else:
            CumulusStore(listener.context.state_dir, listener.context).read()
    servers = []
    for d in mine:
        server = build(d.platform, daemons.state_dir(lab_dir, d.name), pair)
        cert = tls.ensure(lab_dir / TLS_DIR) if TLS[d.platform] else None
        with netns.entered(d.netns):
            bind(server, f"0.0.0.0:{PORTS[d.platform]}", cert)
        server.start()
        servers.append(server)
    return servers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xoff.lab.gnmi.run")
    parser.add_argument("--lab-dir", required=True, type=Path)
    parser.add_argument("--shard", default="0/1", help="I/N: serve every N-th SONiC/Cumulus switch from the I-th")
    args = parser.parse_args(argv)
    index, _, count = str(args.shard).partition("/")
    servers = _serve(args.lab_dir, int(index), int(count))
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(f"{READY} on {len(servers)} switches", flush=True)
    stop.wait()
    for server in servers:
        server.stop(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
