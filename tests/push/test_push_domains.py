"""Rollouts by failure domain: ``--canary-by`` stages (the canary one whole domain, batches never mixing domains),
``--shard K/N`` splits, and the lock per pod held by two real processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from tests.desired.test_domains import PLACED
from xoff.connect.targets import Target, build_targets
from xoff.desired import build_fabric_state
from xoff.desired.domains import DomainKind, domains
from xoff.desired.models import FabricState
from xoff.desired.shard import Shard, parse_shard, shard_names, split
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.push.lock import LockedError, domain_locks, locks_for
from xoff.push.rollout import batches


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> FabricState:
    path = tmp_path_factory.mktemp("placed") / "intent.yaml"
    path.write_text(PLACED)
    return build_fabric_state(load_intent(path))


def _names(plan: list[list[Target]]) -> list[list[str]]:
    return [[t.name for t in batch] for batch in plan]


@pytest.mark.parametrize(
    ("by", "batch_size", "expected"),
    [
        # the canary is pod1 whole; then pod2 in one batch; the super-spines (in no pod) last
        (
            "pod",
            0,
            [
                ["gpu1", "gpu2", "leaf1", "leaf2", "spine1", "spine2"],
                ["gpu3", "gpu4", "leaf3", "leaf4", "spine3", "spine4"],
                ["ss1", "ss2", "ss3", "ss4"],
            ],
        ),
        # batches of 4 split a domain, never join two: pod2 is 4 + 2, the super-spines 4
        (
            "pod",
            4,
            [
                ["gpu1", "gpu2", "leaf1", "leaf2", "spine1", "spine2"],
                ["gpu3", "gpu4", "leaf3", "leaf4"],
                ["spine3", "spine4"],
                ["ss1", "ss2", "ss3", "ss4"],
            ],
        ),
        (
            "plane",
            0,
            [
                ["spine1", "spine3", "ss1", "ss2"],
                ["spine2", "spine4", "ss3", "ss4"],
                ["gpu1", "gpu2", "gpu3", "gpu4", "leaf1", "leaf2", "leaf3", "leaf4"],
            ],
        ),
    ],
)
def test_canary_by_domain(state: FabricState, by: DomainKind, batch_size: int, expected: list[list[str]]) -> None:
    targets = build_targets(state)
    plan = batches(targets, 0, batch_size, domains(state, by))
    assert _names(plan) == expected
    labels = domains(state, by)
    assert all(len({labels[t.name] for t in batch}) == 1 for batch in plan)


@pytest.mark.parametrize("by", [None, "pod", "su", "plane", "rack"])
@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_shards_cover_every_device_once(state: FabricState, by: DomainKind | None, count: int) -> None:
    names = [t.name for t in build_targets(state)]
    parts = [shard_names(state, names, Shard(k, count, by)) for k in range(1, count + 1)]
    assert Counter(n for part in parts for n in part) == Counter(names)
    assert split(state, reversed(names), count, by) == [[n for n in reversed(names) if n in p] for p in parts]
    if by is not None:  # whole domains: no domain in two shards
        labels = domains(state, by)
        homes = {labels[n]: {k for k, part in enumerate(parts) if n in part} for n in names}
        assert all(len(h) == 1 for h in homes.values())


def test_shard_by_pod_balances_whole_pods(state: FabricState) -> None:
    names = [t.name for t in build_targets(state)]
    assert [sorted(p) for p in split(state, names, 2, "pod")] == [
        ["gpu1", "gpu2", "leaf1", "leaf2", "spine1", "spine2", "ss1", "ss2", "ss3", "ss4"],
        ["gpu3", "gpu4", "leaf3", "leaf4", "spine3", "spine4"],
    ]


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "1/0"])
def test_bad_shard_is_located(text: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_shard(text)
    assert exc.value.render() == f"--shard:1:1: {text}: expected K/N with 1 <= K <= N <= 4096 (allowed: 1/4, 2/4)"


def test_a_push_locks_the_pods_of_its_devices(state: FabricState, tmp_path: Path) -> None:
    assert locks_for(state, ["leaf1", "gpu1"], tmp_path) == (tmp_path / "push.pod1.lock",)
    assert locks_for(state, ["leaf3", "ss1", "leaf1"], tmp_path) == (
        tmp_path / "push.lock",
        tmp_path / "push.pod1.lock",
        tmp_path / "push.pod2.lock",
    )


HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from xoff.push.lock import domain_locks
    with domain_locks([Path(p) for p in sys.argv[1:]], "fabric clos"):
        print("held", flush=True)
        sys.stdin.readline()
    """
)


def test_two_processes_lock_two_pods_at_once_and_never_one(state: FabricState, tmp_path: Path) -> None:
    pod1, pod2 = locks_for(state, ["leaf1"], tmp_path), locks_for(state, ["leaf3"], tmp_path)
    holder = subprocess.Popen(  # another push, holding pod1
        [sys.executable, "-c", HOLDER, *map(str, pod1)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline() == "held\n"
        with domain_locks(pod2, "fabric clos"):  # another pod: at once
            pass
        with pytest.raises(LockedError, match=rf"push.pod1.lock \(pid {holder.pid}, "), domain_locks(pod1, "c"):
            pass
        # the whole fabric needs pod1 too; what it took before failing (the fabric's own lock) is let go
        with (
            pytest.raises(LockedError),
            domain_locks(locks_for(state, [t.name for t in build_targets(state)], tmp_path), "f"),
        ):
            pass
        with domain_locks(locks_for(state, ["ss1"], tmp_path), "fabric clos"):
            pass
    finally:
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)
    with domain_locks(pod1, "fabric clos"):  # released with its process
        pass


def test_both_engines_stage_by_the_jobs_domains(state: FabricState) -> None:
    from xoff.connect.credentials import CredentialSet
    from xoff.push.job import PushJob, PushOptions, rollout_stages

    job = PushJob("clos", "r1", build_targets(state), {}, CredentialSet(None, None), None, secrets=["x"])
    plan, canary = rollout_stages(job, PushOptions())
    assert (len(plan), canary) == (1, False)  # no domains: one batch, no canary
    job.domain_of = domains(state, "pod")
    plan, canary = rollout_stages(job, PushOptions(batch_size=4))
    assert canary and _names(plan)[0] == ["gpu1", "gpu2", "leaf1", "leaf2", "spine1", "spine2"]


def test_canary_count_and_canary_domain_are_one_or_the_other() -> None:
    from tests.support.paths import INVENTORY
    from xoff import api

    with pytest.raises(InputError) as exc:
        api.prepare_push(INVENTORY / "lab-mini", api.PushOptions(canary=2, canary_by="pod"))
    assert exc.value.render() == "--canary-by:1:1: pod: give one of --canary N, --canary-by DOMAIN (allowed: one)"


def test_shard_by_needs_a_shard() -> None:
    assert parse_shard(None) is None
    with pytest.raises(InputError) as exc:
        parse_shard(None, "pod")
    assert exc.value.render() == "--shard-by:1:1: pod: needs --shard K/N (allowed: with --shard)"


def test_shard_counts_are_bounded_and_a_kind_with_no_domain_is_refused(state: FabricState) -> None:
    with pytest.raises(InputError) as exc:
        parse_shard("1/99999999999")
    assert exc.value.render().startswith("--shard:1:1: 1/99999999999: expected K/N with 1 <= K <= N <= 4096")
    flat = build_fabric_state(load_intent(Path(__file__).resolve().parents[2] / "inventory" / "lab-mini"))
    names = [t.name for t in build_targets(flat)]
    with pytest.raises(InputError) as exc:
        shard_names(flat, names, Shard(2, 2, "pod"))
    assert exc.value.render().startswith("--shard-by:1:1: pod: no device is in a pod domain")
    assert shard_names(flat, names, Shard(1, 1, "pod")) == set(names)  # one shard: nothing to split
