"""A multi-ASIC SONiC switch's ``show runningconfiguration all``: one CONFIG_DB per namespace, read as one.

sonic-utilities (show/main.py ``runningconfiguration all``, since PR #3148) prints the host's CONFIG_DB
under ``localhost`` and each ASIC namespace's under its name (``asic0``, ...), each namespace with its own
``bgpraw``; a single-ASIC switch prints its CONFIG_DB alone with ``bgpraw`` inside.
"""

from __future__ import annotations

from typing import Any

from xoff.platforms.sonic.parse import OWNED_TABLES


def _is_multi_asic(dump: dict[str, Any]) -> bool:
    host = dump.get("localhost")
    return isinstance(host, dict) and isinstance(host.get("DEVICE_METADATA"), dict)


def one_config_db(dump: dict[str, Any]) -> tuple[dict[str, Any], str, list[str], dict[str, int]]:
    """A single- or multi-ASIC dump -> one CONFIG_DB, its bgpraw, located conflicts between namespaces, and
    what is unmodelled (the namespaces' own DEVICE_METADATA rows: the host's is the switch's)."""
    if not _is_multi_asic(dump):
        rest = {k: v for k, v in dump.items() if k != "bgpraw"}
        bgpraw = dump.get("bgpraw", "")
        return rest, bgpraw if isinstance(bgpraw, str) else "", [], {}
    host = dump["localhost"]
    merged: dict[str, Any] = {t: dict(r) for t, r in host.items() if t != "bgpraw" and isinstance(r, dict)}
    bgpraw = host.get("bgpraw", "")
    errors: list[str] = []
    unmodelled: dict[str, int] = {}
    for namespace in sorted(k for k in dump if k != "localhost"):
        config = dump[namespace]
        if not isinstance(config, dict):
            errors.append(f"{namespace}: must map table names to tables")
            continue
        bgpraw = bgpraw or config.get("bgpraw", "")
        for table, rows in config.items():
            if table == "bgpraw" or not isinstance(rows, dict):
                continue
            if table == "DEVICE_METADATA":
                unmodelled[f"DEVICE_METADATA ({namespace})"] = len(rows)
                continue
            # a table xoff does not model may differ per namespace (FEATURE scopes, FLEX_COUNTER_TABLE): no error
            found = errors if table in OWNED_TABLES else []
            _merge_rows(merged.setdefault(table, {}), rows, f"{namespace}: {table}", found)
    return merged, bgpraw if isinstance(bgpraw, str) else "", errors, unmodelled


def _merge_rows(into: dict[str, Any], rows: dict[str, Any], place: str, errors: list[str]) -> None:
    """A namespace's rows into the switch's: a key both have is one row (CABLE_LENGTH|AZURE lists each ASIC's
    ports), and a field both have with different values is a located error (the first namespace's is read)."""
    for key, row in rows.items():
        have = into.get(key)
        if not isinstance(have, dict) or not isinstance(row, dict):
            into.setdefault(key, row)
            continue
        clash = sorted(f for f in set(have) & set(row) if have[f] != row[f])
        if clash:
            errors.append(f"{place}|{key} {clash[0]}: differs from another namespace's (the first is read)")
        into[key] = {**row, **have}
