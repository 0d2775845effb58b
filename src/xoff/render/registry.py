"""Which renderers a device gets. A renderer is a module ``xoff.platforms.<name>.render`` with
``render(device, fabric) -> dict[relative file name, text]``; adding a platform is one line here."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

from xoff.desired.models import Device, FabricState

RenderFn = Callable[[Device, FabricState], dict[str, str]]

# device platform -> renderer packages (in output order)
BY_PLATFORM: dict[str, tuple[str, ...]] = {
    "sonic": ("sonic", "frr"),  # SONiC runs its BGP in FRR: config_db.json + frr.conf
    "eos": ("eos",),
    "cumulus": ("cumulus",),
    "linux": ("host",),
    "infiniband": (),  # InfiniBand switches are programmed by the subnet manager, not configured
}
SUBNET_MANAGER = ("opensm",)  # added for the host that runs OpenSM


def renderer_names(device: Device) -> tuple[str, ...]:
    try:
        names = BY_PLATFORM[device.platform]
    except KeyError:
        raise KeyError(f"no renderer for platform {device.platform!r} (allowed: {', '.join(BY_PLATFORM)})") from None
    return names + (SUBNET_MANAGER if device.subnet_manager is not None else ())


def load_renderer(name: str) -> RenderFn:
    module: ModuleType = importlib.import_module(f"xoff.platforms.{name}.render")
    fn: RenderFn = module.render
    return fn
