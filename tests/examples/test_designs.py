"""The reference fabrics under examples/designs/: each loads, passes the pre-change checks and the offline
validation clean, renders every device, and a deliberately wrong variant of each is caught by the right check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff import api
from xoff.desired import FabricState
from xoff.desired.models import Ecn, Qos
from xoff.validate import Status, run_checks

DESIGNS = ROOT / "examples" / "designs"
EXAMPLES = sorted(DESIGNS.glob("*.yaml"))
BAD = (Status.FAILURE, Status.ERROR)


def test_there_are_reference_fabrics() -> None:
    assert {p.stem for p in EXAMPLES} >= {
        "apstra-dcqcn",
        "bytedance-3tier",
        "alibaba-hpn",
        "meta-pfc-only",
        "spectrum-x",
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_is_clean_and_renders(path: Path) -> None:
    report = api.check(path)
    assert not report.failed
    assert [r.id for r in report.results if r.status in BAD] == []
    offline = api.validate(report.loaded, api.ValidateOptions(offline=True))
    assert not offline.blocking
    assert [r.id for r in offline.validation.results if r.status in BAD] == []
    rendered = api.render(report.loaded, api.RenderOptions(output=None))
    assert rendered.devices == len(report.loaded.state.devices)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_is_cited_in_the_readme_and_the_design_page(path: Path) -> None:
    readme = (DESIGNS / "README.md").read_text()
    designs = (ROOT / "docs" / "designs.md").read_text()
    assert f"`{path.name}`" in readme
    assert f"`{path.name}`" in designs
    assert "https://" in path.read_text()  # the example names its published source


def _edit(name: str, *edits: tuple[str, str]) -> Callable[[Path], FabricState]:
    """The example with text edits (each ``old`` must occur exactly once): a mistake made in the intent."""

    def plan(tmp: Path) -> FabricState:
        text = (DESIGNS / f"{name}.yaml").read_text()
        for old, new in edits:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        path = tmp / f"{name}.yaml"
        path.write_text(text)
        return api.load(path).state

    return plan


def _hop_qos(name: str, device: str, change: Callable[[Qos], dict[str, Any]]) -> Callable[[Path], FabricState]:
    """The example's plan with one hop's QoS fields replaced by what ``change`` returns for them."""

    def plan(_: Path) -> FabricState:
        state = api.load(DESIGNS / f"{name}.yaml").state
        dev = state.devices[device]
        assert dev.qos is not None
        qos = dev.qos.model_copy(update=change(dev.qos))
        devices = {**state.devices, device: dev.model_copy(update={"qos": qos})}
        return state.model_copy(update={"devices": devices})

    return plan


def _hop_dscp(name: str, device: str, dscp: int, tc: int) -> Callable[[Path], FabricState]:
    """The example's plan with one hop classifying ``dscp`` to ``tc``: a hop whose running map differs (as a
    snapshot of it shows), which the intent, one policy per network, cannot write."""
    return _hop_qos(name, device, lambda qos: {"dscp_to_tc": {**qos.dscp_to_tc, dscp: tc}})


def _hop_marks_ecn(name: str, device: str, queue: int, ecn: Ecn) -> Callable[[Path], FabricState]:
    """The example's plan with one hop still marking ECN on ``queue`` (left over from a DCQCN config)."""
    return _hop_qos(name, device, lambda qos: {"ecn": {**qos.ecn, queue: ecn}})


@dataclass(frozen=True)
class Wrong:
    design: str
    what: str
    plan: Callable[[Path], FabricState]
    check: str
    first: str  # the first finding starts so


WRONG = [
    Wrong(
        "apstra-dcqcn",
        "leaf3 classifies DSCP 26 into the best-effort class",
        _hop_dscp("apstra-dcqcn", "leaf3", 26, 0),
        "lossless.qos_mapping",
        "leaf3: DSCP 26 - dscp_to_tc maps it to TC 0, the fabric (spine1) to 3",
    ),
    Wrong(
        "bytedance-3tier",
        "ECN max above the Tomahawk 4 PFC trigger: PFC pauses before DCQCN slows anyone",
        _edit("bytedance-3tier", ("max_threshold: 1500000", "max_threshold: 60000000")),
        "lossless.ecn_on_lossless_queues",
        "ss1: queue 3 - ECN max not below the PFC trigger point",
    ),
    Wrong(
        "alibaba-hpn",
        "the plane-2 ToRs cabled to a plane-1 aggregation switch",
        _edit("alibaba-hpn", ('spines: "agg{3..4}"}', "spines: [agg3, agg1]}")),
        "topology.planes",
        "agg1: Ethernet16 -> tor1b:Ethernet264 - cable crosses planes - Expected: plane 1 Actual: plane 2",
    ),
    Wrong(
        "meta-pfc-only",
        "ctsw2 still marks ECN on the lossless queue, at 150 KB: far under its PFC trigger",
        _hop_marks_ecn("meta-pfc-only", "ctsw2", 3, Ecn(min_threshold=150000, max_threshold=1500000, probability=100)),
        "lossless.pfc_only_no_ecn",
        "ctsw2: queue 3 - marks ECN on a lossless queue under profile pfc-only - Expected: no ECN"
        " Actual: ECN 150000/1500000 bytes",
    ),
    Wrong(
        "spectrum-x",
        "the hosts' NICs do not accept out-of-order RoCE behind adaptive routing",
        _edit("spectrum-x", ("roce_adaptive_routing: true ", "roce_adaptive_routing: false")),
        "lb.adaptive_routing_roce",
        "gpu1: RoCE out-of-order - NICs behind adaptive routing on leaf1 - Expected: accepted Actual: not set",
    ),
]


@pytest.mark.parametrize("wrong", WRONG, ids=[w.design for w in WRONG])
def test_wrong_variant_is_caught(wrong: Wrong, tmp_path: Path) -> None:
    (result,) = run_checks(wrong.plan(tmp_path), [wrong.check])
    assert result.status is Status.FAILURE, wrong.what
    assert str(result.findings[0]).startswith(wrong.first), wrong.what


def test_every_design_has_a_wrong_variant() -> None:
    assert {w.design for w in WRONG} == {p.stem for p in EXAMPLES}
