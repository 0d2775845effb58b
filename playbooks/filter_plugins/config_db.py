"""Jinja filters for SONiC's CONFIG_DB, used by playbooks/tasks/sonic/ (loaded from beside the playbooks).

The rendered ``config_db.json`` owns the tables it lists: in each, every entry is as rendered and no
other entry exists; tables it does not list are left alone. The patch is an RFC 6902 JSON Patch at
entry level (``/TABLE/KEY``), which SONiC's ``config apply-patch`` validates against its YANG models
as a whole and applies in the order it needs. Self-contained (standard library only), so the
playbooks run the same under ansible-playbook, ansible-runner and AWX.
"""

from __future__ import annotations

from typing import Any

Db = dict[str, dict[str, Any]]


def _escape(key: str) -> str:
    """A JSON Pointer reference token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def config_db_patch(running: Db, desired: Db) -> list[dict[str, Any]]:
    """The JSON Patch taking ``running`` to ``desired`` in the tables ``desired`` owns."""
    ops: list[dict[str, Any]] = []
    for table, rows in desired.items():
        have = running.get(table)
        if not have:
            if rows:
                ops.append({"op": "add", "path": f"/{_escape(table)}", "value": rows})
            continue
        for key in sorted(set(have) - set(rows)):
            ops.append({"op": "remove", "path": f"/{_escape(table)}/{_escape(key)}"})
        for key, value in rows.items():
            if key not in have:
                ops.append({"op": "add", "path": f"/{_escape(table)}/{_escape(key)}", "value": value})
            elif have[key] != value:
                ops.append({"op": "replace", "path": f"/{_escape(table)}/{_escape(key)}", "value": value})
    return ops


def config_db_mismatches(running: Db, desired: Db) -> list[str]:
    """One line per entry of an owned table that is not as rendered (empty: verified)."""
    return [f"{op['op']} {op['path']}" for op in config_db_patch(running, desired)]


def patch_lines(patch: list[dict[str, Any]]) -> list[str]:
    """The human diff: one line per patch operation, ``+``/``-``/``~`` and the path."""
    sign = {"add": "+", "remove": "-", "replace": "~"}
    return [f"{sign.get(op['op'], op['op'])} {op['path']}" for op in patch]


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {
            "config_db_patch": config_db_patch,
            "config_db_mismatches": config_db_mismatches,
            "config_db_patch_lines": patch_lines,
        }
