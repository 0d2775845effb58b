"""``snapshot merge``: shard snapshots (``collect --shard K/N``) joined into the snapshot one collect would write.

Written over the Snapshot model's fields, so a field added later merges without a change here:

- a map keyed by device names (``lldp``, ``counters``, ``observed.devices``, ...) is the union of the shards' maps;
  a device in two shards is an error naming it and both files;
- any other map (``observed.networks``) and every scalar (fabric, versions, the intent's hash) must be the same in
  every shard, else an error naming the field and the two files; a nested model is merged field by field;
- a list holds each shard's items once, ordered as one collect orders them (``errors`` by device, ``lab_only``
  sorted; ``observed.links`` is the same in all);
- a model a shard left empty (None) takes the others' value (``infiniband``: read by the shard with the SM host);
  a scalar one shard has and another has not (an intent hash) is a disagreement;
- ``collected_at`` is the latest of the shards'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from xoff.contracts.observed import Snapshot
from xoff.errors import InputError, Location, Problem


class _Merge:
    def __init__(self, names: Sequence[str], devices: set[str]) -> None:
        self.names = names
        self.devices = devices
        self.problems: list[Problem] = []
        self.twice: set[str] = set()  # devices said to be in two shards (once each)

    def fail(self, i: int, path: str, message: str) -> None:
        self.problems.append(Problem(Location(self.names[i], 1, 1), path, message))

    def value(self, path: str, values: list[tuple[int, Any]]) -> Any:
        present = [(i, v) for i, v in values if v is not None]
        if not present:
            return None
        first = present[0][1]
        if isinstance(first, BaseModel):
            return self.model(path, present)
        if isinstance(first, dict):
            return self.mapping(path, present)
        if isinstance(first, list):
            return self.sequence(present)
        for i, v in values:
            if v != first:
                here = "not recorded" if v is None else repr(v)
                self.fail(i, path, f"{here} here but {first!r} in {self.names[present[0][0]]} (allowed: the same)")
        return first

    def model(self, path: str, values: list[tuple[int, Any]]) -> Any:
        first = values[0][1]
        merged = {
            name: self.value(f"{path}.{name}".lstrip("."), [(i, getattr(v, name)) for i, v in values])
            for name in type(first).model_fields
        }
        return type(first).model_construct(**merged)

    def mapping(self, path: str, values: list[tuple[int, dict[Any, Any]]]) -> dict[Any, Any]:
        holder: dict[Any, int] = {}
        out: dict[Any, Any] = {}
        for i, mapping in values:
            for key, item in mapping.items():
                if key not in holder:
                    holder[key], out[key] = i, item
                elif key in self.devices:
                    if key not in self.twice:
                        self.twice.add(key)
                        self.fail(i, path, f"device {key} is also in {self.names[holder[key]]} (allowed: one shard)")
                else:
                    out[key] = self.value(f"{path}.{key}", [(holder[key], out[key]), (i, item)])
        if out and all(key in self.devices for key in out):
            return dict(sorted(out.items()))
        return out

    @staticmethod
    def sequence(values: list[tuple[int, list[Any]]]) -> list[Any]:
        """Each item once; sorted as one collect sorts them: by device (``errors``), or wholly where every shard's
        list is sorted (``lab_only``); else in the shards' order."""
        out: list[Any] = []
        for _, items in values:
            out.extend(item for item in items if item not in out)
        if out and all(isinstance(item, BaseModel) and isinstance(getattr(item, "device", None), str) for item in out):
            return sorted(out, key=lambda item: item.device)
        if all(isinstance(item, str) for item in out) and all(items == sorted(items) for _, items in values):
            return sorted(out)
        return out


def _device_names(snapshots: Sequence[Snapshot]) -> set[str]:
    """Every device a shard speaks of: the observed ones, those with errors, and the keys of the snapshot's own maps
    (every top-level map of a Snapshot is keyed by device)."""
    names = {e.device for s in snapshots for e in s.errors}
    for snap in snapshots:
        names.update(snap.observed.devices)
        for field in Snapshot.model_fields:
            value = getattr(snap, field)
            if isinstance(value, dict):
                names.update(value)
    return names


def merge_snapshots(snapshots: Sequence[Snapshot], names: Sequence[str]) -> Snapshot:
    """One snapshot from the shards' (``names``: where each came from, for the errors)."""
    if not snapshots:
        raise InputError([Problem(None, "snapshot merge", "no snapshot given (allowed: two or more files)")])
    devices = _device_names(snapshots)
    merge = _Merge(names, devices)
    _check_parts(merge, snapshots)
    indexed = list(enumerate(snapshots))
    fields = {
        name: merge.value(name, [(i, getattr(s, name)) for i, s in indexed])
        for name in Snapshot.model_fields
        if name not in ("collected_at", "shard")
    }
    if merge.problems:
        raise InputError(merge.problems)
    fields["collected_at"] = max(s.collected_at for s in snapshots)
    return Snapshot.model_validate(Snapshot.model_construct(**fields).model_dump())


def _check_parts(merge: _Merge, snapshots: Sequence[Snapshot]) -> None:
    """Shard snapshots (``collect --shard K/N``) must be the N parts of one split, each once: a part missing or given
    twice would leave devices out without a word. Snapshots that name no part are merged as they are."""
    parts = [s.shard for s in snapshots]
    if all(p is None for p in parts):
        return
    splits: dict[str, list[int]] = {}
    for i, part in enumerate(parts):
        if part is None:
            merge.fail(
                i, "shard", "not a shard snapshot, merged with shard snapshots (allowed: the parts of one split)"
            )
            continue
        k, _, rest = part.partition("/")
        splits.setdefault(rest, []).append(int(k))
        if splits[rest].count(int(k)) > 1:
            merge.fail(i, "shard", f"part {part} given twice (allowed: each part once)")
    if len(splits) > 1:
        merge.fail(0, "shard", f"parts of different splits: {', '.join(sorted(splits))} (allowed: one K/N split)")
    elif splits:
        rest, got = next(iter(splits.items()))
        count = int(rest.split()[0])
        missing = sorted(set(range(1, count + 1)) - set(got))
        if missing:
            merge.fail(
                0, "shard", f"parts {', '.join(f'{k}/{rest}' for k in missing)} missing (allowed: all {count} parts)"
            )
