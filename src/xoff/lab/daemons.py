"""What each lab daemon needs: its files under ``devices/<device>/`` and its command line.

- switches with BGP: FRR ``zebra`` + ``bgpd`` (the rendered ``frr.conf``) + ``staticd`` (static routes,
  as real SONiC's bgp container and Cumulus run it), as user ``frr``, with their own pid files, zserv
  socket and vty socket directory (``frr/``), no vty TCP port. The intent's static routes are not in the
  boot-time ``frr.conf``: like the lossless plan, they are what a push brings (each emulator carries
  them into staticd with vtysh, as the real NOS does);
- every switch and host: ``lldpd`` with its own control socket (``lldpd/lldpd.sock``), tx-interval 1,
  advertising the intent's port names as port IDs;
- hosts: OpenSSH ``sshd`` on the management address, key auth for root, PATH with the NIC tool
  shims and ``XOFF_HOST_ROOT`` set for every session;
- switches: the lab's SSH servers (``python -m xoff.lab.sshd``, one per ~16 switches) driving the NOS emulators;
- InfiniBand: ``ibsim`` and OpenSM in the subnet manager host's namespace, OpenSM with the rendered
  ``opensm.conf``, ``partitions.conf``, ``qos-policy.conf`` and GUID files.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from xoff.desired.models import Device, FabricState
from xoff.lab import credentials, tenant_vrfs
from xoff.lab.ibsim import UMAD2SIM, client_env, host_diag_wrappers, host_nodes, topology
from xoff.lab.netns import NETNS_DIR
from xoff.lab.processes import ProcessSpec, shard_servers
from xoff.lab.state import LabState, write_atomic
from xoff.lab.topology import DevicePlan
from xoff.platforms.frr.render import render_frr_conf
from xoff.platforms.opensm.render import render as render_opensm

ZEBRA = "/usr/lib/frr/zebra"
BGPD = "/usr/lib/frr/bgpd"
STATICD = "/usr/lib/frr/staticd"
FRR_USER = "frr"
LLDPD = "lldpd"
SSHD = "/usr/sbin/sshd"
SSHD_PRIVSEP_DIR = Path("/run/sshd")  # sshd refuses to start without it (Debian's init script makes it)
IBSIM = "ibsim"
OPENSM = "opensm"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SHIMS_MODULE = "xoff.lab.shims"


# What the lab runs, and the Debian package that has it.
TOOLS: dict[str, str] = {
    "ip": "iproute2",
    "ss": "iproute2",
    "unshare": "util-linux",
    ZEBRA: "frr",
    BGPD: "frr",
    STATICD: "frr",
    "vtysh": "frr",
    LLDPD: "lldpd",
    "lldpcli": "lldpd",
    SSHD: "openssh-server",
}
IB_TOOLS: dict[str, str] = {
    IBSIM: "ibsim-utils",
    UMAD2SIM: "ibsim-utils",
    OPENSM: "opensm",
    "sminfo": "infiniband-diags",
}


def missing_tools(infiniband: bool) -> list[str]:
    """``tool (Debian package)`` for every tool the lab needs and this machine lacks."""
    wanted = TOOLS | (IB_TOOLS if infiniband else {})
    found = {
        t: Path(t).exists() if t.startswith("/") else shutil.which(t, path=f"{SYSTEM_PATH}") is not None for t in wanted
    }
    return [f"{t} ({wanted[t]})" for t, ok in found.items() if not ok]


def device_dir(lab_dir: Path, device: str) -> Path:
    return lab_dir / "devices" / device


def frr_dir(lab_dir: Path, device: str) -> Path:
    return device_dir(lab_dir, device) / "frr"


def lldpd_socket(lab_dir: Path, device: str) -> Path:
    return device_dir(lab_dir, device) / "lldpd" / "lldpd.sock"


def state_dir(lab_dir: Path, device: str) -> Path:
    """The emulator's persistent files (configuration, faults.json)."""
    return device_dir(lab_dir, device) / "state"


def shims_bin(lab_dir: Path, device: str) -> Path:
    return device_dir(lab_dir, device) / "bin"


def host_root(lab_dir: Path, device: str) -> Path:
    return device_dir(lab_dir, device) / "root"


def _write_once(path: Path, text: str) -> None:
    """Configuration is written once: a second ``lab up`` keeps what the lab (or a test) changed."""
    if not path.exists():
        write_atomic(path, text)


# --- FRR -----------------------------------------------------------------------------------------


def frr_specs(lab_dir: Path, device: Device, fabric: FabricState, plan: DevicePlan) -> list[ProcessSpec]:
    d = frr_dir(lab_dir, device.name)
    d.mkdir(parents=True, exist_ok=True)
    underlay = device.model_copy(update={"static_routes": []})  # a push brings them (factory = underlay)
    _write_once(d / "frr.conf", render_frr_conf(underlay, fabric))
    _write_once(d / "zebra.conf", tenant_vrfs.zebra_conf(device))
    _write_once(d / "staticd.conf", f"hostname {device.name}\n")
    _write_once(d / "vtysh.conf", "")
    shutil.chown(d, FRR_USER, FRR_USER)  # the daemons drop to user frr and write their pid and socket files here
    common = ["-P", "0", "-z", str(d / "zserv.api"), "--vty_socket", str(d)]
    scratch = d / "vrf-netns"  # zebra's own /run/netns (tenant_vrfs)
    scratch.mkdir(exist_ok=True)
    specs = [
        ProcessSpec(
            key=f"{device.name}/{name}",
            role=name,
            device=device.name,
            netns=plan.netns,
            argv=[binary, "-f", str(d / conf), "-i", str(d / f"{name}.pid"), *common, "--log", f"file:{d / name}.log"],
            log=d / f"{name}.out",
            ready_file=d / ready,
            stale=(d / ready, d / f"{name}.vty", d / f"{name}.pid"),
        )
        for name, binary, conf, ready in (
            ("zebra", ZEBRA, "zebra.conf", "zserv.api"),  # bgpd connects to zebra here
            ("bgpd", BGPD, "frr.conf", "bgpd.vty"),
            ("staticd", STATICD, "staticd.conf", "staticd.vty"),  # registers with zebra like bgpd
        )
    ]
    zebra = specs[0]
    specs[0] = replace(zebra, argv=tenant_vrfs.with_vrf_mounts(device, plan, scratch, zebra.argv))
    return specs


def vtysh_argv(lab_dir: Path, device: str, command: str) -> list[str]:
    d = frr_dir(lab_dir, device)
    return ["vtysh", "--vty_socket", str(d), "--config_dir", str(d), "-c", command]


# --- lldpd ---------------------------------------------------------------------------------------


def lldpd_spec(lab_dir: Path, plan: DevicePlan) -> ProcessSpec:
    d = device_dir(lab_dir, plan.name) / "lldpd"
    d.mkdir(parents=True, exist_ok=True)
    ports = {plan.mgmt_ifname: plan.mgmt_port} | {p.ifname: p.port for p in plan.ports.values()}
    lines = [
        f"# lldpd of {plan.name} in lab {plan.netns}: written by xoff lab up",
        "configure lldp tx-interval 1",
        f'configure system hostname "{plan.name}"',
        f'configure system description "{plan.platform} {plan.role} (xoff lab)"',
        f"configure system ip management pattern {plan.mgmt_address.split('/')[0]}",
        f"configure system interface pattern {','.join(ports)}",
        *(
            f'configure ports {ifname} lldp portidsubtype local "{port}" description "{port}"'
            for ifname, port in ports.items()
        ),
    ]
    _write_once(d / "lldpd.conf", "\n".join(lines) + "\n")
    return ProcessSpec(
        key=f"{plan.name}/lldpd",
        role="lldpd",
        device=plan.name,
        netns=plan.netns,
        argv=[LLDPD, "-d", "-u", str(d / "lldpd.sock"), "-O", str(d / "lldpd.conf")],
        log=d / "lldpd.log",
        ready_file=d / "lldpd.sock",
        stale=(d / "lldpd.sock",),
    )


# --- hosts: OpenSSH + NIC tool shims -------------------------------------------------------------


def host_home(lab_dir: Path, device: str) -> Path:
    return device_dir(lab_dir, device) / "home"


def host_env(lab_dir: Path, device: str) -> dict[str, str]:
    """What every SSH session (and ``lab exec``) on a host gets: the shims first on PATH, the state
    root, a home of its own (hosts do not share ~/.ansible, ~/.bashrc, ...), and the NVML shim's
    ``libnvidia-ml.so.1`` on the library path (GPU hosts)."""
    return {
        "PATH": f"{shims_bin(lab_dir, device)}:{SYSTEM_PATH}",
        "XOFF_HOST_ROOT": str(host_root(lab_dir, device)),
        "HOME": str(host_home(lab_dir, device)),
        "LD_LIBRARY_PATH": str(device_dir(lab_dir, device) / "lib"),  # the NVML shim (xoff.lab.shims.nvml)
    }


def with_hostname(device: str, argv: list[str]) -> list[str]:
    """Run ``argv`` in a UTS namespace of its own whose hostname is the device's (``hostname`` on an
    SSH session says which host it is); ``exec`` keeps the PID."""
    return ["unshare", "--uts", "--", "/bin/sh", "-c", 'hostname "$0" && exec "$@"', device, *argv]


def install_shims(lab_dir: Path, device: Device, server: tuple[Path, Path] | None = None) -> str | None:
    """Install the NIC tool shims if ``xoff.lab.shims`` exists (their wrappers going through the lab's
    shim server, ``server``: its socket and client, when given); else a warning for ``lab status``."""
    bin_dir, root = shims_bin(lab_dir, device.name), host_root(lab_dir, device.name)
    bin_dir.mkdir(parents=True, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    if importlib.util.find_spec(SHIMS_MODULE) is None:
        return f"{SHIMS_MODULE} is not available: hosts have no NIC tool shims (mlnx_qos, nvidia-smi, ...)"
    module = importlib.import_module(SHIMS_MODULE)
    install = getattr(module, "install", None)
    if install is None:
        return f"{SHIMS_MODULE} has no install(): hosts have no NIC tool shims"
    install(bin_dir, root, device, server=server)
    return None


# --- hosts: the shim server ----------------------------------------------------------------------

SHIM_SERVER_READY = "xoff lab shim server: listening"
UNIX_PATH_MAX = 107  # sockaddr_un.sun_path, less its terminating NUL


def shim_server_dir(lab_dir: Path) -> Path:
    return lab_dir / "shim-server"


def shim_server(lab_dir: Path) -> tuple[Path, Path] | None:
    """The lab's shim server socket and the client the hosts' tool wrappers exec (``xoff.lab.shims.server``,
    ``client``), the client built here; None (the wrappers start an interpreter per call, as before) where
    the socket's path is too long for a UNIX socket or there is no C compiler."""
    from xoff.lab.shims import client  # noqa: PLC0415 - only for a lab with hosts

    d = shim_server_dir(lab_dir)
    sock = d / "shims.sock"
    if len(os.fsencode(sock.resolve())) > UNIX_PATH_MAX:
        return None
    built = client.build(d)
    return (sock.resolve(), built.resolve()) if built is not None else None


def shim_server_spec(lab_dir: Path, netns: str) -> ProcessSpec:
    """One warm interpreter for every shim call of the lab's hosts: it forks a child per call. It runs in
    ``netns`` (a host's: each call's child enters its caller's namespaces anyway), so that the lab's
    namespaces hold every process of the lab: a lab whose lab.json is lost is still swept clean."""
    d = shim_server_dir(lab_dir)
    d.mkdir(parents=True, exist_ok=True)
    sock = d / "shims.sock"
    src = str(Path(__file__).resolve().parents[2])  # the directory that holds the xoff package, as the wrappers'
    return ProcessSpec(
        key="lab/shim-server",
        role="shim-server",
        device=None,
        netns=netns,
        argv=[sys.executable, "-S", "-m", "xoff.lab.shims.server", "--socket", str(sock.resolve()), "--netns", netns],
        log=lab_dir / "shim-server.log",
        env={**os.environ, "PYTHONPATH": src},
        ready_text=(lab_dir / "shim-server.log", SHIM_SERVER_READY),
        stale=(sock,),
    )


@functools.cache
def sshd_no_reexec() -> tuple[str, ...]:
    """``-r`` where this OpenSSH takes it (before 9.8, which moved a connection's work into ``sshd-session``):
    without it the listener re-executes itself for every connection (~5 ms of CPU each, 48 hosts per collect
    of the 64-device bench lab); with it each connection is a fork of the listener, config and keys already read."""
    try:
        done = subprocess.run([SSHD, "-V"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return ()
    found = re.search(r"OpenSSH_(\d+)\.(\d+)", done.stdout + done.stderr)
    return ("-r",) if found is not None and (int(found[1]), int(found[2])) < (9, 8) else ()


# The lab hosts' key exchanges, every one computed by OpenSSL; each client xoff uses (paramiko, OpenSSH's ssh) has
# them. Measured per session of the lab's sshd (OpenSSH 9.2, paramiko client, 60 sessions, alternated): 13.5 ms of
# CPU with curve25519-sha256 (paramiko's choice), 11.5 ms with ecdh-sha2-nistp256; 48 sessions per collect.
HOST_KEX = "ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521,diffie-hellman-group16-sha512,diffie-hellman-group14-sha256"

# The lab's SSH servers (hosts' sshd, switches' asyncssh) offer AES-GCM only, so clients take it over their first
# choice (paramiko: aes128-ctr + hmac-sha2-256, a MAC computed and compared in Python per packet). Measured per host
# collect (paramiko, 25 sessions, alternated): controller 11.3 -> 9.7 ms of CPU, sshd ~1 ms less; a switch ~1.5 ms.
LAB_CIPHERS = "aes128-gcm@openssh.com,aes256-gcm@openssh.com"


def sshd_spec(lab_dir: Path, plan: DevicePlan) -> ProcessSpec:
    SSHD_PRIVSEP_DIR.mkdir(mode=0o755, exist_ok=True)
    d = device_dir(lab_dir, plan.name) / "sshd"
    d.mkdir(parents=True, exist_ok=True)
    host_home(lab_dir, plan.name).mkdir(mode=0o700, exist_ok=True)
    env = " ".join(f"{k}={v}" for k, v in host_env(lab_dir, plan.name).items())
    config = f"""\
# sshd of host {plan.name}: written by xoff lab up. Key auth for root only, with the lab's client key.
Port 22
ListenAddress {plan.mgmt_address.split("/")[0]}
HostKey {credentials.host_key(lab_dir, plan.name)}
PidFile {d / "sshd.pid"}
AuthorizedKeysFile {credentials.ssh_dir(lab_dir) / "authorized_keys"}
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
# the lab's files are root's own, under a directory that may be below /tmp in tests
StrictModes no
PrintMotd no
PrintLastLog no
MaxStartups 100:30:200
MaxSessions 50
# key exchange through OpenSSL (P-256), not OpenSSH's own C for X25519 and sntrup761: ~2 ms less CPU per session
KexAlgorithms {HOST_KEX}
Ciphers {LAB_CIPHERS}
SetEnv {env}
Subsystem sftp internal-sftp
"""
    _write_once(d / "sshd_config", config)
    return ProcessSpec(
        key=f"{plan.name}/sshd",
        role="sshd",
        device=plan.name,
        netns=plan.netns,
        argv=with_hostname(plan.name, [SSHD, "-D", "-e", *sshd_no_reexec(), "-f", str(d / "sshd_config")]),
        log=d / "sshd.log",
        ready_text=(d / "sshd.log", "Server listening on"),
        stale=(d / "sshd.pid",),
    )


# --- switches: the lab's SSH server --------------------------------------------------------------

SWITCH_SSH_READY = "xoff lab sshd: listening"


def switch_ssh_processes(switches: int, cpus: int | None = None) -> int:
    """How many SSH server processes serve the lab's switches: one asyncio loop (and one GIL) per
    process, so a push to many switches at once can use every CPU. About one per 16 switches, at most
    two per CPU (a process that waits on file I/O leaves its CPU to another)."""
    cpus = cpus or os.cpu_count() or 1
    return max(1, min(2 * cpus, -(-switches // 16)))


def switch_ssh_specs(lab_dir: Path, switches: int) -> list[ProcessSpec]:
    """The lab's switch SSH servers: process ``i`` of ``n`` serves every n-th switch (``--shard``)."""
    return shard_servers(lab_dir, "switch-ssh", "xoff.lab.sshd", switch_ssh_processes(switches), SWITCH_SSH_READY)


# --- InfiniBand: ibsim + OpenSM on the subnet manager host ---------------------------------------

IBSIM_READY = "Network simulator ready"
OPENSM_READY = "SUBNET UP"


def ib_env(state: LabState) -> dict[str, str]:
    """ibsim clients (OpenSM, infiniband-diags) on the SM host: umad2sim preloaded, attached at the SM's HCA."""
    if state.ib is None:
        return {}
    full = client_env({}, state.ib.sm_node, state.ib.scratch)
    return {k: full[k] for k in ("LD_PRELOAD", "SIM_HOST", "OSM_TMP_DIR", "OSM_CACHE_DIR")}


def ib_specs(lab_dir: Path, fabric: FabricState, sm_host: str, netns: str) -> tuple[list[ProcessSpec], dict[str, str]]:
    """ibsim and OpenSM specs, and the IbRecord fields (sm_node, netfile, scratch, opensm_log)."""
    d = device_dir(lab_dir, sm_host) / "opensm"
    scratch = d / "cache"
    scratch.mkdir(parents=True, exist_ok=True)
    topo = topology(fabric, sm_host)
    netfile = d / "fabric.net"
    _write_once(netfile, topo.text)
    for name, text in render_opensm(fabric.devices[sm_host], fabric, config_dir=str(d)).items():
        _write_once(d / name, text)
    if not Path(UMAD2SIM).exists():
        raise FileNotFoundError(f"{UMAD2SIM} missing: install Debian package ibsim-utils")
    for host, node_id in host_nodes(topo).items():  # each host's own ibstat / sminfo, over its sshd
        for tool, text in host_diag_wrappers(str(NETNS_DIR / netns), node_id, host).items():
            write_atomic(shims_bin(lab_dir, host) / tool, text, mode=0o755)
    env = client_env({"PATH": SYSTEM_PATH}, topo.sm_node, str(scratch))
    log = d / "opensm.log"
    specs = [
        ProcessSpec(
            f"{sm_host}/ibsim",
            "ibsim",
            sm_host,
            netns,
            [IBSIM, "-s", "-n", str(netfile)],
            d / "ibsim.log",
            cwd=d,
            ready_text=(d / "ibsim.log", IBSIM_READY),
        ),
        ProcessSpec(
            f"{sm_host}/opensm",
            "opensm",
            sm_host,
            netns,
            [OPENSM, "-F", str(d / "opensm.conf"), "-f", str(log), "-d2"],  # -d2: flush the log at every line
            d / "opensm.out",
            env=env,
            cwd=d,
            ready_text=(log, OPENSM_READY),
        ),
    ]
    return specs, {"sm_node": topo.sm_node, "netfile": str(netfile), "scratch": str(scratch), "opensm_log": str(log)}
