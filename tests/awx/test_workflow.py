"""The push workflow of ``awx/controller.yml``: the first domain's shard is the canary, the other domains run
side by side after it, and ``shared`` (spines, super-spines: every domain's path) last, once all succeeded."""

from __future__ import annotations

from typing import Any

import pytest

from xoff.awx.controller import workflow_nodes


def _graph(nodes: list[dict[str, Any]]) -> dict[str, tuple[list[str], bool]]:
    return {
        n["identifier"]: (
            [s["identifier"] for s in n["related"]["success_nodes"]],
            n.get("all_parents_must_converge", False),
        )
        for n in nodes
    }


@pytest.mark.parametrize(
    ("shards", "graph"),
    [
        (
            ["pod1", "pod2", "pod3", "shared"],
            {
                "pod1": (["pod2", "pod3"], False),
                "pod2": (["shared"], False),
                "pod3": (["shared"], False),
                "shared": ([], True),
            },
        ),
        (["su1", "shared"], {"su1": (["shared"], False), "shared": ([], False)}),
        (["plane1", "plane2"], {"plane1": (["plane2"], False), "plane2": ([], False)}),
        (["shared"], {"shared": ([], False)}),
    ],
)
def test_canary_then_domains_then_shared(shards: list[str], graph: dict[str, tuple[list[str], bool]]) -> None:
    nodes = workflow_nodes(shards)
    assert _graph(nodes) == graph
    assert [n["unified_job_template"]["name"] for n in nodes] == [f"{{{{ xoff_awx_prefix }}}} push {s}" for s in graph]
