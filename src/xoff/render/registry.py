"""Which renderers a device gets: its platform's (``Platform.renderers``, from the platform registry),
plus OpenSM's on the host that runs the subnet manager. A renderer is ``render(device, fabric) ->
dict[relative file name, text]``, imported when first used."""

from __future__ import annotations

from xoff.desired.models import Device
from xoff.platforms.record import Ref, Renderer, RenderFn
from xoff.platforms.registry import platforms

# added for the host that runs OpenSM (a role, not a platform: any host can be the subnet manager)
SUBNET_MANAGER = Renderer("opensm", Ref("xoff.platforms.opensm.render:render"))

__all__ = ["SUBNET_MANAGER", "RenderFn", "load_renderer", "renderer_names", "renderers"]


def renderers(device: Device) -> tuple[Renderer, ...]:
    """The device's renderers in output order (KeyError naming the known platforms for an unknown one)."""
    if device.platform not in platforms():
        raise KeyError(f"no renderer for platform {device.platform!r} (allowed: {', '.join(platforms())})")
    own = platforms()[device.platform].renderers
    return (*own, SUBNET_MANAGER) if device.subnet_manager is not None else own


def renderer_names(device: Device) -> tuple[str, ...]:
    return tuple(r.name for r in renderers(device))


def _all() -> list[Renderer]:
    return [*(r for p in platforms().values() for r in p.renderers), SUBNET_MANAGER]


def load_renderer(name: str) -> RenderFn:
    """A renderer by its name (``"sonic"``, ``"frr"``, ``"opensm"``)."""
    for renderer in _all():  # a few platforms: a scan, not a table rebuilt per call (called per device)
        if renderer.name == name:
            return renderer.load()
    raise KeyError(f"no renderer named {name!r} (allowed: {', '.join(r.name for r in _all())})")
