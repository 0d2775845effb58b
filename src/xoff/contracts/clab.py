"""What a platform tells the containerlab export: its kind, image, interface names and startup files.

Each platform package that containerlab can run has a ``clab.py`` exposing ``KIND`` (a ``ClabKind``),
named by its ``Platform`` record; the containerlab export (``lab/clab.py``) reads them from the registry and
knows no vendor itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xoff.desired.models import Device


class ExportError(ValueError):
    """The fabric cannot be written as a containerlab topology (the message says why)."""


@dataclass(frozen=True)
class ClabKind:
    kind: str  # containerlab's kind, from the schema's enum
    image: str  # the default image (users override per kind)
    interfaces: Callable[[list[str], str], dict[str, str]]  # (front-panel ports, device name) -> clab names
    startup: Callable[[str], dict[str, object]]  # rendered-config dir of the node -> node keys
    header: str  # one line for the file's header: how ports are named for this kind
    own_mgmt_link: bool = False  # no clab mgmt: the node's mgmt port is a mgmt-net link addressed by exec
    notes: Callable[[Device, dict[str, str]], list[str]] = field(default=lambda _device, _renamed: [])
