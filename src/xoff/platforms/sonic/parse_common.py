"""Strict readers of CONFIG_DB values for the parser: every value is checked, nothing passes unread."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

Row = Mapping[str, Any]


class ConfigDbParseError(ValueError):
    """CONFIG_DB content the parser cannot turn into FabricState values."""


def where(table: str, key: str, field: str | None = None) -> str:
    return f"{table}|{key}" + (f" {field}" if field else "")


def fail(place: str, message: str) -> ConfigDbParseError:
    return ConfigDbParseError(f"{place}: {message}")


class Db:
    """A CONFIG_DB dict, checked table by table as the parser reads it."""

    def __init__(self, config_db: Mapping[str, Any], owned: Collection[str], ignore_tables: Collection[str]) -> None:
        if not isinstance(config_db, Mapping):
            raise ConfigDbParseError(f"CONFIG_DB must map table names to tables, not {type(config_db).__name__}")
        unknown = sorted(set(config_db) - set(owned) - set(ignore_tables))
        if unknown:
            raise ConfigDbParseError(
                f"unknown CONFIG_DB table(s) {', '.join(unknown)} (the parser reads: {', '.join(owned)}; "
                "pass ignore_tables to skip others)"
            )
        self._db = config_db

    def table(self, name: str) -> dict[str, Row]:
        """The rows of a table (empty if absent); every row must be a field mapping with string keys."""
        rows = self._db.get(name, {})
        if not isinstance(rows, Mapping):
            raise ConfigDbParseError(f"{name}: must map keys to fields, not {type(rows).__name__}")
        out: dict[str, Row] = {}
        for key, fields in rows.items():
            if not isinstance(key, str) or not isinstance(fields, Mapping):
                raise fail(where(name, str(key)), "must be a string key with a mapping of fields")
            clean = {f: v for f, v in fields.items() if not (f == "NULL" and v == "NULL")}
            out[key] = clean
        return out

    def has(self, name: str) -> bool:
        return name in self._db


def check_fields(table: str, key: str, row: Row, allowed: Collection[str], required: Collection[str] = ()) -> None:
    unknown = sorted(set(row) - set(allowed))
    if unknown:
        raise fail(
            where(table, key),
            f"unknown field(s) {', '.join(unknown)} (allowed: {', '.join(sorted(allowed)) or 'none'})",
        )
    missing = [f for f in required if f not in row]
    if missing:
        raise fail(where(table, key), f"missing field(s) {', '.join(missing)}")


def text(place: str, value: Any) -> str:
    if not isinstance(value, str):
        raise fail(place, f"must be a string, not {type(value).__name__} {value!r}")
    return value


def integer(place: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    raw = text(place, value)
    digits = raw[1:] if raw.startswith("-") else raw
    if not (digits.isascii() and digits.isdigit()) or str(int(raw)) != raw:
        raise fail(place, f"{raw!r} is not an integer in canonical form")
    number = int(raw)
    if (low is not None and number < low) or (high is not None and number > high):
        raise fail(place, f"{number} is out of range {low}..{high}")
    return number


def choice(place: str, value: Any, allowed: Mapping[str, Any]) -> Any:
    raw = text(place, value)
    if raw not in allowed:
        raise fail(place, f"{raw!r} is not one of {', '.join(allowed)}")
    return allowed[raw]


def int_list(place: str, value: Any, low: int, high: int) -> list[int]:
    """``"3,4"`` -> ``[3, 4]``; ``""`` -> ``[]``; duplicates and out-of-range numbers are errors."""
    raw = text(place, value)
    if raw == "":
        return []
    numbers = [integer(place, part, low, high) for part in raw.split(",")]
    if len(set(numbers)) != len(numbers):
        raise fail(place, f"{raw!r} repeats a value")
    return sorted(numbers)


def index_range(place: str, value: str, low: int, high: int) -> list[int]:
    """``"3"`` -> ``[3]``, ``"0-2"`` -> ``[0, 1, 2]``."""
    first, sep, last = value.partition("-")
    a = integer(place, first, low, high)
    b = integer(place, last, low, high) if sep else a
    if b < a:
        raise fail(place, f"range {value!r} runs backwards")
    return list(range(a, b + 1))


def int_map(table: str, key: str, row: Row, low: int, high: int, vlow: int, vhigh: int) -> dict[int, int]:
    out: dict[int, int] = {}
    for k, v in row.items():
        place = where(table, key, k)
        out[integer(place, k, low, high)] = integer(place, v, vlow, vhigh)
    return dict(sorted(out.items()))
