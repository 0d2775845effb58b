"""The running-config an EOS switch of the lab boots with: a new switch as Arista ships it.

EOS's clean-config (``defaults.CLEAN_CONFIG``: ``no aaa root``, the ``admin`` user, ``transceiver qsfp
default-mode 4x10G``, ``service routing protocols model``, ``spanning-tree mode mstp``, ``system l1``), every
front-panel port as an ``interface EthernetN`` block at its defaults, ``interface Management1`` with the
address the lab manages the switch on, and ``no ip routing``. From the lab it takes three things only: the
hostname, the management address and the port names (``Boot``); nothing of xoff's renderer, structured
config or intent goes in. The underlay the lab has put into the namespace and FRR (docs/lab.md) is not in
this configuration: it arrives with ``xoff push``, as on a switch racked with only its management set up.
"""

from __future__ import annotations

from dataclasses import dataclass

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.eos import ifnames
from xoff.lab.emulators.eos.model import Interface, RunningConfig
from xoff.lab.emulators.eos.store import clean


@dataclass(frozen=True)
class Boot:
    """What the lab tells a switch at first boot (as ZTP or an installer would)."""

    hostname: str
    mgmt_address: str | None = None  # a.b.c.d/len on Management1
    ports: tuple[str, ...] = ()  # front-panel port names: Ethernet1/1, ...


def boot_of(ctx: EmulatorContext) -> Boot:
    """The hostname, management address and port names of ``ctx``'s device; just the hostname without
    a FabricState that has it as a switch."""
    device = ctx.desired_device()
    if device is None or device.kind != "switch":
        return Boot(ctx.device)
    mgmt = [a for i in device.interfaces.values() if i.kind == "mgmt" for a in i.addresses]
    ports = tuple(n for n, i in device.interfaces.items() if i.kind == "ethernet")
    return Boot(ctx.device, mgmt[0] if mgmt else None, ports)


def factory_running(boot: Boot) -> RunningConfig:
    cfg = clean(hostname=boot.hostname)
    for port in ports_of(boot):
        cfg.interfaces[port] = Interface(port)
    mgmt = cfg.interface("Management1")
    if boot.mgmt_address is not None:
        mgmt.addresses.append(boot.mgmt_address)
    return cfg


def ports_of(boot: Boot) -> list[str]:
    """The port names EOS accepts (``ifnames.canonical``), in EOS's order."""
    found = [ifnames.canonical(p) for p in boot.ports]
    return ifnames.sort_names([f[0] for f in found if f is not None and ifnames.kind(f[0]) == "Ethernet"])


def factory_config(ctx: EmulatorContext) -> tuple[RunningConfig, bool]:
    """The factory running-config, and whether booting it must leave the namespace alone: with a
    FabricState the lab has provisioned the namespace (management, underlay) itself."""
    boot = boot_of(ctx)
    return factory_running(boot), bool(boot.ports)
