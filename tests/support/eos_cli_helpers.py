"""Helpers for the EOS emulator tests: xoff's rendered running-configs, and a terminal-like driver."""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.eos import Emulator
from xoff.lab.emulators.eos.store import header
from xoff.render import render_fabric

INVENTORY = ROOT / "inventory"
FIXTURES = ROOT / "tests" / "fixtures" / "eos-cli"
CASES = [("lab-mini", "spine2"), ("roce-pod", "spine5")]


@functools.cache
def rendered(fabric: str, device: str) -> str:
    """xoff's running-config for one EOS switch, rendered now (not the golden copy)."""
    state = build_fabric_state(load_intent(INVENTORY / fabric))
    (f,) = [f for f in render_fabric(state, devices=[device]) if f.name == "running-config"]
    return f.content


# what a real switch's clean-config prints around ``hostname`` (public cEOS 4.30 captures), written
# here by hand: the emulator's own defaults must match it, not define it
CLEAN_BEFORE_HOSTNAME = (
    "!\nno aaa root\n!\nusername admin privilege 15 role network-admin nopassword\n"
    "!\ntransceiver qsfp default-mode 4x10G\n!\nservice routing protocols model multi-agent\n"
)
CLEAN_AFTER_HOSTNAME = (
    "!\nspanning-tree mode mstp\n!\nsystem l1\n   unsupported speed action error\n"
    "   unsupported error-correction action error\n"
)


def with_clean_config(body: str) -> str:
    """A running-config body (``!`` ``hostname X`` ...) with EOS's clean-config lines in their places."""
    first, second, rest = body.split("\n", 2)
    assert first == "!" and second.startswith("hostname "), body[:80]
    return CLEAN_BEFORE_HOSTNAME + f"!\n{second}\n" + CLEAN_AFTER_HOSTNAME + rest


def as_eos_shows(text: str, hostname: str) -> str:
    """What ``show running-config`` prints after loading xoff's file onto a clean switch: EOS's header,
    the clean-config's lines, and without the lines that only restate a default (EOS never prints
    ``no shutdown``)."""
    lines = [line for line in text.splitlines() if line.strip() != "no shutdown"]
    # EOS prints the global PFC watchdog lines as a section of their own after the qos maps (AVD's
    # priority-flow-control.j2 opens one), where xoff's file has them in the maps' section
    first = next((i for i, ln in enumerate(lines) if ln.startswith("priority-flow-control pause watchdog")), None)
    if first is not None and lines[first - 1] != "!":
        lines.insert(first, "!")
    return header(hostname) + with_clean_config("".join(line + "\n" for line in lines))


@dataclass
class Cli:
    """Drives one Emulator as a terminal would; ``run`` gives the output with ``\\n`` line ends."""

    emu: Emulator
    transcript: list[str] = field(default_factory=list)

    def run(self, line: str) -> str:
        prompt = self.emu.prompt()
        reply = self.emu.step(line)
        out = reply.output.replace("\r\n", "\n")
        self.transcript.append(prompt + line + "\n" + out)
        return out

    def quiet(self, *lines: str) -> None:
        """Lines that must all succeed silently."""
        for line in lines:
            out = self.run(line)
            assert out == "", f"{line!r} -> {out!r}"

    @property
    def prompt(self) -> str:
        return self.emu.prompt()


def make_cli(state_dir: Path, device: str = "spine2", clock: Callable[[], float] | None = None, **ctx: object) -> Cli:
    context = EmulatorContext(device=device, state_dir=state_dir, netns=None, **ctx)  # type: ignore[arg-type]
    emu = Emulator(context) if clock is None else Emulator(context, clock=clock)
    return Cli(emu)


def replace_with_rendered(cli: Cli, state_dir: Path, fabric: str = "lab-mini", device: str = "spine2") -> Cli:
    """``cli``'s switch with xoff's rendered configuration of ``device``, loaded as a push loads it: the file on
    flash, then ``configure replace``."""
    flash = state_dir / "files" / "mnt" / "flash"
    flash.mkdir(parents=True, exist_ok=True)
    (flash / "x.cfg").write_text(rendered(fabric, device), encoding="utf-8")
    cli.quiet("enable", "configure replace flash:x.cfg")
    return cli


class FakeClock:
    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class RecordingContext(EmulatorContext):
    """An EmulatorContext whose commands are recorded and answered from a table instead of run."""

    calls: list[list[str]] = field(default_factory=list, hash=False, compare=False)
    answers: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    inputs: list[str | None] = field(default_factory=list, hash=False, compare=False)  # each call's stdin

    def run_in_netns(
        self, argv: list[str], *, check: bool = True, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        self.calls.append(argv)
        self.inputs.append(input)
        key = " ".join(argv)
        out = next((v for k, v in self.answers.items() if k in key), "")
        return subprocess.CompletedProcess(argv, 0, out, "")

    def set_sysctl(self, key: str, value: str) -> None:
        self.calls.append(["sysctl", "-q", "-w", f"{key}={value}"])  # recorded as the command it stands for
        self.inputs.append(None)

    def clear(self) -> None:
        self.calls.clear()
        self.inputs.clear()

    def ip_batches(self) -> list[list[str]]:
        """The lines of each ``ip -force -batch -`` run, in order (the emulator's one ip process per change)."""
        return [
            (stdin or "").splitlines()
            for argv, stdin in zip(self.calls, self.inputs, strict=True)
            if argv == ["ip", "-force", "-batch", "-"]
        ]
