"""Exec sessions check a host's key against the known_hosts entries for that host, parsed once per file
version: the same entries paramiko's own load_host_keys gives for the name it looks up. netmiko (push's Nornir
sessions) is given a file with only those entries."""

from __future__ import annotations

import hashlib
import hmac
from base64 import b64encode
from pathlib import Path

import asyncssh
import paramiko  # type: ignore[import-untyped]

from xoff.connect.channel import known_hosts_for, load_host_keys
from xoff.connect.credentials import Credentials, CredentialSet
from xoff.connect.nornir_inventory import CONNECTION, build_nornir
from xoff.connect.options import connect_handler_args
from xoff.connect.session import ConnectSpec, handler_args
from xoff.connect.targets import Target


def _key() -> str:
    return asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()


def _hashed(host: str) -> str:
    salt = b"0123456789abcdef0123"
    digest = hmac.new(salt, host.encode(), hashlib.sha1).digest()
    return f"|1|{b64encode(salt).decode()}|{b64encode(digest).decode()}"


def test_the_entries_paramiko_would_check(tmp_path: Path) -> None:
    keys = [_key() for _ in range(4)]
    known = tmp_path / "known_hosts"
    known.write_text(
        f"spine1,198.18.0.1 {keys[0]}\n[198.18.0.2]:2222 {keys[1]}\n{_hashed('198.18.0.3')} {keys[2]}\nother {keys[3]}\n",
        encoding="utf-8",
    )
    for address, port in [("198.18.0.1", 22), ("198.18.0.2", 2222), ("198.18.0.3", 22), ("198.18.0.2", 22), ("x", 22)]:
        mine, theirs = paramiko.SSHClient(), paramiko.SSHClient()
        load_host_keys(mine, known, address, port)
        theirs.load_host_keys(str(known))
        name = address if port == 22 else f"[{address}]:{port}"
        want = theirs.get_host_keys().lookup(name)
        got = mine.get_host_keys().lookup(name)
        assert (dict(got) if got else None) == (dict(want) if want else None), name
    assert mine.get_host_keys().lookup("x") is None  # unknown: RejectPolicy refuses it


def test_a_rewritten_file_is_read_again(tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    first, second = _key(), _key()
    known.write_text(f"h1 {first}\n", encoding="utf-8")
    a = paramiko.SSHClient()
    load_host_keys(a, known, "h1", 22)
    known.write_text(f"h1 {second}\nh2 {second}\n", encoding="utf-8")
    b = paramiko.SSHClient()
    load_host_keys(b, known, "h1", 22)
    assert a.get_host_keys().lookup("h1") != b.get_host_keys().lookup("h1")
    assert b.get_host_keys().lookup("h1")["ssh-ed25519"].get_base64() == second.split()[1]


def test_netmiko_gets_a_file_of_the_entries_paramiko_would_check(tmp_path: Path) -> None:
    keys = [_key() for _ in range(4)]
    known = tmp_path / "known_hosts"
    known.write_text(
        f"spine1,198.18.0.1 {keys[0]}\n[198.18.0.2]:2222 {keys[1]}\n{_hashed('198.18.0.3')} {keys[2]}\nother {keys[3]}\n",
        encoding="utf-8",
    )
    whole = paramiko.HostKeys(str(known))
    for address, port in [("198.18.0.1", 22), ("198.18.0.2", 2222), ("198.18.0.3", 22), ("198.18.0.2", 22)]:
        name = address if port == 22 else f"[{address}]:{port}"
        own = known_hosts_for(known, address, port)
        client = paramiko.SSHClient()
        client.load_host_keys(str(own))  # what netmiko does with alt_key_file
        want, got = whole.lookup(name), client.get_host_keys().lookup(name)
        assert (dict(got) if got else None) == (dict(want) if want else None), name
        assert len(client.get_host_keys()) <= 1, "that host's entries only"
    assert known_hosts_for(known, "198.18.0.1", 22) == known_hosts_for(known, "198.18.0.1", 22)  # written once


def test_push_inventory_names_each_hosts_own_file(tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    known.write_text(f"198.18.0.1 {_key()}\n198.18.0.2 {_key()}\n", encoding="utf-8")
    targets = [Target(f"sw{i}", "eos", "switch", "leaf", None, f"198.18.0.{i}") for i in (1, 2)]
    nr = build_nornir(targets, CredentialSet(None, None), known)
    files = {h.name: h.connection_options[CONNECTION].extras["alt_key_file"] for h in nr.inventory.hosts.values()}
    assert files["sw1"] != files["sw2"]
    for name, address in (("sw1", "198.18.0.1"), ("sw2", "198.18.0.2")):
        keys = paramiko.HostKeys(files[name])
        assert keys.lookup(address) is not None and len(keys) == 1


def test_collect_sessions_name_each_hosts_own_file(tmp_path: Path) -> None:
    """The collector's CLI sessions (``session.open_session``) get the same cut file as push's inventory, with
    every other option as ``options.connect_handler_args`` gives them."""
    known = tmp_path / "known_hosts"
    known.write_text(f"198.18.0.1 {_key()}\n198.18.0.2 {_key()}\n", encoding="utf-8")
    creds = Credentials(username="admin", password="x")
    for i in (1, 2):
        target = Target(f"sw{i}", "eos", "switch", "leaf", None, f"198.18.0.{i}")
        args = handler_args(ConnectSpec(target, creds, known, 5.0, enable=True), creds)
        whole = connect_handler_args(target, creds, known, 5.0)
        assert {k: v for k, v in args.items() if k != "alt_key_file"} == {
            k: v for k, v in whole.items() if k != "alt_key_file"
        }
        assert args["alt_host_keys"] is True and args["alt_key_file"] == str(known_hosts_for(known, target.address, 22))
        keys = paramiko.HostKeys(args["alt_key_file"])
        assert keys.lookup(target.address) is not None and len(keys) == 1
    target = Target("sw9", "eos", "switch", "leaf", None, "198.18.0.9")
    unknown = paramiko.HostKeys(
        handler_args(ConnectSpec(target, creds, known, 5.0, enable=True), creds)["alt_key_file"]
    )
    assert len(unknown) == 0  # no entry: the host stays unknown, and RejectPolicy refuses it
