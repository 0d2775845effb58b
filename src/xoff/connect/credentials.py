"""Credentials for switches and hosts: environment variables first, then a 0600 secrets file.

Secrets file (YAML; the lab writes one of this shape in its directory)::

    switch: {username: admin, password: ...}
    host: {username: root, key: /path/to/private_key}
    platforms:                      # optional, per platform, overrides switch/host
      eos: {username: ..., password: ...}

Environment: XOFF_SWITCH_USERNAME, XOFF_SWITCH_PASSWORD, XOFF_HOST_USERNAME, XOFF_HOST_KEY,
XOFF_HOST_PASSWORD. A value from the environment wins over the file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from xoff.errors import InputError, Location, Problem

ENV = {
    ("switch", "username"): "XOFF_SWITCH_USERNAME",
    ("switch", "password"): "XOFF_SWITCH_PASSWORD",
    ("host", "username"): "XOFF_HOST_USERNAME",
    ("host", "password"): "XOFF_HOST_PASSWORD",
    ("host", "key"): "XOFF_HOST_KEY",
}
KINDS = ("switch", "host")
FIELDS = ("username", "password", "key")
MASK = "********"


def _problem(where: str, path: str, message: str) -> InputError:
    return InputError([Problem(Location(where, 1, 1), path, message)])


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str | None = field(default=None, repr=False)
    key_file: Path | None = None

    def __repr__(self) -> str:  # never print the password, even in a traceback
        return f"Credentials(username={self.username!r}, password={'set' if self.password else 'unset'}, key_file={self.key_file})"


@dataclass(frozen=True)
class CredentialSet:
    switch: Credentials | None
    host: Credentials | None
    per_platform: Mapping[str, Credentials] = field(default_factory=dict)

    def for_device(self, platform: str, kind: str) -> Credentials | None:
        if platform in self.per_platform:
            return self.per_platform[platform]
        return self.host if kind == "host" else self.switch

    def secrets(self) -> list[str]:
        """Every secret value, for masking."""
        creds = [self.switch, self.host, *self.per_platform.values()]
        return [c.password for c in creds if c is not None and c.password]


def _check_private(path: Path) -> None:
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise _problem(
            str(path), "", f"secrets file is readable by others (mode {stat.S_IMODE(mode):04o}; allowed: 0600)"
        )


def _creds(data: Mapping[str, object], where: str, prefix: str = "") -> Credentials:
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise _problem(where, prefix + unknown[0], f"unknown key (allowed: {', '.join(FIELDS)})")
    username = data.get("username")
    if not isinstance(username, str) or not username:
        raise _problem(where, prefix + "username", "missing or empty (allowed: a user name)")
    password = data.get("password")
    key = data.get("key")
    return Credentials(
        username=username,
        password=str(password) if password is not None else None,
        key_file=Path(str(key)) if key is not None else None,
    )


def load_credentials(secrets_file: Path | None = None, environ: Mapping[str, str] | None = None) -> CredentialSet:
    """Read the secrets file (if given) and overlay the environment."""
    env = os.environ if environ is None else environ
    data: dict[str, dict[str, object]] = {}
    per_platform: dict[str, Credentials] = {}
    if secrets_file is not None:
        if not secrets_file.exists():
            raise _problem(str(secrets_file), "", "secrets file does not exist")
        _check_private(secrets_file)
        loaded = yaml.safe_load(secrets_file.read_text(encoding="utf-8")) or {}
        if not isinstance(loaded, dict):
            raise _problem(str(secrets_file), "", "not a mapping (allowed: switch, host, platforms)")
        unknown = sorted(set(loaded) - {*KINDS, "platforms"})
        if unknown:
            raise _problem(str(secrets_file), unknown[0], "unknown key (allowed: switch, host, platforms)")
        for kind in KINDS:
            if kind in loaded:
                data[kind] = dict(loaded[kind])
        for platform, creds in (loaded.get("platforms") or {}).items():
            per_platform[str(platform)] = _creds(creds, str(secrets_file), prefix=f"platforms.{platform}.")
    for (kind, key), var in ENV.items():
        if env.get(var):
            data.setdefault(kind, {})[key] = env[var]
    return CredentialSet(
        switch=_creds(data["switch"], str(secrets_file or "environment"), "switch.") if "switch" in data else None,
        host=_creds(data["host"], str(secrets_file or "environment"), "host.") if "host" in data else None,
        per_platform=per_platform,
    )


def mask(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret value replaced by ********."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
