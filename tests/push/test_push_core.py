"""Push core without devices: credentials, targets and --limit, rollout, lock, backups, inventory, exit status."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest
import yaml

from xoff.connect.credentials import load_credentials, mask
from xoff.connect.nornir_inventory import build_nornir, export_nornir
from xoff.connect.targets import Target, build_targets, select
from xoff.contracts.apply import ApplyError, ApplyStrategy, Capabilities, ChangeSet
from xoff.contracts.session import Session
from xoff.errors import InputError
from xoff.push.backups import write_backup
from xoff.push.device_flow import DeviceContext, push_device
from xoff.push.lock import LockedError, fabric_lock
from xoff.push.model import DeviceResult, Outcome, PushEvent, PushSummary
from xoff.push.rollout import batches, roll_out


def _secrets(tmp_path: Path, mode: int = 0o600) -> Path:
    path = tmp_path / "secrets.yaml"
    path.write_text(
        yaml.safe_dump(
            {"switch": {"username": "admin", "password": "s3cret-pw"}, "host": {"username": "root", "key": "/k"}}
        )
    )
    path.chmod(mode)
    return path


def test_credentials_from_file_and_environment_and_never_in_repr(tmp_path: Path) -> None:
    creds = load_credentials(_secrets(tmp_path), environ={"XOFF_SWITCH_USERNAME": "ops"})
    assert creds.switch is not None and creds.switch.username == "ops" and creds.switch.password == "s3cret-pw"
    assert "s3cret-pw" not in repr(creds)
    assert creds.for_device("linux", "host") == creds.host
    assert mask("login s3cret-pw ok", creds.secrets()) == "login ******** ok"


def test_secrets_file_readable_by_others_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="readable by others"):
        load_credentials(_secrets(tmp_path, 0o644), environ={})


def test_targets_groups_and_limit(lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    _, fabric = lab_mini_state
    targets = build_targets(fabric)
    assert [t.name for t in targets] == sorted(t.name for t in targets) and len(targets) == 9
    spine2 = next(t for t in targets if t.name == "spine2")
    assert spine2.groups == ("kind_switch", "platform_eos", "role_spine", "network_compute")
    assert [t.name for t in select(targets, ["spine", "gpu1"])] == ["gpu1", "spine1", "spine2"]
    assert [t.name for t in select(targets, ["platform_sonic"])] == ["leaf1", "leaf2", "spine1"]
    with pytest.raises(InputError, match="matches no device"):
        select(targets, ["spine", "spnie"])


def test_nornir_inventory_checks_host_keys_and_export_has_no_secret(lab_mini_state, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, fabric = lab_mini_state
    targets = build_targets(fabric)
    creds = load_credentials(_secrets(tmp_path), environ={})
    nr = build_nornir(targets, creds, tmp_path / "known_hosts", workers=4, timeout_s=5)
    spine2 = nr.inventory.hosts["spine2"]
    extras = spine2.connection_options["netmiko"].extras or {}
    assert extras["device_type"] == "arista_eos" and extras["ssh_strict"] is True
    assert extras["alt_host_keys"] is True and extras["alt_key_file"] == str(tmp_path / "known_hosts")
    assert extras["system_host_keys"] is False and spine2.password == "s3cret-pw"
    assert nr.inventory.hosts["gpu1"].connection_options["netmiko"].extras["key_file"] == "/k"  # type: ignore[index]
    assert {g.name for g in spine2.groups} >= {"platform_eos", "role_spine", "kind_switch"}
    written = export_nornir(targets, tmp_path / "inv", tmp_path / "known_hosts")
    assert sorted(p.name for p in written) == ["defaults.yaml", "groups.yaml", "hosts.yaml"]
    for p in written:
        text = p.read_text()
        assert "s3cret-pw" not in text and "password" not in yaml.safe_load(text).get("spine2", {})
    hosts = yaml.safe_load((tmp_path / "inv" / "hosts.yaml").read_text())
    assert hosts["leaf1"]["connection_options"]["netmiko"]["extras"]["ssh_strict"] is True


def _t(name: str) -> Target:
    return Target(name, "eos", "switch", "leaf", None, "198.18.0.1")


def test_rollout_canary_then_batches_and_stop_on_failure() -> None:
    targets = [_t(f"d{i}") for i in range(7)]
    assert [[t.name for t in b] for b in batches(targets, 2, 3)] == [["d0", "d1"], ["d2", "d3", "d4"], ["d5", "d6"]]
    seen: list[int] = []

    def run(batch: list[Target], number: int) -> list[DeviceResult]:
        seen.append(number)
        outcome = Outcome.ROLLED_BACK if batch[0].name == "d0" else Outcome.CHANGED
        return [DeviceResult(t.name, t.platform, outcome, batch=number) for t in batch]

    results, _ = roll_out(batches(targets, 2, 3), run, canary=True, max_failures=None)
    assert seen == [1] and [r.outcome for r in results].count(Outcome.SKIPPED) == 5
    seen.clear()
    results, _ = roll_out(batches(targets, 0, 2), run, canary=False, max_failures=1)
    assert seen == [1] and results[-1].outcome is Outcome.SKIPPED and "max-failures" in (results[-1].error or "")


def test_exit_status_follows_the_worst_outcome() -> None:
    ok = [DeviceResult("a", "eos", Outcome.CHANGED), DeviceResult("b", "eos", Outcome.UNCHANGED)]
    assert PushSummary(ok).exit_status == 0
    assert PushSummary([*ok, DeviceResult("c", "eos", Outcome.ROLLED_BACK)]).exit_status == 1
    assert PushSummary([*ok, DeviceResult("c", "eos", Outcome.ROLLBACK_FAILED)]).exit_status == 3
    data = PushSummary(ok).to_json()
    assert (data["devices"], data["changed"], data["unchanged"], data["failed"], data["rolled_back"]) == (2, 1, 1, 0, 0)


def test_lock_names_its_holder(tmp_path: Path) -> None:
    path = tmp_path / "f.lock"
    with (
        fabric_lock(path, "fabric f"),
        pytest.raises(LockedError, match=f"pid {os.getpid()}"),
        fabric_lock(path, "fabric f"),
    ):
        pass
    with fabric_lock(path, "fabric f"):  # released: a later push gets it
        pass


def test_backups_are_private_and_masked(tmp_path: Path) -> None:
    path = write_backup(tmp_path / "b", "run1", "leaf1", "password s3cret-pw\n", ["s3cret-pw"])
    assert path.read_text() == "password ********\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700


FAKE_CAPS = Capabilities(
    atomic_replace=True, commit_confirm=True, rollback=True, on_box_diff=True, apply_means="set", undo_means="reset"
)


class _Fake(ApplyStrategy):
    """A strategy over an in-memory "device", to drive the flow's branches."""

    platform = "fake"

    def __init__(self, fail_apply: bool = False, fail_rollback: bool = False) -> None:
        super().__init__("t")
        self.running = "a"
        self.fail_apply, self.fail_rollback = fail_apply, fail_rollback
        self.confirmed = self.rolled_back = 0

    def backup(self, session: Session) -> str:
        return self.running

    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:
        return ChangeSet(lines=[] if running == desired["f"] else [f"{running} -> {desired['f']}"])

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:
        self.running = "half"
        if self.fail_apply:
            raise ApplyError("refused, password s3cret-pw")
        self.running = desired["f"]

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        return [] if self.running == desired["f"] else ["differs"]

    def confirm(self, session: Session) -> None:
        self.confirmed += 1

    def rollback(self, session: Session, backup: str) -> None:
        self.rolled_back += 1
        if not self.fail_rollback:
            self.running = backup


def _session() -> Session:
    return cast("Session", object())  # the fake strategy never touches its session


def _nothing() -> None:
    pass


def _ignore(_event: PushEvent) -> None:
    pass


@pytest.mark.parametrize(
    ("fail_apply", "fail_rollback", "want", "running"),
    [
        (False, False, Outcome.CHANGED, "b"),
        (True, False, Outcome.ROLLED_BACK, "a"),
        (True, True, Outcome.ROLLBACK_FAILED, "half"),
    ],
)
def test_device_flow_outcomes(
    tmp_path: Path, fail_apply: bool, fail_rollback: bool, want: Outcome, running: str
) -> None:
    strategy = _Fake(fail_apply, fail_rollback)
    ctx = DeviceContext("d", "fake", {"f": "b"}, "t", tmp_path, False, ["s3cret-pw"], capabilities=FAKE_CAPS)
    events: list[PushEvent] = []
    result = push_device(ctx, strategy, _session, _nothing, events.append)
    assert result.outcome is want and strategy.running == running
    assert "s3cret-pw" not in " ".join(e.message for e in events) + (result.error or "")


def test_device_flow_unchanged_and_dry_run_send_nothing(tmp_path: Path) -> None:
    strategy = _Fake()
    ctx = DeviceContext("d", "fake", {"f": "a"}, "t", tmp_path, False, [], capabilities=FAKE_CAPS)
    assert push_device(ctx, strategy, _session, _nothing, _ignore).outcome is Outcome.UNCHANGED
    ctx = DeviceContext("d", "fake", {"f": "b"}, "t", tmp_path, True, [], capabilities=FAKE_CAPS)
    assert push_device(ctx, strategy, _session, _nothing, _ignore).outcome is Outcome.DRY_RUN
    assert strategy.running == "a"


def test_device_flow_plans_with_the_platforms_capabilities(tmp_path: Path) -> None:
    """A change is confirmed only where the platform commits with a timer, and rolled back only where it can."""
    strategy = _Fake()
    no_confirm = replace(FAKE_CAPS, commit_confirm=False)
    ctx = DeviceContext("d", "fake", {"f": "b"}, "t", tmp_path, False, [], capabilities=no_confirm)
    assert push_device(ctx, strategy, _session, _nothing, _ignore).outcome is Outcome.CHANGED
    assert strategy.confirmed == 0
    ctx = DeviceContext("d", "fake", {"f": "c"}, "t", tmp_path, False, [], capabilities=FAKE_CAPS)
    assert push_device(ctx, strategy, _session, _nothing, _ignore).outcome is Outcome.CHANGED
    assert strategy.confirmed == 1
    failing = _Fake(fail_apply=True)
    ctx = DeviceContext(
        "d", "fake", {"f": "b"}, "t", tmp_path, False, [], capabilities=replace(FAKE_CAPS, rollback=False)
    )
    result = push_device(ctx, failing, _session, _nothing, _ignore)
    assert result.outcome is Outcome.ROLLBACK_FAILED and failing.rolled_back == 0
    assert result.error is not None and result.error.endswith("platform fake cannot roll back")
