"""Read an intent from one YAML file or from every YAML file under a directory.

Files are read in sorted path order. Top-level lists (switches, hosts, links, ...) are
concatenated; top-level mappings (networks, qos_policies, roles, ...) are merged key by key,
and a key defined in two files is an error that names both places.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xoff.errors import InputError, Location, Problem
from xoff.intent.yamlsource import MAX_FILE_BYTES, SourceMap, load_yaml

MAX_DIRECTORY_BYTES = 4 * MAX_FILE_BYTES  # all the YAML files of one intent directory together


def _is_intent_file(p: Path) -> bool:
    """A YAML file, or a symlink named like one even if it points nowhere (reading it says why)."""
    return (
        p.suffix in (".yaml", ".yml")
        and (p.is_symlink() or p.is_file())
        and not any(s.startswith(".") for s in p.parts)
    )


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0  # unreadable: load_yaml names it


def _check_total(path: Path, files: list[Path]) -> None:
    total = 0
    for f in files:
        total += _size(f)
        if total > MAX_DIRECTORY_BYTES:
            raise InputError(
                [
                    Problem(
                        Location(str(f), 1, 1),
                        "",
                        f"the YAML files of {path} pass {MAX_DIRECTORY_BYTES} bytes together at this file"
                        f" (allowed: at most {MAX_DIRECTORY_BYTES} bytes per intent directory)",
                    )
                ]
            )


def intent_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if _is_intent_file(p))
        _check_total(path, files)
        if not files:
            raise InputError([Problem(Location(str(path), 1, 1), "", "no .yaml or .yml files in this directory")])
        return files
    if not path.exists():
        raise InputError([Problem(Location(str(path), 1, 1), "", "no such file or directory")])
    return [path]


@dataclass
class RawIntent:
    """The merged data of the files that could be read, where it was written, and what was wrong."""

    data: dict[str, Any]
    smap: SourceMap
    problems: list[Problem]
    unread: bool  # a file could not be read (or was not a mapping): what it defined is unknown


def read_intent_parts(path: Path) -> RawIntent:
    """Every file that can be read, merged; the problems of the others beside it, so later stages can
    still judge what was read (see :mod:`xoff.intent.damage`)."""
    merged: dict[str, Any] = {}
    smap = SourceMap()
    problems: list[Problem] = []
    unread = False
    for file in intent_files(path):
        try:
            data, fmap = load_yaml(file)
        except InputError as exc:
            problems.extend(exc.problems)
            unread = True
            continue
        # the root's place is where a missing top-level section is reported: the first file that has content
        if () not in smap.values or (data is not None and not merged):
            smap.values[()] = fmap.value(()) or Location(str(file), 1, 1)
        if data is None:
            continue
        if not isinstance(data, dict):
            got = "a list" if isinstance(data, list) else f"{data!r}"
            problems.append(
                Problem(
                    fmap.value(()),
                    "",
                    f"the top level must be a mapping of sections, got {got} (allowed: keys such as fabric, networks, switches)",
                )
            )
            unread = True
            continue
        for key, value in data.items():
            problems.extend(_merge_section(merged, smap, fmap, key, value))
    return RawIntent(merged, smap, problems, unread)


def _merge_section(merged: dict[str, Any], smap: SourceMap, fmap: SourceMap, key: str, value: Any) -> list[Problem]:
    if key not in merged:
        merged[key] = value
        smap.update_prefixed(fmap, (key,), (key,))
        return []
    have = merged[key]
    if isinstance(have, list) and isinstance(value, list):
        offset = len(have)
        have.extend(value)
        for i in range(len(value)):
            smap.update_prefixed(fmap, (key, i), (key, offset + i))
        return []
    if isinstance(have, dict) and isinstance(value, dict):
        problems = []
        for sub, subvalue in value.items():
            if sub in have:
                first = smap.key((key, sub))
                problems.append(
                    Problem(
                        fmap.key((key, sub)),
                        f"{key}.{sub}",
                        f"defined twice, first at {first} (allowed: each {key} entry in one file only)",
                    )
                )
                continue
            have[sub] = subvalue
            smap.update_prefixed(fmap, (key, sub), (key, sub))
        return problems
    first = smap.key((key,))
    return [
        Problem(
            fmap.key((key,)),
            key,
            f"section defined twice, first at {first} (allowed: a list or mapping section split across files, or one definition)",
        )
    ]
