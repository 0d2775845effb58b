"""``xoff scale`` and ``lab up --scale``: reduce an intent, write it, load it back, check it kept its shape."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xoff.intent.load import load_intent
from xoff.intent.resolved import Intent
from xoff.intent.scale import Scale, check_shape, reduce
from xoff.intent.scale_write import dump, reduced_data


@dataclass(frozen=True)
class Scaled:
    path: Path  # the reduced intent file
    intent: Intent  # loaded from it
    reduced: list[str]  # one line per count reduced
    switches: tuple[int, int]  # full -> reduced
    hosts: tuple[int, int]


def scale_to(source: Path, scale: Scale, output: Path | Callable[[Intent], Path]) -> Scaled:
    """Write ``source`` reduced by ``scale`` to ``output`` (a file, or the file for the full intent; its directory
    is made) and load it back."""
    full, data, red = reduce(source, scale)
    output = output if isinstance(output, Path) else output(full)
    text = dump(reduced_data(full, data, red, source, scale), red, source, scale)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    small = load_intent(output)
    check_shape(full, small, output)
    return Scaled(
        output, small, red.said, (len(full.switches), len(small.switches)), (len(full.hosts), len(small.hosts))
    )
