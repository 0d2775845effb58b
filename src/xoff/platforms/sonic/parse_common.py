"""Readers of CONFIG_DB values for the parser: every value xoff models is checked, the rest is counted.

Faithful, not strict: a table, key or field xoff does not model is counted in ``Db.unmodelled``
(``FEATURE``, ``PORT.fec``: name -> how many times), never an error; a malformed value of a field xoff
models is one located error (``TABLE|key field: ...``) in ``Db.errors``, and the Device paths it would
have given are ``Db.unobserved`` (see ``Db.guard``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

Row = Mapping[str, Any]


class ConfigDbParseError(ValueError):
    """CONFIG_DB content the parser cannot turn into FabricState values."""


def where(table: str, key: str, field: str | None = None) -> str:
    return f"{table}|{key}" + (f" {field}" if field else "")


def fail(place: str, message: str) -> ConfigDbParseError:
    return ConfigDbParseError(f"{place}: {message}")


class Db:
    """A CONFIG_DB dict as the parser reads it, with what it did not model and what it could not read."""

    def __init__(self, config_db: Mapping[str, Any], owned: Collection[str], ignore_tables: Collection[str]) -> None:
        if not isinstance(config_db, Mapping):
            raise ConfigDbParseError(f"CONFIG_DB must map table names to tables, not {type(config_db).__name__}")
        self.unmodelled: Counter[str] = Counter()
        self.errors: list[str] = []
        self.unobserved: set[str] = set()
        for name in sorted(set(config_db) - set(owned) - set(ignore_tables)):
            rows = config_db[name]
            self.unmodelled[str(name)] += len(rows) if isinstance(rows, Mapping) and rows else 1
        self._db = config_db

    @contextmanager
    def guard(self, *paths: str) -> Iterator[None]:
        """Run a read; a ConfigDbParseError inside is recorded (one located error) and ``paths`` (the Device
        field paths the read would have given) become not observed; the rest of the switch is still read."""
        try:
            yield
        except ConfigDbParseError as exc:
            self.errors.append(str(exc))
            self.unobserved.update(paths)

    def fields(
        self, table: str, key: str, row: Row, modelled: Collection[str], required: Collection[str] = ()
    ) -> dict[str, Any]:
        """``row``'s modelled fields; every other field is counted as unmodelled ``TABLE.field``."""
        for name in sorted(set(row) - set(modelled)):
            self.unmodelled[f"{table}.{name}"] += 1
        missing = [f for f in required if f not in row]
        if missing:
            raise fail(where(table, key), f"missing field(s) {', '.join(missing)}")
        return {f: v for f, v in row.items() if f in modelled}

    def unmodelled_key(self, table: str, what: str) -> None:
        """A key of a table xoff reads that names something it does not model (another VRF, a sub-port)."""
        self.unmodelled[f"{table}|{what}"] += 1

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


def ref(place: str, value: Any, table: str) -> str:
    """A reference to a row of ``table``: ``name``, or ``[TABLE|name]`` as images before 202012 wrote it
    (sonic-buildimage's qos.json.j2 / buffers templates of 201811-201911)."""
    raw = text(place, value)
    if raw.startswith("[") and raw.endswith("]"):
        named, sep, name = raw[1:-1].partition("|")
        if not sep or named != table:
            raise fail(place, f"{raw!r} is not a reference to {table}")
        return name
    return raw


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


def on_port(db: Db, table: str, name: str, ports: list[str]) -> bool:
    """Whether ``name`` is a front-panel PORT; a row of anything else is counted as unmodelled."""
    if name in ports:
        return True
    db.unmodelled_key(table, "<not a port>")
    return False


def single(db: Db, table: str) -> tuple[str, Row] | None:
    rows = db.table(table)
    if not rows:
        return None
    if len(rows) > 1:
        raise ConfigDbParseError(f"{table}: {len(rows)} entries ({', '.join(rows)}); FabricState holds one per switch")
    return next(iter(rows.items()))
