"""connect.options: one builder, so a push (Nornir, nornir_netmiko) and a collect (connect.session) open
the same target with the same netmiko ConnectHandler arguments, and an exported inventory holds no secret."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from nornir_netmiko.connections import netmiko as nornir_netmiko

from xoff.connect import options, session
from xoff.connect.credentials import Credentials, CredentialSet
from xoff.connect.nornir_inventory import CONNECTION, build_nornir, simple_inventory
from xoff.connect.session import ConnectSpec, open_session
from xoff.connect.targets import Target, build_targets

SECRET = "s3cret-pw"
CREDS = CredentialSet(
    switch=Credentials("admin", SECRET),
    host=Credentials("root", key_file=Path("/keys/id_ed25519")),
    per_platform={"cumulus": Credentials("cumulus", "cl-pw")},
)


class _Conn:
    base_prompt = "leaf1"

    def enable(self) -> None:
        pass

    def disconnect(self) -> None:
        pass


def _capture(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    def connect_handler(**kwargs: Any) -> _Conn:
        seen.append(kwargs)
        return _Conn()

    monkeypatch.setattr(module, "ConnectHandler", connect_handler)
    return seen


def _push_args(monkeypatch: pytest.MonkeyPatch, targets: list[Target], known_hosts: Path) -> dict[str, dict[str, Any]]:
    """What nornir_netmiko hands ConnectHandler when the push engine asks a host for its connection."""
    seen = _capture(monkeypatch, nornir_netmiko)
    nr = build_nornir(targets, CREDS, known_hosts, workers=2, timeout_s=7.0)
    for t in targets:
        nr.inventory.hosts[t.name].get_connection(CONNECTION, nr.config)
    return {t.name: args for t, args in zip(targets, seen, strict=True)}


def _collect_args(
    monkeypatch: pytest.MonkeyPatch, targets: list[Target], known_hosts: Path
) -> dict[str, dict[str, Any]]:
    """What the collector's default connector hands ConnectHandler (CLI sessions)."""
    seen = _capture(monkeypatch, session)
    for t in targets:
        open_session(ConnectSpec(t, CREDS.for_device(t.platform, t.kind), known_hosts, 7.0, enable=False))
    return {t.name: args for t, args in zip(targets, seen, strict=True)}


def test_push_and_collect_open_every_target_with_the_same_arguments(
    monkeypatch: pytest.MonkeyPatch, lab_mini_state: Any, tmp_path: Path
) -> None:
    _, fabric = lab_mini_state
    targets = build_targets(fabric)
    assert {t.platform for t in targets} == {"sonic", "eos", "cumulus", "linux"}
    known_hosts = tmp_path / "known_hosts"
    push = _push_args(monkeypatch, targets, known_hosts)
    collect = _collect_args(monkeypatch, targets, known_hosts)
    assert push == collect
    leaf1 = push["leaf1"]
    assert leaf1["device_type"] == "linux" and leaf1["host"] == next(t.address for t in targets if t.name == "leaf1")
    assert leaf1["ssh_strict"] is True and leaf1["alt_key_file"] == str(known_hosts)
    assert leaf1["system_host_keys"] is False and leaf1["allow_agent"] is False and leaf1["ssh_config_file"] is None
    assert leaf1["password"] == leaf1["secret"] == SECRET and leaf1["read_timeout_override"] == 7.0
    gpu1 = push["gpu1"]
    assert gpu1["key_file"] == "/keys/id_ed25519" and gpu1["use_keys"] is True and gpu1["password"] is None
    assert push["sleaf1"]["username"] == "cumulus"


def test_the_transport_is_looked_up_in_one_place(
    monkeypatch: pytest.MonkeyPatch, lab_mini_state: Any, tmp_path: Path
) -> None:
    """Both engines read the platform's netmiko settings through ``options._transport`` only."""
    _, fabric = lab_mini_state
    targets = [t for t in build_targets(fabric) if t.name in ("leaf1", "spine2")]
    monkeypatch.setattr(options, "_transport", lambda platform: options.Transport(f"t-{platform}", {"extra": 1}))
    push = _push_args(monkeypatch, targets, tmp_path / "kh")
    collect = _collect_args(monkeypatch, targets, tmp_path / "kh")
    assert push == collect
    assert [(a["device_type"], a["extra"]) for a in push.values()] == [("t-sonic", 1), ("t-eos", 1)]


def test_the_exported_inventory_has_the_same_options_and_no_secret(lab_mini_state: Any, tmp_path: Path) -> None:
    _, fabric = lab_mini_state
    targets = build_targets(fabric)
    docs = simple_inventory(targets, tmp_path / "known_hosts")
    for t in targets:
        extras = docs["hosts"][t.name]["connection_options"][CONNECTION]["extras"]
        assert extras == options.connection_options(t, tmp_path / "known_hosts", None)
        assert not {"username", "password", "secret", "key_file"} & set(extras)
    assert SECRET not in repr(docs)


def test_netmikos_own_delays_are_its_fast_cli_default_and_follow_the_timeout_factor() -> None:
    """At factor 1 netmiko's default (fast_cli, global_delay_factor 0.1) is left alone; a slow device's
    --timeout-factor stretches netmiko's delays too, and at 10x reaches netmiko's slow setting (1, fast_cli off:
    netmiko would turn 1 with fast_cli back into 0.1)."""
    target = Target("leaf1", "sonic", "switch", "leaf", None, "198.18.0.2")
    plain = options.connection_options(target, None, None)
    assert "fast_cli" not in plain and "global_delay_factor" not in plain
    slow = options.connection_options(target, None, None, factor=4.0)
    assert slow["global_delay_factor"] == 0.4 and slow["fast_cli"] is True
    assert options.netmiko_delays(10.0) == {"global_delay_factor": 1.0, "fast_cli": False}
    pushed = build_nornir([target], CREDS, None, workers=1, timeout_s=None, timeout_factor=4.0)
    assert pushed.inventory.hosts["leaf1"].connection_options[CONNECTION].extras["global_delay_factor"] == 0.4
