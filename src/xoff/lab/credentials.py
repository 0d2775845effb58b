"""The lab's credentials: SSH keys (per-device host keys, the controller's client key), the
controller's ``known_hosts`` (so clients keep host-key checking on), and ``secrets.yaml`` (0600) with
the switches' username/password and the hosts' key.

Layout under the lab directory::

    secrets.yaml
    ssh/id_ed25519[.pub]          the controller's client key (root on every host)
    ssh/authorized_keys           what every host's sshd accepts
    ssh/hostkeys/<device>/ssh_host_ed25519_key[.pub]
    ssh/known_hosts               "<device>,<mgmt address> ssh-ed25519 ..." for every device with SSH
    ssh/config                    ssh -F <this> <device> reaches any device by name
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

import yaml

from xoff.lab.state import write_atomic

SECRETS_FILE = "secrets.yaml"
SWITCH_USER = "admin"
HOST_USER = "root"
KEY_TYPE = "ssh-ed25519"


@dataclass(frozen=True)
class Secrets:
    switch_username: str
    switch_password: str
    host_username: str
    host_key: Path  # the controller's private key

    @classmethod
    def load(cls, lab_dir: Path) -> Secrets:
        data = yaml.safe_load((lab_dir / SECRETS_FILE).read_text(encoding="utf-8"))
        return cls(
            switch_username=data["switch"]["username"],
            switch_password=data["switch"]["password"],
            host_username=data["host"]["username"],
            host_key=Path(data["host"]["key"]),
        )


def ssh_dir(lab_dir: Path) -> Path:
    return lab_dir / "ssh"


def host_key(lab_dir: Path, device: str) -> Path:
    return ssh_dir(lab_dir) / "hostkeys" / device / "ssh_host_ed25519_key"


def known_hosts(lab_dir: Path) -> Path:
    return ssh_dir(lab_dir) / "known_hosts"


def client_key(lab_dir: Path) -> Path:
    return ssh_dir(lab_dir) / "id_ed25519"


def _keypair(path: Path, comment: str) -> str:
    """Make an OpenSSH key pair at ``path`` unless it exists; return the public key line."""
    pub = path.with_name(path.name + ".pub")
    if path.exists() and pub.exists():
        return pub.read_text(encoding="utf-8").strip()
    import asyncssh  # noqa: PLC0415 - only when a key is made (lab up): `xoff validate --lab` reads the lab's files only

    key = asyncssh.generate_private_key(KEY_TYPE, comment=comment)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomic(path, key.export_private_key("openssh").decode(), mode=0o600)
    line = key.export_public_key("openssh").decode().strip()
    write_atomic(pub, line + "\n")
    return line


def ensure(lab_dir: Path, lab: str, ssh_devices: dict[str, str], switches: set[str]) -> Secrets:
    """Create what is missing (a second ``lab up`` keeps the keys and the password).

    ``ssh_devices``: device -> management address, for every device that answers SSH;
    ``switches``: those that take the switch password (the others take the client key as root).
    """
    ssh = ssh_dir(lab_dir)
    ssh.mkdir(parents=True, exist_ok=True, mode=0o700)
    client_pub = _keypair(client_key(lab_dir), f"xoff-lab-{lab}-controller")
    write_atomic(ssh / "authorized_keys", client_pub + "\n", mode=0o600)
    known: list[str] = []
    config = ["# ssh -F <this file> <device>: the lab's devices by name, host keys checked", ""]
    for device, address in ssh_devices.items():
        pub = _keypair(host_key(lab_dir, device), f"xoff-lab-{lab}-{device}")
        kind, blob = pub.split()[:2]
        known.append(f"{device},{address} {kind} {blob}")
        user = SWITCH_USER if device in switches else HOST_USER
        config += [f"Host {device}", f"  HostName {address}", f"  User {user}", f"  HostKeyAlias {device}", ""]
    write_atomic(known_hosts(lab_dir), "\n".join(known) + "\n")
    config += [
        "Host *",
        f"  UserKnownHostsFile {known_hosts(lab_dir)}",
        "  StrictHostKeyChecking yes",
        f"  IdentityFile {client_key(lab_dir)}",
        "  IdentitiesOnly yes",
        "",
    ]
    write_atomic(ssh / "config", "\n".join(config))
    path = lab_dir / SECRETS_FILE
    if not path.exists():
        data = {
            "switch": {"username": SWITCH_USER, "password": secrets.token_urlsafe(12)},
            "host": {"username": HOST_USER, "key": str(client_key(lab_dir))},
        }
        write_atomic(path, yaml.safe_dump(data, sort_keys=False), mode=0o600)
    return Secrets.load(lab_dir)
