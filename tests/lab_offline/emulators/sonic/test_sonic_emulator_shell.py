"""The SONiC shell: bash's and click's errors, sudo, files, exit."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.sonic_emu import run
from xoff.lab.emulators.sonic import Emulator

Session = Callable[..., Emulator]


def test_unknown_commands_answer_like_bash_and_click(session: Session) -> None:
    emulator = session()
    assert (run(emulator, "foo").output, run(emulator, "foo").status) == ("-bash: foo: command not found\n", 127)
    assert run(emulator, "sudo foo").output == "sudo: foo: command not found\n"
    reply = run(emulator, "show foo")
    assert reply.status == 2
    assert (
        reply.output
        == 'Usage: show [OPTIONS] COMMAND [ARGS]...\nTry "show -h" for help.\n\nError: No such command "foo".\n'
    )
    reply = run(emulator, "show interfaces foo")
    assert reply.output.startswith("Usage: show interfaces [OPTIONS] COMMAND [ARGS]...\n")
    assert reply.output.endswith('Error: No such command "foo".\n')
    reply = run(emulator, "sudo config foo")
    assert (
        reply.output
        == 'Usage: config [OPTIONS] COMMAND [ARGS]...\nTry "config -h" for help.\n\nError: No such command "foo".\n'
    )
    reply = run(emulator, "sudo config apply-patch")
    assert reply.output.endswith('Error: Missing argument "PATCH_FILE_PATH".\n')
    assert run(emulator, "show version --bogus").output.endswith("Error: no such option: --bogus\n")
    assert run(emulator, "show p").output.endswith("Error: Too many matches: pfc, pfcwd, priority-group\n")


def test_abbreviations_resolve_like_sonic(session: Session) -> None:
    emulator = session()
    assert run(emulator, "show int status").output == run(emulator, "show interfaces status").output
    assert run(emulator, "sudo config list").output == "[]\n"


def test_config_needs_root(session: Session) -> None:
    emulator = session()
    assert run(emulator, "config save -y").output == "Root privileges are required for this operation\n"
    assert run(emulator, "config foo").output.endswith('Error: No such command "foo".\n')  # resolved first
    assert run(emulator, "config").output.startswith("Usage: config [OPTIONS] COMMAND [ARGS]...\n")
    assert run(emulator, "sudo -i").output == ""
    assert emulator.prompt() == "root@leaf1:~# "
    assert run(emulator, "whoami").output == "root\n"
    assert run(emulator, "config save -y").status == 0
    assert run(emulator, "exit").close is False
    assert emulator.prompt() == "admin@leaf1:~$ "
    assert run(emulator, "exit").close is True


def test_files_heredoc_pipes_and_operators(session: Session) -> None:
    emulator = session(pty=True)
    for line in [
        "cat > /tmp/p.json <<'EOF'",
        '[{"op": "replace",',
        ' "path": "/PORT/Ethernet0/mtu", "value": "9000"}]',
    ]:
        assert run(emulator, line).output == ""
        assert emulator.prompt() == "> "
    run(emulator, "EOF")
    assert emulator.prompt() == "admin@leaf1:~$ "
    assert run(emulator, "sudo config apply-patch /tmp/p.json | tail -n 1").output == "Patch applied successfully.\r\n"
    assert emulator.running()["PORT"]["Ethernet0"]["mtu"] == "9000"
    assert run(emulator, "show interfaces status | grep -c Ethernet0 ; echo done").output.endswith("done\r\n")
    assert run(emulator, "false && echo no || echo yes").output == "yes\r\n"
    run(emulator, "echo hello > note.txt")
    assert run(emulator, "cat note.txt").output == "hello\r\n"
    assert run(emulator, "cat nope").output == "cat: nope: No such file or directory\r\n"
    assert run(emulator, "cd /etc/sonic ; pwd").output == "/etc/sonic\r\n"
    assert emulator.prompt() == "admin@leaf1:/etc/sonic$ "


def test_exec_channel_runs_one_command_with_plain_line_ends(session: Session) -> None:
    emulator = session()
    reply = emulator.execute("show interfaces status")
    assert "\r" not in reply.output and reply.output.startswith("  Interface")
