"""Helpers shared by the SONiC tests (a uniquely named module: conftest.py names collide across folders)."""

from __future__ import annotations

from xoff.desired.models import Device, FabricState


def sonic_switches(state: FabricState) -> list[Device]:
    return [d for d in state.devices.values() if d.platform == "sonic"]


def dynamic_variant(device: Device) -> Device:
    """The same switch in SONiC's dynamic buffer model."""
    assert device.buffers is not None
    return device.model_copy(update={"buffers": device.buffers.model_copy(update={"model": "dynamic"})})


def broadcom_variant(device: Device) -> Device:
    """The same switch on a Broadcom ASIC (no HWSKU the reference names)."""
    return device.model_copy(update={"asic": "tomahawk5", "hwsku": None})
