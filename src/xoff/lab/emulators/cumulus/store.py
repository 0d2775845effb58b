"""The switch's NVUE revisions, persisted under ``ctx.state_dir`` (``nvue.json``), shared by every session.

NVUE keeps configuration as numbered revisions (``/var/lib/nvue``): one pending revision per user that
``nv set``/``nv unset`` edit, the applied revision, detached revisions, and the startup configuration
(``/etc/nvue.d/startup.yaml``, written by ``nv config save`` and, with auto-save on as shipped, by every
apply). Each apply is recorded in the history. Writers take an exclusive ``flock`` on ``.lock``.

A commit-confirm (``nv config apply --confirm <time>``) is kept here too (``Nvue.confirm``: the revision
on trial, the one to return to, the deadline as epoch seconds), so it outlives the session that started
it: any session, or the emulator's timer with nobody connected, rolls it back once the deadline passed.

Factory state (first use of a state directory): revision 1, applied and saved, holding ``factory.py``'s
tree: the underlay the lab provisions (hostname, ports, addresses, BGP) when the lab's FabricState
names the switch, else ``system hostname cumulus``.
"""

from __future__ import annotations

import copy
import fcntl
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.cumulus.factory import factory_tree
from xoff.lab.emulators.cumulus.tree import Tree

STATE_FILE = "nvue.json"


@dataclass
class Revision:
    rev_id: int
    tree: Tree
    state: str  # pending | applied | detached | superseded (was applied once)
    user: str
    date: str = ""  # the apply date, once applied
    message: str = ""


@dataclass
class Confirm:
    """An apply on trial: ``rev_id`` is applied, ``previous`` comes back at ``deadline`` unless confirmed."""

    rev_id: int
    previous: int
    deadline: float
    user: str


@dataclass
class Nvue:
    revisions: dict[int, Revision] = field(default_factory=dict)
    applied: int = 1
    startup: Tree = field(default_factory=factory_tree)
    pending: dict[str, int] = field(default_factory=dict)  # user -> their pending revision
    history: list[dict[str, Any]] = field(default_factory=list)  # one entry per apply
    next_id: int = 2
    confirm: Confirm | None = None

    def applied_tree(self) -> Tree:
        return self.revisions[self.applied].tree

    def new_revision(self, user: str, tree: Tree, state: str = "pending") -> Revision:
        rev = Revision(self.next_id, copy.deepcopy(tree), state, user)
        self.revisions[rev.rev_id] = rev
        self.next_id += 1
        return rev

    def to_json(self) -> dict[str, Any]:
        return {
            "revisions": {str(k): vars(v) for k, v in self.revisions.items()},
            "applied": self.applied,
            "startup": self.startup,
            "pending": self.pending,
            "history": self.history,
            "next_id": self.next_id,
            "confirm": vars(self.confirm) if self.confirm is not None else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Nvue:
        return cls(
            revisions={int(k): Revision(**v) for k, v in data["revisions"].items()},
            applied=int(data["applied"]),
            startup=data["startup"],
            pending={str(k): int(v) for k, v in data["pending"].items()},
            history=list(data["history"]),
            next_id=int(data["next_id"]),
            confirm=Confirm(**data["confirm"]) if data.get("confirm") else None,
        )

    @classmethod
    def factory(cls, tree: Tree | None = None) -> Nvue:
        now = stamp()
        first = factory_tree() if tree is None else tree
        rev = Revision(1, copy.deepcopy(first), "applied", "root", now, "Config update by startup")
        return cls(
            revisions={1: rev},
            startup=copy.deepcopy(first),
            history=[{"apply_id": "rev_1_apply_1", "rev_id": 1, "date": now, "type": "CLI", "user": "root"}],
        )


def stamp() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())


class Store:
    """``ctx`` (when given) says which switch this is, for its factory state (``factory.py``)."""

    def __init__(self, state_dir: Path, ctx: EmulatorContext | None = None) -> None:
        self.root = state_dir
        self.file = state_dir / STATE_FILE
        self.ctx = ctx

    @contextmanager
    def locked(self) -> Iterator[Nvue]:
        """The state, for reading and changing; written back when the block ends without an exception."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                state = self._load()
                yield state
                self._save(state)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def read(self) -> Nvue:
        with self.locked() as state:
            return state

    def peek(self) -> Nvue:
        """The state without the lock and without writing it back (``nvue.json`` is replaced whole, so
        it reads consistently): for checks that change nothing, such as a trial's deadline."""
        return self._load()

    def _load(self) -> Nvue:
        if not self.file.exists():
            return Nvue.factory(factory_tree(self.ctx))
        return Nvue.from_json(json.loads(self.file.read_text(encoding="utf-8")))

    def _save(self, state: Nvue) -> None:
        tmp = self.file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state.to_json(), indent=1), encoding="utf-8")
        tmp.replace(self.file)
