"""One run's memo of what checks derive from a state (``CheckContext.derive``): worked out once per run and state,
shared by every check of the run, never by two runs."""

from __future__ import annotations

from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate.catalog import load_catalog
from xoff.validate.checks import common
from xoff.validate.context import CheckContext, Derived
from xoff.validate.run import validate

LAB_MINI = ROOT / "inventory" / "lab-mini"


def test_a_function_of_the_state_runs_once_per_state_and_run() -> None:
    first, second = (build_fabric_state(load_intent(LAB_MINI)) for _ in range(2))
    calls: list[FabricState] = []

    def ends(state: FabricState) -> list[object]:
        calls.append(state)
        return list(common.link_ends(state))

    run = Derived()
    a, b = CheckContext(first, derived=run), CheckContext(first, derived=run)
    assert a.derive(ends) is b.derive(ends) and len(a.derive(ends)) == len(first.links) > 0
    assert CheckContext(second, derived=run).derive(ends) is not a.derive(ends)  # another state, its own
    assert CheckContext(first).derive(ends) is not a.derive(ends)  # another run, its own
    assert [id(s) for s in calls] == [id(first), id(second), id(first)]


def test_the_checks_of_one_validate_run_share_the_link_ends(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    state = build_fabric_state(load_intent(LAB_MINI))
    built: list[int] = []
    real = common.link_ends

    def counted(s: FabricState):  # type: ignore[no-untyped-def]
        built.append(id(s))
        return real(s)

    monkeypatch.setattr(common, "link_ends", counted)
    result = validate(state, load_catalog("pre-change"), apart=False)
    statuses = {r.id: r.status.value for r in result.results}
    assert statuses["lossless.pfc_symmetry"] == statuses["lossless.link_mtu"] == "success"  # both read them
    assert built == [id(state)]  # built once for both
