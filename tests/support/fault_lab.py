"""A stand-in lab for seeding a fault into one emulator's state directory without bringing a lab up: what a fault's
``seed``/``undo`` read of a lab (``device_dir`` and ``connection.fabric``), every device's directory being ``directory``
(the emulator under test keeps its ``state/`` there)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from xoff.desired.models import FabricState


def fault_lab(directory: Path, fabric: FabricState) -> Any:
    return SimpleNamespace(device_dir=lambda _device: directory, connection=SimpleNamespace(fabric=fabric))
