"""lab-mini up, the rendered configuration loaded through each NOS's own commands over SSH, then
``xoff collect`` over real SSH (netmiko, host keys checked): the snapshot's observed state equals the
desired FabricState on every field the platforms carry, LLDP matches the cabling, BGP is Established.

The lab starts switches at their underlay and hosts freshly installed (docs/lab.md), so the test
loads what ``xoff push`` would: SONiC ``config replace`` of config_db.json, EOS ``configure replace``,
the hosts' rendered apply script. Cumulus (sleaf1) is another package's collector: limited out here.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.collect_drift import differing_fields
from tests.support.labs import running_lab
from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff.connect.credentials import load_credentials
from xoff.connect.session import ConnectSpec, open_session
from xoff.connect.targets import build_targets
from xoff.contracts.observed import Snapshot
from xoff.desired.models import FabricState
from xoff.lab.provider import from_lab
from xoff.render import render_fabric

pytestmark = pytest.mark.lab
INVENTORY = ROOT / "inventory"
LAB = f"c{os.getpid() % 100000}-coll"
LIMIT = ["platform_sonic", "platform_eos", "kind_host"]


def _session(lab: str, name: str) -> Any:
    conn = from_lab(lab)
    target = next(t for t in build_targets(conn.fabric) if t.name == name)
    creds = load_credentials(conn.secrets_file)
    creds_of = creds.for_device(target.platform, target.kind)
    # hosts: exec channels (a non-zero exit raises), as the host collector uses
    spec = ConnectSpec(target, creds_of, conn.known_hosts, 30.0, True, exec_channel=target.kind == "host")
    return open_session(spec)


def _put(session: Any, path: str, text: str) -> None:
    sftp = session.remote_conn_pre.open_sftp()
    try:
        with sftp.open(path, "w") as handle:
            handle.write(text.encode())
    finally:
        sftp.close()


def _load_rendered(lab: str, fabric: FabricState, tmp: Path) -> None:
    """What a push does, by the NOS's own means (no xoff push: that is another package's test)."""
    files = {(f.device, f.name): f.content for f in render_fabric(fabric)}
    for name, device in fabric.devices.items():
        if device.platform == "sonic":
            s = _session(lab, name)
            _put(s, "/home/admin/xoff-config_db.json", files[name, "config_db.json"])
            out = s.send_command("sudo config replace /home/admin/xoff-config_db.json", read_timeout=60)
            assert "Config replaced successfully." in out, f"{name}: {out[-400:]}"
            s.disconnect()
        elif device.platform == "eos":
            s = _session(lab, name)
            _put(s, "/mnt/flash/xoff.cfg", files[name, "running-config"])
            out = s.send_command("configure replace flash:xoff.cfg", read_timeout=60)
            assert out.strip() == "", f"{name}: {out}"
            s.disconnect()
        elif device.platform == "linux":
            script = tmp / f"{name}-apply.sh"
            script.write_text(files[name, "xoff-host-apply.sh"], encoding="utf-8")
            s = _session(lab, name)
            out = s.send_command(f"bash {script}", read_timeout=60)  # raises on a non-zero exit
            s.disconnect()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FabricState, Path]]:
    # short: FRR's socket paths must fit in sun_path
    with running_lab(INVENTORY / "lab-mini", LAB, prefix="xl", parent="/tmp"):
        fabric = from_lab(LAB).fabric
        _load_rendered(LAB, fabric, tmp_path_factory.mktemp("apply"))
        yield fabric, tmp_path_factory.mktemp("snap")


def _collect(out: Path) -> tuple[int, str, float]:
    import typer

    from xoff.cli.collect import collect_command

    app = typer.Typer()
    app.command()(collect_command)
    args = [str(INVENTORY / "lab-mini"), "-o", str(out), "--lab", LAB, *[a for t in LIMIT for a in ("--limit", t)]]
    started = time.monotonic()
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output, time.monotonic() - started


def test_collect_equals_desired(lab: tuple[FabricState, Path]) -> None:
    fabric, tmp = lab
    deadline = time.monotonic() + SETTLE_S
    while True:  # BGP and LLDP settle after the underlay comes up
        code, output, elapsed = _collect(tmp / "snap.json")
        snap = Snapshot.model_validate_json((tmp / "snap.json").read_text(encoding="utf-8"))
        up_sessions = all(s.state == "Established" for sessions in snap.bgp_sessions.values() for s in sessions)
        if (code == 0 and up_sessions and all(snap.lldp.values())) or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert code == 0, output
    assert snap.errors == []
    expected = {n for n, d in fabric.devices.items() if d.platform in ("sonic", "eos", "linux")}
    assert set(snap.observed.devices) == expected
    diffs = {
        name: differing_fields(fabric.devices[name], snap.observed.devices[name], snap.observed_fields[name])
        for name in expected
    }
    assert {n: d for n, d in diffs.items() if d} == {}
    # every platform read more than identity: the round trip is not vacuous
    assert all(len(snap.observed_fields[n]) >= 8 for n in expected)
    # the hosts' rail tables and rules were read (and equal the intent above)
    hosts = [n for n in expected if fabric.devices[n].host is not None]
    assert hosts and all({"host.routes", "host.rules"} <= set(snap.observed_fields[n]) for n in hosts)
    # LLDP = the intent's cabling, from both ends of every link between collected devices
    cabling = {(k.a.device, k.a.port): (k.b.device, k.b.port) for k in fabric.links}
    cabling |= {b: a for a, b in cabling.items()}
    for device, neighbours in snap.lldp.items():
        for n in neighbours:
            assert cabling.get((device, n.port)) == (n.neighbor, n.neighbor_port), (device, n)
        wired = {p for (d, p), (peer, _) in cabling.items() if d == device and peer in expected}
        assert wired <= {n.port for n in neighbours}, device
    # BGP: every intended neighbour, Established, with its ASN
    for name in expected:
        device = fabric.devices[name]
        if device.bgp is None:
            continue
        sessions = {s.address: s for s in snap.bgp_sessions[name]}
        for neighbour in device.bgp.neighbors:
            if neighbour.peer in expected:
                assert sessions[neighbour.address].state == "Established", (name, neighbour)
                assert sessions[neighbour.address].remote_asn == neighbour.remote_asn
    # raw captures kept beside the snapshot, secrets masked
    raw = tmp / "snap.json.raw"
    assert (raw / "leaf1" / "show_runningconfiguration_all.txt").is_file()
    secrets = load_credentials(from_lab(LAB).secrets_file).secrets()
    for file in raw.rglob("*.txt"):
        text = file.read_text(encoding="utf-8")
        assert not any(s in text for s in secrets), file
    print(f"live collect of lab-mini ({len(expected)} devices): {elapsed:.2f} s")
    json.dumps(diffs)
