"""mlnx_qos shim: the output of mlnx-tools' pretty_print (fixtures in tests/fixtures/host-tools/mlnx_qos),
the DCB app-table behaviour of the kernel and mlx5 driver underneath (trust follows the DSCP entries,
a re-set DSCP moves to the front of its line), and the real tool's refusals: message, stream, status."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.shim_host import ShimHost, fixture

USAGE = "Usage: mlnx_qos -i <interface> [options]\n\n"


@pytest.fixture
def host(tmp_path: Path) -> ShimHost:
    return ShimHost(tmp_path)


def test_output_formats(host: ShimHost) -> None:
    assert host.ok("mlnx_qos", "-i", "eth0") == fixture("mlnx_qos", "factory.stdout")
    assert host.ok("mlnx_qos", "-i", "eth0", "--trust", "dscp") == fixture("mlnx_qos", "trust-dscp.stdout")
    assert host.ok("mlnx_qos", "-i", "eth0", "--dscp2prio", "set,40,5") == fixture(
        "mlnx_qos", "dscp2prio-set-40-5.stdout"
    )
    assert host.ok("mlnx_qos", "-i", "eth0", "--pfc", "0,0,0,1,0,0,0,0") == fixture("mlnx_qos", "pfc-priority-3.stdout")
    ets = ("-p", "0,1,2,3,4,5,6,7", "-s", "ets,ets,ets,ets,strict,strict,strict,strict", "-t", "10,10,50,30,0,0,0,0")
    assert host.ok("mlnx_qos", "-i", "eth0", *ets, "-r", "0,0,0,0,0,0,25,0", "-a") == fixture(
        "mlnx_qos", "ets-ratelimit.stdout"
    )


def test_real_format_anchors(host: ShimHost) -> None:
    """Lines as the real tool prints them (mlnx-tools pretty_print; public captures of ConnectX hosts)."""
    text = host.ok("mlnx_qos", "-i", "eth0", "--trust", "dscp")
    lines = text.splitlines()
    assert lines[:3] == ["DCBX mode: OS controlled", "Priority trust state: dscp", "dscp2prio mapping:"]
    assert lines[3:11] == [
        f"\tprio:{p} dscp:" + "".join(f"{d:02d}," for d in range(8 * p + 7, 8 * p - 1, -1)) for p in range(8)
    ]
    assert "\tpriority    0   1   2   3   4   5   6   7" in lines
    assert "\tenabled     0   0   0   0   0   0   0   0   " in lines
    assert lines[-16:-12] == [
        "tc: 0 ratelimit: unlimited, tsa: vendor",
        "\t priority:  1",
        "tc: 1 ratelimit: unlimited, tsa: vendor",
        "\t priority:  0",
    ]


def test_dscp_map_is_the_app_table(host: ShimHost) -> None:
    # from pcp, one mapping adds one entry: the port trusts dscp with that entry only (mlx5 setapp)
    text = host.ok("mlnx_qos", "-i", "eth1", "--dscp2prio", "set,26,3")
    assert "Priority trust state: dscp\ndscp2prio mapping:\n\tprio:3 dscp:26,\nReceive" in text
    # deleting the last entry goes back to pcp; a delete must name the current mapping
    r = host.run("mlnx_qos", "-i", "eth1", "--dscp2prio", "del,26,4")
    assert (r.rc, r.stdout) == (1, "dscp2prio command failed\n"), r
    assert "trust state: pcp" in host.ok("mlnx_qos", "-i", "eth1", "--dscp2prio", "del,26,3")
    # --trust dscp installs the firmware's 64 defaults; more than 8 DSCPs on a priority wrap at 8 per line
    host.ok("mlnx_qos", "-i", "eth1", "--trust", "dscp")
    for d in range(8, 16):
        host.ok("mlnx_qos", "-i", "eth1", "--dscp2prio", f"set,{d},0")
    text = host.ok("mlnx_qos", "-i", "eth1")
    assert "\tprio:0 dscp:15,14,13,12,11,10,09,08,\n\tprio:0 dscp:07,06,05,04,03,02,01,00,\n\tprio:2" in text
    # flush and --trust pcp delete every entry
    assert "trust state: pcp" in host.ok("mlnx_qos", "-i", "eth1", "--dscp2prio", "flush")
    host.ok("mlnx_qos", "-i", "eth1", "--trust", "dscp")
    assert "dscp2prio" not in host.ok("mlnx_qos", "-i", "eth1", "--trust", "pcp")
    assert host.state()["dcb"]["eth1"]["fw_dscp2prio"] == [0] * 64  # mlx5 delapp resets each to 0


def test_pfc_moves_lossless_priorities_to_buffer_1(host: ShimHost) -> None:
    lines = host.ok("mlnx_qos", "-i", "eth2", "--pfc", "0,0,0,0,1,0,0,0").splitlines()
    assert "\tbuffer      0   0   0   0   1   0   0   0   " in lines
    assert host.ok("mlnx_qos", "-i", "eth2", "-P", "4") == "1\n"
    assert host.run("mlnx_qos", "-i", "eth2", "-F", "x,x,x,x,0,x,x,1").stdout == ""  # silent, exit 0
    assert "\tenabled     0   0   0   0   0   0   0   1   " in host.ok("mlnx_qos", "-i", "eth2")
    assert "Cable len: 40" in host.ok("mlnx_qos", "-i", "eth2", "--cable_len", "40")


@pytest.mark.parametrize(
    ("args", "rc", "stdout", "stderr"),
    [
        ([], 1, "Interface name is required\n" + USAGE, ""),
        (["-i", "eth0", "extra"], 1, "Bad arguments\n" + USAGE, ""),
        (["-i", "eth0", "--pfc", "0,0,0,1"], 1, "pfc list must have 8 items\n", ""),
        (["-i", "eth0", "--pfc", "0,0,0,1,0,0,0,0,0"], 1, "Too many items for PFC\n", ""),
        (["-i", "eth0", "--pfc", "0,0,0,2,0,0,0,0"], 1, "Bad value for PFC: 2 is not in the range 0..1\n" + USAGE, ""),
        (
            ["-i", "eth0", "--pfc", "0,0,0,on,0,0,0,0"],
            1,
            "Bad value for PFC: invalid literal for int() with base 10: 'on'\n" + USAGE,
            "",
        ),
        (["-i", "eth0", "--trust", "ip"], 1, "Invalid trust state command. Refer to the help.\n", ""),
        (
            ["-i", "eth0", "--trust", "dscp", "--dscp2prio", "set,26,3"],
            1,
            "trust and dscp2prio commands cannot be used at the same time.\n",
            "",
        ),
        (["-i", "eth0", "--dscp2prio", "set,26"], 1, "Invalid dscp2prio command. Refer to the help.\n", ""),
        (["-i", "eth0", "--dscp2prio", "set,26,x"], 1, "Invalid dscp2prio command. Refer to the help.\n", ""),
        (["-i", "eth0", "--dscp2prio", "set,64,3"], 1, "", ""),  # sys.exit(1) inside the try: no message
        (["-i", "eth0", "--dscp2prio", "put,26,3"], 1, "", ""),
        (["-i", "eth0", "--dscp2prio", "set,-1,3"], 1, "dscp2prio command failed\n", ""),  # struct.pack fails
        (["-i", "eth0", "-d", "auto"], 1, "Invalid dcbx mode command. Refer to the help.\n", ""),
        (["-i", "eth0", "-P", "9"], 1, "pfc index must be in range of 0-7\n", ""),
        (["-i", "eth0", "-F", "x,1"], 1, "pfc list must have 8 items\n", ""),
        (["-i", "eth0", "-s", "ets,fifo"], 1, "('Bad TSA value: ', 'fifo')\n" + USAGE, ""),
        (
            ["-i", "eth0", "-s", "ets,ets,ets,ets,ets,ets,ets,ets", "-t", "10,10,10,10,10,10,10,10"],
            1,
            "Netlink error: Bad value. see dmesg.\n",
            "",
        ),
        (["-i", "eth0", "-t", "100,0,0,0,0,0,0,0"], 1, "ETS BW for a strict/vendor TC must be 0\n" + USAGE, ""),
        (["-i", "eth0", "-p", "0,1,2"], 1, "prio_tc list must have 8 items\n", ""),
        (
            ["-i", "eth0", "--prio2buffer", "0,9"],
            1,
            "Bad value for prio buffer: 9 is not in the range 0..7\n" + USAGE,
            "",
        ),
        (["-i", "eth0", "--buffer_size", "100,x"], 1, "Buffers commands error\n", ""),
        (["-i", "eth0", "--buffer_size", "9999999"], 1, "Buffers commands error\n", ""),
        (["-i", "eth0", "-r", "1,2"], 1, "ratelimit must have 8 items\n", ""),
        (["-i", "eth0", "--foo"], 2, "", USAGE + "mlnx_qos: error: no such option: --foo\n"),
        (["-i"], 2, "", USAGE + "mlnx_qos: error: -i option requires 1 argument\n"),
        (["-i", "eth0", "--defltprio", "set,2"], 2, "", USAGE + "mlnx_qos: error: no such option: --defltprio\n"),
    ],
)
def test_refusals(host: ShimHost, args: list[str], rc: int, stdout: str, stderr: str) -> None:
    before = host.state()
    r = host.run("mlnx_qos", *args)
    assert (r.rc, r.stdout, r.stderr) == (rc, stdout, stderr), r
    assert host.state()["dcb"]["eth0"] == before["dcb"]["eth0"]  # a refused command changes nothing


def test_version_and_help(host: ShimHost) -> None:
    assert host.ok("mlnx_qos", "--version") == "mlnx_qos 1.2\n"
    assert host.ok("mlnx_qos", "-h").startswith(USAGE + "Options:\n")


def test_a_port_without_dcb(host: ShimHost) -> None:
    """A netdev that is not a ConnectX port: the netlink calls fail as they do on a veth or a typo."""
    r = host.run("mlnx_qos", "-i", "eno1")
    assert (r.rc, r.stderr) == (1, ""), r
    assert r.stdout == (
        "Priority trust state is not supported on your system\n"
        "Buffers commands are not supported on your system\n"
        "Rate limit is not supported on your system!\n"
        "ETS features are not supported on your system\n"
    )
    r = host.run("mlnx_qos", "-i", "eno1", "--trust", "dscp")
    assert (r.rc, r.stdout) == (1, "Priority trust state is not supported on your system\n"), r
    # the real tool's --pfc error path concatenates str + OSError and dies with a TypeError
    r = host.run("mlnx_qos", "-i", "eno1", "--pfc", "0,0,0,1,0,0,0,0")
    assert r.rc == 1 and r.stderr.splitlines()[-1] == 'TypeError: can only concatenate str (not "OSError") to str', r
    r = host.run("mlnx_qos", "-i", "nosuch0", "-P", "3")  # no such netdev at all: ENODEV
    assert r.rc == 1 and r.stderr.splitlines()[-1].startswith("OSError: Netlink error: No such device (19)"), r


def test_a_read_leaves_the_state_file_alone_and_a_change_rewrites_it(host: ShimHost) -> None:
    """A query opens the state for writing (the options may set something) and writes back only a change."""
    state = host.root / "var/lib/xoff-shims/state.json"
    before = (state.read_bytes(), state.stat().st_ino)
    host.ok("mlnx_qos", "-i", "eth0")
    host.ok("mlnx_qos", "-i", "eth0", "--trust", "pcp")  # the factory's trust: set to what it is
    assert (state.read_bytes(), state.stat().st_ino) == before
    host.ok("mlnx_qos", "-i", "eth0", "--trust", "dscp")
    assert state.read_bytes() != before[0]
    assert "Priority trust state: dscp" in host.ok("mlnx_qos", "-i", "eth0")
