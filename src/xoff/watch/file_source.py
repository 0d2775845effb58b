"""Samples on disk: JSON Lines, one ``Sample`` per line; ``xoff watch --record FILE`` writes them, ``--replay FILE``
reads them back as a ``CounterSource``.

A line is ``{"device": "leaf1", "at": 1764680000.0, "source": "ssh", "error": null, "unmodelled": {},
"readings": [{"metric": "xoff_pfc_rx_pause_frames_total", "labels": {"port": "Ethernet0", "priority": "3"},
"value": 120}]}``; ``value`` null is not observed. Replay gives each device its recorded samples in file order,
one per ``read``: a round of the replay is the next sample of every device.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from xoff.errors import InputError, Location, Problem
from xoff.watch.metrics import METRICS
from xoff.watch.sample import Reading, Sample
from xoff.watch.window import Window


def sample_to_json(sample: Sample) -> dict[str, Any]:
    return {
        "device": sample.device,
        "at": sample.at,
        "source": sample.source,
        "error": sample.error,
        "unmodelled": dict(sample.unmodelled),
        "readings": [{"metric": r.metric, "labels": dict(r.labels), "value": r.value} for r in sample.readings],
    }


def _number(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"value {value!r} is not a number or null")
    return float(value)


def _reading(raw: dict[str, Any]) -> Reading:
    metric = raw["metric"]
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}")
    labels = raw.get("labels") or {}
    if not isinstance(labels, dict):
        raise ValueError("labels must be an object")
    return Reading.of(metric, _number(raw.get("value")), **{str(k): str(v) for k, v in labels.items()})


def sample_from_json(raw: object) -> Sample:
    """One line's object as a Sample; ``ValueError``/``KeyError``/``TypeError`` on a malformed one."""
    if not isinstance(raw, dict):
        raise ValueError("a line must be a JSON object")
    at = _number(raw["at"])
    if at is None:
        raise ValueError("'at' must be a number")
    unmodelled = raw.get("unmodelled") or {}
    return Sample(
        device=str(raw["device"]),
        at=at,
        readings=tuple(_reading(r) for r in raw.get("readings") or ()),
        error=None if raw.get("error") is None else str(raw["error"]),
        source=str(raw.get("source") or "file"),
        unmodelled={str(k): int(v) for k, v in unmodelled.items()},
    )


def load_samples(path: Path) -> list[Sample]:
    """Every sample of the file; one located problem per bad line (bad input, nothing replayed)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError([Problem(None, "--replay", f"{path}: cannot read: {exc.strerror or exc}")]) from None
    samples: list[Sample] = []
    problems: list[Problem] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            samples.append(sample_from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError) as exc:
            what = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
            problems.append(Problem(Location(str(path), n, 1), "--replay", f"not a sample: {what}"))
    if problems:
        raise InputError(problems)
    return samples


class FileSource:
    """A ``CounterSource`` replaying a recording: each ``read`` gives every device its next recorded sample."""

    name = "file"
    paced = False  # the loop does not wait between rounds: the samples carry their own times

    def __init__(self, samples: Sequence[Sample]) -> None:
        self._queues: dict[str, deque[Sample]] = {}
        for s in samples:
            self._queues.setdefault(s.device, deque()).append(s)

    @classmethod
    def open(cls, path: Path) -> FileSource:
        return cls(load_samples(path))

    @property
    def devices(self) -> list[str]:
        return sorted(self._queues)

    @property
    def exhausted(self) -> bool:
        return not any(self._queues.values())

    def read(self, devices: Sequence[str]) -> list[Sample]:
        """The next sample of each device that has one left (a device the recording ran out of is left out)."""
        return [self._queues[d].popleft() for d in devices if self._queues.get(d)]


class Recorder:
    """An ``on_round`` hook writing every sample as a line (``--record FILE``); flushed after each round."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def __call__(self, samples: Sequence[Sample], window: Window) -> None:  # noqa: ARG002 - the hook's shape
        for s in samples:
            self._stream.write(json.dumps(sample_to_json(s), separators=(",", ":")) + "\n")
        self._stream.flush()
