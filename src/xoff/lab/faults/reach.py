"""Reaching a lab device the way an operator does: SSH with the lab's credentials and host keys
(an exec channel for commands, a shell without a terminal for lines typed into a CLI)."""

from __future__ import annotations

from typing import Any

import paramiko  # type: ignore[import-untyped]

from xoff.connect.credentials import load_credentials
from xoff.lab.faults.errors import SeedError
from xoff.lab.lab import resolve
from xoff.lab.provider import from_lab
from xoff.lab.state import LabState


class Lab:
    """A running lab: its state, and SSH to its devices with the lab's credentials and host keys."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.state: LabState = resolve(name)
        self.connection = from_lab(name)
        self.creds = load_credentials(self.connection.secrets_file)

    def _client(self, device: str) -> paramiko.SSHClient:
        dev = self.connection.fabric.devices[device]
        creds = self.creds.for_device(dev.platform, dev.kind)
        if creds is None:
            raise SeedError(f"{device}: no credentials in lab {self.name}")
        client = paramiko.SSHClient()
        client.load_host_keys(str(self.connection.known_hosts))
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
        client.connect(
            dev.mgmt_address.split("/")[0],
            username=creds.username,
            password=creds.password,
            key_filename=str(creds.key_file) if creds.key_file is not None else None,
            look_for_keys=False,
            allow_agent=False,
            timeout=20,
        )
        return client

    def run(self, device: str, command: str) -> str:
        """``ssh device COMMAND`` (an exec channel); SeedError on a non-zero exit status."""
        client = self._client(device)
        try:
            _, stdout, stderr = client.exec_command(command, timeout=30)
            out = stdout.read().decode("utf-8", errors="replace")
            err = stderr.read().decode("utf-8", errors="replace")
            status = stdout.channel.recv_exit_status()
        finally:
            client.close()
        if status != 0:
            raise SeedError(f"{device}: {command.splitlines()[0]!r} exited {status}: {(err or out).strip()[-300:]}")
        return str(out)

    def type_in(self, device: str, lines: list[str]) -> str:
        """Lines typed into the device's CLI without a terminal (``ssh -T device < lines``)."""
        client = self._client(device)
        try:
            channel = client.get_transport().open_session()
            channel.settimeout(30)
            channel.invoke_shell()
            channel.sendall(("\n".join(lines) + "\n").encode())
            channel.shutdown_write()
            chunks = []
            while data := channel.recv(65536):
                chunks.append(data)
        finally:
            client.close()
        out = b"".join(chunks).decode("utf-8", errors="replace")
        if "% " in out:  # EOS: "% Invalid input", "% Incomplete command"
            raise SeedError(f"{device}: refused: {next(ln for ln in out.splitlines() if '% ' in ln).strip()}")
        return out

    def device_dir(self, device: str) -> Any:
        return self.state.dir / "devices" / device

    def netns(self, device: str) -> str:
        return self.state.devices[device].netns

    def ifname(self, device: str, port: str) -> str:
        names = {p: i for i, p in self.state.ifname_to_port(device).items()}
        if port not in names:
            raise SeedError(f"{device}: no cabled port {port!r} in lab {self.name}")
        return str(names[port])
