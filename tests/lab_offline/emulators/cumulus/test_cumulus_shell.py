"""The NVUE emulator's shell, show commands and fault hooks."""

from __future__ import annotations

import json
from pathlib import Path

from cumulus_emu import push, rendered, run, session, set_lines

from xoff.lab.emulators.base import SessionFaults


def test_shell_basics(tmp_path: Path) -> None:
    emu = session(tmp_path)
    assert run(emu, "whoami").output == "cumulus\n"
    assert run(emu, "ls").output == "-bash: ls: command not found\n" and run(emu, "ls").status == 127
    assert run(emu, "false && echo no || echo yes").output == "yes\n"
    assert run(emu, "nv config show -o commands | grep hostname").output == "nv set system hostname cumulus\n"
    run(emu, "sudo -i")
    assert emu.prompt() == "root@cumulus:mgmt:~# "
    assert run(emu, "exit").close is False and emu.prompt().startswith("cumulus@")
    assert run(emu, "exit").close is True


def test_terminal_line_ends(tmp_path: Path) -> None:
    emu = session(tmp_path)
    emu.exec_mode = False
    assert run(emu, "echo a; echo b").output == "a\r\nb\r\n"
    assert emu.banner().startswith("Linux cumulus ")


def test_show_interface_json(tmp_path: Path) -> None:
    emu = session(tmp_path)
    push(emu, set_lines(rendered()["nvue-commands.txt"]))
    run(emu, "nv config apply -y")
    data = json.loads(run(emu, "nv show interface -o json").output)
    assert data["swp1"] == {  # the summary's keys only
        "type": "swp",
        "link": {"oper-status": "up", "admin-status": "up", "speed": "100G", "mtu": 9100},
        "ip": {"address": {"198.19.0.0/31": {}}},
    }
    assert data["swp5"]["link"]["admin-status"] == "down"
    assert data["lo"] == {"type": "loopback", "link": {"oper-status": "up", "admin-status": "up"},
                          "ip": {"address": {"198.19.255.1/32": {}}}}  # fmt: skip
    one = json.loads(run(emu, "nv show interface swp3 -o json").output)
    assert one["qos"]["pfc"]["profile"] == "pfc-sp4-10m" and one["link"]["state"] == {"up": {}}
    assert run(emu, "nv show interface swp99 -o json").status == 1


def test_show_qos_bgp_system(tmp_path: Path) -> None:
    emu = session(tmp_path)
    push(emu, set_lines(rendered()["nvue-commands.txt"]))
    assert json.loads(run(emu, "nv show qos pfc -o json").output) == {}  # pending only
    assert "pfc-sp4-5m" in json.loads(run(emu, "nv show --pending qos pfc -o json").output)
    run(emu, "nv config apply -y")
    pfc = json.loads(run(emu, "nv show qos pfc -o json").output)
    assert pfc["pfc-sp4-10m"] == {"switch-priority": {"4": {}}, "tx": "enable", "rx": "enable", "cable-length": 10}
    ecn = json.loads(run(emu, "nv show qos congestion-control -o json").output)
    assert ecn["default-global"]["traffic-class"]["4"]["min-threshold"] == 150000
    assert json.loads(run(emu, "nv show qos roce -o json").output) == {"enable": "off"}
    assert json.loads(run(emu, "nv show router bgp -o json").output)["autonomous-system"] == 65201
    assert json.loads(run(emu, "nv show system -o json").output)["hostname"] == "sleaf1"
    assert json.loads(run(emu, "nv show vrf default router bgp neighbor -o json").output) == {}
    assert run(emu, "nv show qos frob").output == "Error: Invalid Command: show qos frob\n"
    table = run(emu, "nv show qos pfc-watchdog").output.splitlines()
    assert table[0].split() == ["applied"] and table[2].split() == ["polling-interval", "200"]


def test_fault_reject_nth(tmp_path: Path) -> None:
    SessionFaults(reject_nth=2).save(tmp_path)
    emu = session(tmp_path)
    assert run(emu, "nv set interface swp1 link mtu 9000").status == 0
    reply = run(emu, "nv set interface swp2 link mtu 9000")
    assert reply.status == 1 and reply.output.startswith("Error: rejected by the lab's fault hook")
    assert run(emu, "nv config apply -y").status == 0
    assert "swp2" not in run(emu, "nv config show -o commands").output


def test_fault_reject_apply(tmp_path: Path) -> None:
    SessionFaults(reject_nth=2).save(tmp_path)
    emu = session(tmp_path)
    run(emu, "nv set interface swp1 link mtu 9000")
    assert run(emu, "nv config apply -y").status == 1
    assert "mtu" not in run(emu, "nv config show -o commands").output


def test_fault_drop_after_and_delay(tmp_path: Path) -> None:
    SessionFaults(drop_after=1, delay_ms=20).save(tmp_path)
    emu = session(tmp_path)
    assert run(emu, "nv set interface swp1 link mtu 9000").close is False
    assert run(emu, "nv config apply -y").close is True  # the session is cut before the apply runs
    assert "mtu" not in session(tmp_path).nv.run(["config", "show", "-o", "commands"]).output
