"""Helpers for the Cumulus NVUE emulator tests: sessions on a state directory, xoff's rendered files."""

from __future__ import annotations

import functools
from pathlib import Path

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.lab.emulators.base import EmulatorContext, Reply
from xoff.lab.emulators.cumulus import Emulator
from xoff.render import render_fabric

INVENTORY = ROOT / "inventory"


@functools.cache
def fabric(name: str = "lab-mini") -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / name))


@functools.cache
def rendered(name: str = "lab-mini", device: str = "sleaf1") -> dict[str, str]:
    return {f.name: f.content for f in render_fabric(fabric(name), devices=[device])}


def fabric_file(directory: Path, name: str = "lab-mini") -> Path:
    """The FabricState as the lab writes it (``fabric.json``)."""
    path = directory / "fabric.json"
    path.write_text(fabric(name).model_dump_json(), encoding="utf-8")
    return path


def section(text: str, title: str) -> list[str]:
    """The ``nv`` lines of one ``# --- <title> (...)`` section of nvue-commands.txt."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("# --- "):
            inside = line.startswith(f"# --- {title} (")
        elif inside and line.startswith("nv "):
            out.append(line)
    return out


def set_lines(text: str) -> list[str]:
    """The ``nv`` lines of a command file (comments and blank lines dropped)."""
    return [line for line in text.splitlines() if line.startswith("nv ")]


class FakeClock:
    """Time that moves only when a test says so (for NVUE's commit-confirm deadline)."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def session(
    state_dir: Path, device: str = "sleaf1", fabric_state: Path | None = None, clock: FakeClock | None = None
) -> Emulator:
    """A session without a lab; with ``fabric_state`` (a FabricState JSON file) the switch's factory
    state is the underlay the lab provisions; with ``clock``, time is the test's."""
    ctx = EmulatorContext(device=device, state_dir=state_dir, netns=None, fabric_state=fabric_state)
    emulator = Emulator(ctx) if clock is None else Emulator(ctx, clock=clock)
    emulator.exec_mode = True
    return emulator


def run(emulator: Emulator, line: str) -> Reply:
    return emulator.step(line)


def push(emulator: Emulator, lines: list[str]) -> None:
    for line in lines:
        reply = emulator.step(line)
        assert (reply.status, reply.output) == (0, ""), line


def applied_sleaf1(directory: Path) -> Emulator:
    """lab-mini's sleaf1 with xoff's rendered configuration pushed and applied (``nv config apply -y``); its state in
    ``directory/state``, the lab's ``fabric.json`` beside it."""
    emulator = session(directory / "state", fabric_state=fabric_file(directory))
    push(emulator, set_lines(rendered()["nvue-commands.txt"]))
    assert run(emulator, "nv config apply -y").status == 0
    return emulator
