"""The rendered OpenSM files against real software: ibsim simulates ib-pod's fabric (generated from
FabricState by xoff.lab.ibsim), the real OpenSM routes it once with the rendered files, and the real
infiniband-diags read back what OpenSM programmed into the simulated switches and HCAs."""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.waiting import SETTLE_S
from xoff.desired.ib_guids import hca_port_guids
from xoff.desired.models import FabricState, Link, Peer
from xoff.lab.ibsim import UMAD2SIM, client_argv, client_env, ibsim_argv, link_speed, topology
from xoff.platforms.opensm.render import render

# OpenSM 3.3.23 handles "no_fallback" inside its engine-name loop: it sets the flag, then reports the
# name as an engine it failed to set up. The one ERROR line a correct configuration produces.
NO_FALLBACK_NOISE = "setup_routing_engines: Failed to setup routing engine 'no_fallback'"
TIMEOUT_S = SETTLE_S  # each client run: an upper bound only (a busy machine is slow)


# --- the generated topology, offline -------------------------------------------------------------


def test_topology_records_and_guids(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    topo = topology(state)
    text = topo.text
    assert topology(state).text == text  # deterministic
    records = re.findall(
        r"^(switchguid|caguid)=(0x[0-9a-f]{16})\n(Switch|Ca)\t(\d+) \"([SH]-[0-9a-f]{16})\"", text, re.M
    )
    switches = {d.guid: d for d in state.devices.values() if d.kind == "ib_switch"}
    hcas = hca_port_guids(state)
    assert len(records) == len(switches) + len(hcas) == 6 + 129
    # the SM's HCA comes first: ibsim attaches clients there by default
    assert records[0] == ("caguid", "0x0002c90400000000", "Ca", "1", "H-0002c90400000000")
    assert topo.sm_node == "H-0002c90400000000" and topo.sm_port_guid == hcas[("sm01", "ib0")]
    for line, guid, kind, ports, node_id in records:
        assert node_id[2:] == guid[2:]
        if kind == "Switch":
            assert line == "switchguid" and guid in switches and ports == "64"
        else:  # a CA's port 1 GUID is its node GUID + 1: the GUID the renderer put in partitions.conf
            assert line == "caguid" and ports == "1" and f"0x{int(guid, 16) + 1:016x}" in hcas.values()


def test_topology_cables_each_link_at_both_ends(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    text = topology(state).text
    port_lines = re.findall(r'^\[(\d+)\]\t"([SH]-[0-9a-f]{16})"\[(\d+)\]\t\t# "([^"]+)" lid 0 4xHDR$', text, re.M)
    ib_links = [lk for lk in state.links if lk.network == "compute"]
    assert len(port_lines) == 2 * len(ib_links) == 2 * 249
    assert '[63]\t"H-0002c90400000000"[1]\t\t# "sm01 mlx5_0" lid 0 4xHDR' in text  # ibleaf1:63 <-> sm01:ib0


@pytest.mark.parametrize(
    ("mbps", "fastest", "expected"),
    [(400_000, "NDR", "4xNDR"), (400_000, "HDR", "4xHDR"), (200_000, "NDR", "4xHDR"), (100_000, "NDR", "4xEDR"),
     (56_000, "NDR", "4xFDR"), (40_000, "NDR", "4xQDR"), (20_000, "NDR", "4xDDR"), (10_000, "NDR", "4xSDR")],
)  # fmt: skip
def test_link_speed(mbps: int, fastest: str, expected: str) -> None:
    assert link_speed(mbps, fastest) == expected


def _with_links(state: FabricState, links: list[Link]) -> FabricState:
    return state.model_copy(update={"links": links})


def test_topology_rejects_bad_cabling(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    first = next(lk for lk in state.links if lk.network == "compute")
    beyond = first.model_copy(update={"a": Peer(device="ibleaf1", port="65")})
    with pytest.raises(ValueError, match=r"port 65 outside 1\.\.64"):
        topology(_with_links(state, [beyond]))
    with pytest.raises(ValueError, match="cabled twice"):
        topology(_with_links(state, [first, first]))
    nowhere = first.model_copy(update={"b": Peer(device="fs01", port="stor0")})
    with pytest.raises(ValueError, match="neither an InfiniBand switch port nor a host HCA"):
        topology(_with_links(state, [nowhere]))


def test_topology_needs_a_subnet_manager(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    devices = dict(state.devices)
    devices["sm01"] = devices["sm01"].model_copy(update={"subnet_manager": None})
    with pytest.raises(ValueError, match="no device runs the subnet manager"):
        topology(state.model_copy(update={"devices": devices}))


# --- real ibsim, OpenSM and infiniband-diags ------------------------------------------------------


@contextmanager
def ibsim_running(netfile: Path, workdir: Path) -> Iterator[int]:
    """Start ibsim on ``netfile`` in a network namespace of its own; yield its PID; end it by PID."""
    log = workdir / "ibsim.out"
    with log.open("w") as out:
        proc = subprocess.Popen(
            ibsim_argv(str(netfile)), cwd=workdir, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + SETTLE_S
            while "Network simulator ready" not in log.read_text(encoding="utf-8"):
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"ibsim did not come up (exit {proc.poll()}):\n{log.read_text(encoding='utf-8')}")
                time.sleep(0.05)
            yield proc.pid
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


def _lids(discovered: str) -> dict[str, int]:
    """CA port GUID -> LID from ibnetdiscover's CA records: ``[1](<port guid>) "S-..."[p] # lid N lmc 0 ...``."""
    return {f"0x{int(g, 16):016x}": int(lid) for g, lid in re.findall(r'^\[1\]\(([0-9a-f]+)\)\s+"S-[0-9a-f]+"\[\d+\]\s+# lid (\d+) ', discovered, re.M)}  # fmt: skip


def _links(discovered: str) -> set[frozenset[tuple[str, int]]]:
    """Cables as ibnetdiscover found them, from the switch records: {(port GUID, port), (port GUID, port)}."""
    out: set[frozenset[tuple[str, int]]] = set()
    switch = ""
    for line in discovered.splitlines():
        if m := re.match(r'Switch\s+\d+ "S-([0-9a-f]{16})"', line):
            switch = f"0x{m.group(1)}"
        elif line.startswith("Ca"):
            switch = ""
        elif switch and (m := re.match(r'\[(\d+)\]\s+"([SH])-([0-9a-f]{16})"\[(\d+)\]', line)):
            remote = int(m.group(3), 16) + (1 if m.group(2) == "H" else 0)  # a CA's port GUID is node GUID + 1
            out.add(frozenset({(switch, int(m.group(1))), (f"0x{remote:016x}", int(m.group(4)))}))
    return out


def _expected_links(state: FabricState) -> set[frozenset[tuple[str, int]]]:
    hcas = {f"{h}:{n}": g for (h, n), g in hca_port_guids(state).items()}

    def end(p: Peer) -> tuple[str, int]:
        guid = state.devices[p.device].guid
        return (guid, int(p.port)) if guid else (hcas[f"{p.device}:{p.port}"], 1)

    return {frozenset({end(lk.a), end(lk.b)}) for lk in state.links if lk.network == "compute"}


def _pkeys(smpquery_out: str) -> set[int]:
    values = re.findall(r"0x([0-9a-f]{4})", smpquery_out.split("pkeys capacity", maxsplit=1)[0])
    return {int(v, 16) for v in values} - {0}


def _sl2vl(row: str) -> list[int]:
    """``ports: in  0, out  1: | 0| 1| 0|...|`` -> [0, 1, 0, ...]"""
    return [int(v) for v in row.rsplit(":", 1)[1].strip(" |").split("|")]


def _expected_pkeys(state: FabricState, host: str) -> set[int]:
    sm = state.devices["sm01"].subnet_manager
    assert sm is not None
    keys = {0xFFFF if host == "sm01" else 0x7FFF}  # Default: the SM full, every other port limited
    for p in sm.partitions:
        if host in p.members:
            keys.add(p.pkey | 0x8000 if p.membership == "full" else p.pkey)
    return keys


@pytest.mark.lab  # root: ibsim runs in a network namespace of its own (still part of `make test`)
def test_opensm_routes_the_rendered_fabric_in_ibsim(ib_pod, tool, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: PLR0915 -- one end-to-end scenario: ibsim, then OpenSM, then every table read back, sharing one sandbox
    """ib-pod in full (6 switches of 64 ports, 129 HCAs): ibsim holds it, OpenSM routes it in about a second."""
    opensm, ibnetdiscover, smpquery, dump_fts = (tool(t) for t in ("opensm", "ibnetdiscover", "smpquery", "dump_fts"))
    for t in ("ibsim", "unshare", "nsenter"):
        tool(t)
    if not Path(UMAD2SIM).exists():
        pytest.fail(f"{UMAD2SIM} missing: install Debian package ibsim-utils (`make system-deps` does)")
    _, state = ib_pod
    sm = state.devices["sm01"].subnet_manager
    assert sm is not None
    topo = topology(state)
    netfile = tmp_path / "ib-pod.net"
    netfile.write_text(topo.text, encoding="utf-8")
    etc, scratch = tmp_path / "etc", tmp_path / "scratch"
    etc.mkdir()
    scratch.mkdir()
    for name, text in render(state.devices["sm01"], state, config_dir=str(etc)).items():
        (etc / name).write_text(text, encoding="utf-8")
    env = client_env(os.environ, topo.sm_node, str(scratch))

    with ibsim_running(netfile, tmp_path) as pid:
        # ibsim speaks only over abstract unix sockets, in a network namespace of its own: no IP socket
        assert Path(f"/proc/{pid}/comm").read_text(encoding="utf-8").strip() == "ibsim"
        assert Path(f"/proc/{pid}/ns/net").readlink() != Path("/proc/self/ns/net").readlink()
        for proto in ("tcp", "tcp6", "udp", "udp6"):
            assert len(Path(f"/proc/{pid}/net/{proto}").read_text(encoding="utf-8").splitlines()) == 1, proto

        def client(*argv: str) -> str:
            run = subprocess.run(
                client_argv(pid, list(argv)), env=env, cwd=tmp_path, capture_output=True, text=True,
                timeout=TIMEOUT_S, check=False,
            )  # fmt: skip
            assert run.returncode == 0, f"{argv[0]} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}"
            return run.stdout

        # OpenSM, once (-o): sweep, route, program, exit with the ports left ACTIVE
        log = tmp_path / "opensm.log"
        stdout = client(opensm, "-F", str(etc / "opensm.conf"), "-o", "-f", str(log))  # exits: bounded by TIMEOUT_S
        assert "Unrecognized token" not in stdout, stdout
        assert f"Config file is `{etc / 'opensm.conf'}`" in stdout
        text = log.read_text(encoding="utf-8")
        assert "SUBNET UP" in text, text
        assert "osm_ucast_mgr_process: ftree tables configured on all switches" in text, text  # the engine that ran
        errors = [line for line in text.splitlines() if " 0x01 -> " in line]
        assert all(NO_FALLBACK_NOISE in line for line in errors), errors
        # ftree read both GUID files: the roots and the compute nodes are the rendered ones
        cas = len(hca_port_guids(state))
        switches = sum(d.kind == "ib_switch" for d in state.devices.values())
        cns = len(sm.compute_node_guids)
        assert f"Fabric has {cas} CAs, {cas} CA ports ({cns} of them CNs), {switches} switches" in text, text
        assert f"Fabric has {len(sm.root_guids)} switches at rank 0 (roots)" in text, text
        assert f"Loading QoS policy file ({etc / 'qos-policy.conf'})" in text, text

        # the simulated fabric is the intent's: same GUIDs, same cables
        discovered = client(ibnetdiscover)
        assert _links(discovered) == _expected_links(state)
        lids = _lids(discovered)
        guids = hca_port_guids(state)
        assert set(lids) == set(guids.values())

        # partitions: every HCA's PKey table holds exactly the PKeys of its host's partitions
        for (host, netdev), guid in guids.items():
            got = _pkeys(client(smpquery, "pkeys", str(lids[guid])))
            assert got == _expected_pkeys(state, host), f"{host}:{netdev} ({guid}) PKeys {sorted(map(hex, got))}"

        # QoS: SL2VL as rendered on an HCA and on every input port of a switch's port 1, VL arbitration
        gpu01 = str(lids[guids[("gpu01", "ib0")]])
        leaf1 = re.search(r'^Switch\s+\d+ "S-0002c90300000001".* lid (\d+) lmc', discovered, re.M)
        assert leaf1 is not None
        for target in ([gpu01], [leaf1.group(1), "1"]):
            rows = [line for line in client(smpquery, "sl2vl", *target).splitlines() if line.startswith("ports:")]
            assert rows and all(_sl2vl(row) == sm.sl2vl for row in rows), (target, rows)
        vlarb = client(smpquery, "vlarb", gpu01)
        low_vl, low_w, _high_vl, high_w = (
            [int(x, 16) for x in line.split(":", 1)[1].strip(" |").split("|")]
            for line in vlarb.splitlines()
            if line.startswith(("VL", "WEIGHT"))
        )
        assert list(zip(low_vl, low_w, strict=True))[: len(sm.vlarb_low)] == sm.vlarb_low
        assert not any(low_w[len(sm.vlarb_low) :]) and not any(high_w)

        # forwarding: every switch's LFT reaches every CA
        fts = client(dump_fts)
        blocks = re.split(r"^Unicast lids .*$", fts, flags=re.M)[1:]
        assert len(blocks) == switches
        for block in blocks:
            assert block.count("Channel Adapter portguid") == cas
