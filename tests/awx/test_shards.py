"""The per-shard inventories together cover every SSH-managed device exactly once, each in the shard of its
failure domain (``xoff.desired.domains``), and hold no secret."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from xoff import api
from xoff.connect.targets import build_targets
from xoff.desired.domains import NO_DOMAIN, domains

SHARDS = {
    # shard -> devices: super-spines are in no pod, spines in no unit, leaves and hosts in no plane
    "pod": {"pod1": 6, "pod2": 6, "shared": 4},
    "su": {"su1": 4, "su2": 4, "shared": 8},
    "plane": {"plane1": 4, "plane2": 4, "shared": 8},
}


def _inventories(out: Path) -> dict[str, dict[str, Any]]:
    return {
        p.parent.name: yaml.safe_load(p.read_text(encoding="utf-8"))
        for p in sorted((out / "inventories").glob("*/hosts.yml"))
    }


@pytest.mark.parametrize("by", ["pod", "su", "plane"])
def test_every_device_in_exactly_one_shard_of_its_domain(by: str, intent: Path, tmp_path: Path) -> None:
    result = api.export_awx(intent, api.AwxOptions(shard_by=by, output=tmp_path))
    assert result.shards == SHARDS[by]
    inventories = _inventories(tmp_path)
    assert list(inventories) == sorted(SHARDS[by])
    seen = Counter(host for inv in inventories.values() for host in inv["all"]["hosts"])
    state = api.load(intent).state
    assert seen == Counter(t.name for t in build_targets(state)), "every device once, no other"
    labels = domains(state, by)  # type: ignore[arg-type]
    for shard, inv in inventories.items():
        assert {labels[h] for h in inv["all"]["hosts"]} == {NO_DOMAIN if shard == "shared" else shard}
        assert set(inv["all"]["children"][f"domain_{shard}"]["hosts"]) == set(inv["all"]["hosts"])
        assert inv["all"]["vars"]["xoff_shard"] == shard


def test_shard_listing_matches_the_inventories(project: Path) -> None:
    listing = yaml.safe_load((project / "awx" / "shards.yml").read_text(encoding="utf-8"))
    assert listing["xoff_shard_by"] == "pod"
    for shard in listing["xoff_shards"]:
        inv = yaml.safe_load((project / shard["inventory"]).read_text(encoding="utf-8"))
        assert len(inv["all"]["hosts"]) == shard["devices"]


def test_every_device_has_its_rendered_files(project: Path) -> None:
    for path in (project / "inventories").glob("*/hosts.yml"):
        for host in yaml.safe_load(path.read_text(encoding="utf-8"))["all"]["hosts"]:
            assert any((project / "render" / host).iterdir()), host


def test_logins_are_environment_lookups_only(project: Path) -> None:
    """No credential in any inventory: every login variable looks up the environment AWX's credential fills."""
    for path in (project / "inventories").glob("*/hosts.yml"):
        for group in yaml.safe_load(path.read_text(encoding="utf-8"))["all"]["children"].values():
            for key, value in (group.get("vars") or {}).items():
                if key in {
                    "ansible_user",
                    "ansible_password",
                    "ansible_ssh_private_key_file",
                    "ansible_become_password",
                }:
                    assert value.startswith('{{ lookup("ansible.builtin.env", "XOFF_'), (path, key)
