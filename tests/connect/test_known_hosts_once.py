"""Exec sessions check a host's key against the known_hosts entries for that host, parsed once per file
version: the same entries paramiko's own load_host_keys gives for the name it looks up."""

from __future__ import annotations

import hashlib
import hmac
from base64 import b64encode
from pathlib import Path

import asyncssh
import paramiko  # type: ignore[import-untyped]

from xoff.connect.channel import load_host_keys


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
