"""The plan printed before a push says how a Cumulus switch is changed and undone: NVUE's commit-confirm."""

from __future__ import annotations

from tests.support.paths import ROOT
from xoff.connect.targets import build_targets, select
from xoff.platforms.registry import get_platform, platforms
from xoff.push.display import plan_rows


def test_cumulus_plan_names_the_commit_confirm(lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    _, fabric = lab_mini_state
    (row,) = plan_rows(select(build_targets(fabric), ["sleaf1"]))
    assert row["platform"] == "cumulus"
    assert "nv config apply --confirm 300s -y" in row["apply"] and "--confirm-yes" in row["apply"]
    assert row["undo"].startswith("nv config apply --confirm-no (or the confirm timer lapses)")
    caps = get_platform("cumulus").capabilities
    assert caps is not None and caps.commit_confirm is True


def test_docs_capability_table_matches_the_strategies() -> None:
    """docs/push.md's table: one row per platform with a push strategy, its yes/no columns as its record declares them."""
    doc = (ROOT / "docs" / "push.md").read_text(encoding="utf-8")
    rows = {}
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and "(`" in cells[0] and cells[1] in {"yes", "no"}:
            rows[cells[0].split("(`")[1].rstrip("`)")] = cells[1:5]
    assert sorted(rows) == sorted(name for name, p in platforms().items() if p.strategy is not None)
    for platform, cells in rows.items():
        caps = get_platform(platform).capabilities
        assert caps is not None
        want = [caps.atomic_replace, caps.commit_confirm, caps.rollback, caps.on_box_diff]
        assert cells == ["yes" if w else "no" for w in want], platform
