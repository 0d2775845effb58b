"""The NVUE emulator's configuration side: grammar checks, pending revisions, atomic apply, revisions and
rollback, diff, save, detach, patch; the state shared by sessions and kept on disk."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from cumulus_emu import fabric_file, push, rendered, run, section, session, set_lines

from xoff.lab.emulators.cumulus.store import STATE_FILE
from xoff.platforms.cumulus.nvue import commands


def test_factory_state_is_a_fresh_switch(tmp_path: Path) -> None:
    emu = session(tmp_path)
    assert emu.prompt() == "cumulus@cumulus:mgmt:~$ "
    assert run(emu, "nv config show -o commands").output == "nv set system hostname cumulus\n"
    assert run(emu, "nv config diff").output == ""
    assert "1       applied" in run(emu, "nv config revision").output


def test_factory_state_from_the_fabric_is_the_underlay_only(tmp_path: Path) -> None:
    emu = session(tmp_path / "state", fabric_state=fabric_file(tmp_path))
    assert emu.prompt() == "cumulus@sleaf1:mgmt:~$ "
    text = rendered()["nvue-commands.txt"]
    underlay = [*section(text, "system"), *section(text, "interfaces"), *section(text, "bgp")]
    shown = run(emu, "nv config show -o commands").output.splitlines()
    assert sorted(shown) == sorted(underlay) and underlay
    assert not [line for line in shown if " qos " in line]  # QoS, PFC, ECN, watchdog: factory until push
    assert run(emu, "nv config diff applied startup").output == ""
    # the push then brings exactly the lossless plan
    push(emu, set_lines(text))
    diff = run(emu, "nv config diff -o commands").output.splitlines()
    assert sorted(diff) == sorted(set(set_lines(text)) - set(underlay))
    assert session(tmp_path / "other", device="not-in-fabric", fabric_state=tmp_path / "fabric.json").prompt() == (
        "cumulus@cumulus:mgmt:~$ "
    )


def test_rendered_commands_apply_and_read_back(tmp_path: Path) -> None:
    files = rendered()
    lines = set_lines(files["nvue-commands.txt"])
    emu = session(tmp_path)
    push(emu, lines)
    assert run(emu, "nv config show -o commands").output == "nv set system hostname cumulus\n"  # still pending
    reply = run(emu, "nv config apply -y")
    assert (reply.status, reply.output) == (0, "applied [rev_id: 2]\n")
    shown = run(emu, "nv config show -o commands").output.splitlines()
    assert sorted(shown) == sorted(lines) and len(shown) == len(lines)
    # the tree order NVUE prints is startup.yaml's: the same leaves as the rendered startup file, in order
    startup = yaml.safe_load(files["startup.yaml"])[0]["set"]
    assert shown == commands(startup)
    assert run(emu, "nv config diff").output == ""
    assert session(tmp_path).prompt() == "cumulus@sleaf1:mgmt:~$ "  # the next login shows the new hostname


def test_yaml_show_has_the_startup_shape(tmp_path: Path) -> None:
    emu = session(tmp_path)
    push(emu, set_lines(rendered()["nvue-commands.txt"]))
    run(emu, "nv config apply -y")
    doc = yaml.safe_load(run(emu, "nv config show -o yaml").output)
    assert doc[0]["header"]["nvue-api-version"] == "nvue_v1"
    assert doc[1]["set"] == yaml.safe_load(rendered()["startup.yaml"])[0]["set"]
    as_json = json.loads(run(emu, "nv config show -o json").output)
    assert as_json[1]["set"]["interface"]["swp1"]["link"]["mtu"] == 9100


def test_bad_paths_and_values_are_refused_and_change_nothing(tmp_path: Path) -> None:
    emu = session(tmp_path)
    cases = {
        "nv set interface swp1 link mtu 20000": "Error: Invalid value 20000 for 'mtu': expected integer 552 - 9216\n",
        "nv set interface swp1 link mtu 551": "Error: Invalid value 551 for 'mtu': expected integer 552 - 9216\n",
        "nv set interface swp1 lnk mtu 9000": "Error: Invalid Command: set interface swp1 lnk\n",
        "nv set interface swp1 link": "Error: Incomplete Command: set interface swp1 link\n",
        "nv set qos pfc p1 tx maybe": "Error: Invalid value maybe for 'tx': expected one of enable, disable\n",
        "nv set interface Ethernet0 link mtu 9000": "Error: Invalid Command: set interface Ethernet0\n",
        "nv set interface swp1 ip address 10.0.0.1": "Error: Invalid Command: set interface swp1 ip address 10.0.0.1\n",
        "nv frobnicate": "Error: Invalid Command: frobnicate\n",
    }
    for line, message in cases.items():
        assert (run(emu, line).status, run(emu, line).output) == (1, message), line
    assert run(emu, "nv config diff").output == ""


def test_apply_is_atomic(tmp_path: Path) -> None:
    emu = session(tmp_path)
    push(emu, ["nv set interface swp1 link mtu 9000", "nv set interface swp1 qos pfc profile missing"])
    reply = run(emu, "nv config apply -y")
    assert reply.status == 1
    assert reply.output == (
        "Invalid config [rev_id: 2]\n  interface swp1 qos pfc profile: profile 'missing' does not exist\n"
    )
    assert "mtu" not in run(emu, "nv config show -o commands").output  # nothing of the revision applied
    push(emu, ["nv set qos pfc missing switch-priority 3", "nv set qos pfc missing tx enable"])
    assert run(emu, "nv config apply --assume-yes").output == "applied [rev_id: 2]\n"
    assert "nv set interface swp1 link mtu 9000" in run(emu, "nv config show -o commands").output


def test_semantic_checks(tmp_path: Path) -> None:
    emu = session(tmp_path)
    push(
        emu,
        [
            "nv set qos congestion-control default-global traffic-class 3 min-threshold 500",
            "nv set qos congestion-control default-global traffic-class 3 max-threshold 100",
            "nv set qos egress-scheduler default-global traffic-class 0 bw-percent 60",
            "nv set qos egress-scheduler default-global traffic-class 1 bw-percent 50",
            "nv set interface swp2 qos pfc-watchdog state enable",
            "nv set vrf default router bgp neighbor 198.19.0.1 remote-as 65100",
        ],
    )
    out = run(emu, "nv config apply -y").output.splitlines()
    assert out[0] == "Invalid config [rev_id: 2]" and len(out) == 5
    assert any("min-threshold 500 is greater than max-threshold 100" in line for line in out)
    assert any("total 110" in line for line in out)
    assert any("PFC is not enabled on swp2" in line for line in out)
    assert any("autonomous-system is not set" in line for line in out)


def test_revisions_history_and_rollback(tmp_path: Path) -> None:
    emu = session(tmp_path)
    push(emu, ["nv set interface swp1 link mtu 9000"])
    assert run(emu, "nv config apply -y -m first").output == "applied [rev_id: 2]\n"
    push(emu, ["nv set interface swp1 link mtu 4000", "nv set interface swp2 link state up"])
    assert run(emu, "nv config apply -y").output == "applied [rev_id: 3]\n"
    assert run(emu, "nv config diff 2 3 -o commands").output == (
        "nv set interface swp1 link mtu 4000\nnv set interface swp2 link state up\n"
    )
    assert run(emu, "nv config diff 3 2 -o commands").output == (
        "nv unset interface swp2\nnv set interface swp1 link mtu 9000\n"
    )
    assert run(emu, "nv config apply 2 -y").output == "applied [rev_id: 2]\n"  # rollback to the previous revision
    assert "mtu 9000" in run(emu, "nv config show -o commands").output
    history = run(emu, "nv config history").output.splitlines()
    assert [line.split()[0] for line in history[2:]] == [
        "rev_1_apply_1",
        "rev_2_apply_1",
        "rev_3_apply_1",
        "rev_2_apply_2",
    ]
    assert "first" in history[3]
    revisions = run(emu, "nv config revision").output
    assert revisions.splitlines()[0].split() == ["Rev", "ID", "State", "Apply", "Date", "User", "Message"]
    assert run(emu, "nv config apply 1 -y").output == "applied [rev_id: 1]\n"  # back to factory
    assert run(emu, "nv config show -o commands").output == "nv set system hostname cumulus\n"
    assert run(emu, "nv config apply 99 -y").output == "Error: Invalid revision: 99\n"


def test_diff_yaml_unset_detach_save(tmp_path: Path) -> None:
    emu = session(tmp_path)
    push(emu, ["nv set interface swp1 link mtu 9000", "nv set interface swp1 ip address 198.19.0.0/31"])
    assert run(emu, "nv config diff").output == (
        "- set:\n    interface:\n      swp1:\n        link:\n          mtu: 9000\n"
        "        ip:\n          address:\n            '198.19.0.0/31': {}\n"
    )
    push(emu, ["nv set interface swp2 link mtu 1500"])
    run(emu, "nv config apply -y")
    push(emu, ["nv unset interface swp1 ip address 198.19.0.0/31", "nv unset interface swp1 link mtu 9000"])
    assert run(emu, "nv config diff").output == "- unset:\n    interface:\n      swp1:\n"
    assert run(emu, "nv config diff -o commands").output == "nv unset interface swp1\n"
    assert run(emu, "nv config detach").output == ""
    assert run(emu, "nv config diff").output == ""  # the detached revision is no longer pending
    assert "detached" in run(emu, "nv config revision").output
    assert run(emu, "nv config save").output == "saved [rev_id: applied]\n"
    assert run(emu, "nv config diff applied startup").output == ""


def test_patch_and_replace_from_a_file_on_the_switch(tmp_path: Path) -> None:
    emu = session(tmp_path)
    text = rendered()["nvue-commands.txt"]
    run(emu, "cat > /tmp/cfg.txt <<EOF")
    for line in text.splitlines():
        run(emu, line)
    run(emu, "EOF")
    assert run(emu, "nv config replace /tmp/cfg.txt").output == ""
    assert run(emu, "nv config apply -y").status == 0
    assert sorted(run(emu, "nv config show -o commands").output.splitlines()) == sorted(set_lines(text))
    startup = tmp_path / "files" / "home" / "cumulus" / "startup.yaml"
    startup.write_text(rendered()["startup.yaml"], encoding="utf-8")
    push(emu, ["nv unset qos"])
    assert run(emu, "nv config patch ~/startup.yaml").output == ""
    assert run(emu, "nv config diff").output == ""
    (tmp_path / "files" / "tmp" / "bad.txt").write_text("nv set interface swp1 link mtu 1\n", encoding="utf-8")
    assert run(emu, "nv config patch /tmp/bad.txt").output.startswith("Error: Invalid value 1 for 'mtu'")


def test_state_is_shared_by_sessions_and_kept_on_disk(tmp_path: Path) -> None:
    one, two = session(tmp_path), session(tmp_path)
    push(one, ["nv set interface swp3 link mtu 1500"])
    assert "mtu: 1500" in run(two, "nv config diff").output  # one pending revision per user
    run(two, "nv config apply -y")
    assert "nv set interface swp3 link mtu 1500" in run(one, "nv config show -o commands").output
    assert json.loads((tmp_path / STATE_FILE).read_text(encoding="utf-8"))["applied"] == 2
