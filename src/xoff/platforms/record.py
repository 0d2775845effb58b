"""The ``Platform`` record: everything the core needs to know about one NOS or host type, in one place.

Each platform package exports one frozen ``PLATFORM`` (``xoff.platforms.<nos>.PLATFORM``) and the
registry (``xoff.platforms.registry``) lists it. The heavy parts (renderers, apply strategy,
collector, containerlab kind, lab emulator) are ``Ref`` strings ("module:attribute") imported on
first use, so reading the registry imports no renderer, no netmiko and no lab.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, cast

if TYPE_CHECKING:
    from xoff.contracts.apply import ApplyStrategy, Capabilities
    from xoff.contracts.clab import ClabKind
    from xoff.contracts.collect import Collector
    from xoff.desired.models import Device, FabricState
    from xoff.platforms.limits import RenderLimits
    from xoff.platforms.load_balancing import LoadBalancingSupport
    from xoff.watch.readings import CounterReader

T = TypeVar("T")
PlatformKind = Literal["switch", "host", "ib_switch"]
RenderFn = Callable[["Device", "FabricState"], dict[str, str]]


@dataclass(frozen=True)
class Ref(Generic[T]):
    """``"package.module:attribute"``, imported when ``load`` is first called (then Python's module cache)."""

    path: str

    def __post_init__(self) -> None:
        module, sep, attr = self.path.partition(":")
        if not (module and sep and attr):
            raise ValueError(f"{self.path!r}: a reference is 'package.module:attribute'")

    @property
    def module(self) -> str:
        return self.path.partition(":")[0]

    def load(self, anchor: str | None = None) -> T:
        """The attribute; a module starting with "." is relative to the package ``anchor``."""
        module, _, attr = self.path.partition(":")
        try:
            return cast("T", getattr(importlib.import_module(module, anchor), attr))
        except AttributeError:
            raise ImportError(f"{module} has no {attr} (referenced as {self.path!r})") from None


@dataclass(frozen=True)
class Transport:
    """How xoff's sessions reach the platform (push and collect alike)."""

    netmiko_device_type: str
    netmiko_options: Mapping[str, Any] = field(default_factory=dict)  # extra ConnectHandler arguments
    enable: bool = False  # enter the privileged level after login (EOS: show running-config is privileged)
    exec_channel: bool = False  # collect over SSH exec channels (exit statuses, no login profile), not a CLI


@dataclass(frozen=True)
class Renderer:
    """One renderer: ``render(device, fabric) -> {relative file name: text}``."""

    name: str  # also what tests and the docs call it: "sonic", "frr"
    ref: Ref[RenderFn]

    def load(self) -> RenderFn:
        return self.ref.load()


@dataclass(frozen=True)
class Platform:
    """One NOS or host type. ``None`` in an optional part means the platform has none (and says why
    where it matters: ``clab_skipped``)."""

    name: str  # the device platform, as FabricState and the intent spell it
    label: str
    kind: PlatformKind
    mgmt_interface: str
    loopback_interface: str | None
    interface_naming: str  # how its front-panel ports are named, for people
    port_pattern: str  # the same as a regular expression (full match)
    transport: Transport | None = None  # None: xoff opens no session to it (InfiniBand: read through the SM)
    capabilities: Capabilities | None = None  # what its apply strategy can do; push plans with it
    renderers: tuple[Renderer, ...] = ()  # in output order; () when nothing is rendered for it
    strategy: Ref[type[ApplyStrategy]] | None = None
    collector: Ref[type[Collector]] | None = None
    watch: Ref[CounterReader] | None = None  # its counter commands for ``xoff watch`` (None: not watched over SSH)
    clab: Ref[ClabKind] | None = None  # how containerlab runs it
    clab_skipped: str | None = None  # why containerlab cannot (the export then leaves its devices out)
    ansible_vars: Mapping[str, Any] | None = None  # the platform_<name> group's connection vars (no login)
    # the lab's NOS emulator, "module:Class": a string, so the core never imports the lab; a module starting
    # with "." is relative to the lab's emulator package (``.eos:Emulator``), a site's is absolute
    emulator: str | None = None
    # it holds a port's cable length only with PFC on the port (NVUE: in the port's PFC profile), so a port without
    # PFC (profile ecn-only) is planned with no cable length
    cable_length_needs_pfc: bool = False
    names_hwsku: bool = False  # its config names the switch's hardware SKU (SONiC: DEVICE_METADATA hwsku)
    # the QoS its renderer can express; the plan refuses the rest with one located line (None: no limit)
    render_limits: RenderLimits | None = None
    load_balancing: LoadBalancingSupport | None = None  # what of intent load_balancing it renders (None: nothing)
    # the VRF names it takes (a full-match regular expression); None: it renders no tenant VRF
    vrf_names: str | None = None

    def __post_init__(self) -> None:
        if self.strategy is not None and (self.transport is None or self.capabilities is None):
            raise ValueError(f"platform {self.name}: a push strategy needs a transport and capabilities")
        if self.collector is not None and self.transport is None:
            raise ValueError(f"platform {self.name}: a collector needs a transport")
        if (self.clab is None) == (self.clab_skipped is None):
            raise ValueError(f"platform {self.name}: give either a containerlab kind or why it has none")
        if self.emulator is not None:
            Ref[object](self.emulator)  # the form is checked here, the class only when the lab starts

    def new_strategy(self, run_id: str = "manual") -> ApplyStrategy:
        if self.strategy is None:
            raise KeyError(f"platform {self.name!r} has no push strategy")
        return self.strategy.load()(run_id)

    def new_collector(self) -> Collector:
        if self.collector is None:
            raise KeyError(f"platform {self.name!r} has no collector")
        return self.collector.load()()

    def clab_kind(self) -> ClabKind:
        if self.clab is None:
            raise KeyError(f"platform {self.name!r}: {self.clab_skipped}")
        return self.clab.load()
