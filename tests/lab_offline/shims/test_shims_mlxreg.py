"""mlxreg shim: MFT's access-register tool for ROCE_ACCL as mstflint's mlxreg_ui.cpp prints it (the GET table, the
SET confirmation, ``-E-`` errors on stderr with exit 1), its per-device register state, and the collector's parser
reading what it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.shim_host import ShimHost
from xoff.desired.models import RoceAccl
from xoff.platforms.linux.roce_accl import parse_roce_accl

GET = ("--reg_name", "ROCE_ACCL", "--get")


@pytest.fixture
def host(tmp_path: Path) -> ShimHost:
    return ShimHost(tmp_path)


def test_get_prints_the_factory_register(host: ShimHost) -> None:
    text = host.ok("mlxreg", "-d", "mlx5_0", *GET)
    lines = text.splitlines()
    assert lines[:2] == ["Sending access register...", ""]
    assert lines[2] == f"{'Field Name':<46} | Data    " and lines[3] == "=" * 60 == lines[-1]
    assert f"{'roce_adp_retrans_en':<46} | 0x00000001" in lines
    register = parse_roce_accl(text)
    assert register.fields == RoceAccl(
        adaptive_retransmission=True,
        tx_window=False,
        slow_restart=True,
        slow_restart_idle=False,
        adaptive_routing_forced=False,
    )
    assert "ack_dscp" in register.unmodelled


def test_set_with_yes_confirms_and_changes_one_device(host: ShimHost) -> None:
    data = "roce_tx_window_en=0x1,roce_slow_restart_en=0,adaptive_routing_forced_en=1"
    text = host.ok("mlxreg", "-d", "mlx5_0", "--reg_name", "ROCE_ACCL", "--set", data, "--yes")
    assert text.startswith("You are about to send access register: ROCE_ACCL with the following data:\n")
    assert text.endswith("\n Do you want to continue ? (y/n) [n] : y\n Sending access register...\n")
    assert parse_roce_accl(host.ok("mlxreg", "-d", "mlx5_0", *GET)).fields.adaptive_routing_forced is True
    assert parse_roce_accl(host.ok("mlxreg", "-d", "mlx5_1", *GET)).fields.adaptive_routing_forced is False
    state = host.state()["roce_accl"]["mlx5_0"]
    assert (state["roce_tx_window_en"], state["roce_slow_restart_en"]) == (1, 0)


def test_one_bit_field_keeps_the_low_bit(host: ShimHost) -> None:
    host.ok("mlxreg", "-d", "mlx5_0", "--reg_name", "ROCE_ACCL", "--set", "adaptive_routing_forced_en=2", "--yes")
    assert host.state()["roce_accl"]["mlx5_0"]["adaptive_routing_forced_en"] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (GET, "-E- you must provide a device name\n"),
        (("-d", "mlx5_0", "--reg_name", "ROCE_ACCL"), "-E- no operation flag, please read help\n"),
        (("-d", "mlx5_9", *GET), '-E- Failed to open device: "mlx5_9", No such file or directory\n'),
        (
            ("-d", "mlx5_0", "--reg_name", "ROCE_ACCL", "--set", "roce_bogus=1", "--yes"),
            '-E- Can\'t find field name: "roce_bogus"\n',
        ),
        (
            ("-d", "mlx5_0", "--reg_name", "ROCE_ACCL", "--set", "roce_tx_window_en=on", "--yes"),
            "-E- Argument: on is invalid.\n",
        ),
        (
            ("-d", "mlx5_0", "--reg_name", "ROCE_ACCL", "--set", "roce_tx_window_en", "--yes"),
            "-E- Argument: roce_tx_window_en is invalid\n",
        ),
        (
            ("-d", "mlx5_0", "--get", "--set", "roce_tx_window_en=1"),
            "-E- incompatible flags combination, please read help\n",
        ),
    ],
)
def test_refusals(host: ShimHost, args: tuple[str, ...], message: str) -> None:
    before = host.state()["roce_accl"]
    r = host.run("mlxreg", *args)
    assert (r.rc, r.stdout, r.stderr) == (1, "", message), r
    assert host.state()["roce_accl"] == before


def test_without_yes_a_no_sends_nothing(host: ShimHost) -> None:
    import subprocess

    proc = subprocess.run(
        ["mlxreg", "-d", "mlx5_0", "--reg_name", "ROCE_ACCL", "--set", "adaptive_routing_forced_en=1"],
        env=host.env(),
        input="n\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and "Sending access register" not in proc.stdout
    assert host.state()["roce_accl"]["mlx5_0"]["adaptive_routing_forced_en"] == 0
