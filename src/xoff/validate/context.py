"""What a check is given: the desired state, the observed snapshot when there is one, its thresholds."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from xoff.contracts.observed import Snapshot
from xoff.desired.models import FabricState

Need = Literal["desired", "observed"]
NEEDS: tuple[Need, ...] = ("desired", "observed")


class Params(BaseModel):
    """Base of every check's thresholds: strict, frozen, defaults for everything (a catalog may omit them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class NoParams(Params):
    """A check without thresholds."""


P = TypeVar("P", bound=Params)
T = TypeVar("T")


class Derived:
    """One run's memo of what its checks derive from a state (the ends of every link, the RoCE NICs): each pure
    function of one state is worked out once per run and state, then shared by every check that reads it, rather
    than each check walking 30,000 links again. One per ``validate()`` run, never global: it dies with the run."""

    def __init__(self) -> None:
        self._memo: dict[tuple[int, Callable[[FabricState], object]], tuple[FabricState, object]] = {}

    def of(self, fn: Callable[[FabricState], T], state: FabricState) -> T:
        key = (id(state), fn)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is state:  # the state is held, so its id is not reused within the run
            return hit[1]  # type: ignore[return-value]
        value = fn(state)
        self._memo[key] = (state, value)
        return value


@dataclass(frozen=True)
class CheckContext:
    """``subject`` is the state under judgement: observed when a snapshot is given, else desired."""

    desired: FabricState
    observed: Snapshot | None = None
    params: Params = field(default_factory=NoParams)
    selected: frozenset[str] | None = None  # ``validate --limit``: the devices judged (None: all)
    derived: Derived = field(default_factory=Derived, compare=False, repr=False)  # shared by the run's checks

    @property
    def subject(self) -> FabricState:
        return self.observed.observed if self.observed is not None else self.desired

    @property
    def snapshot(self) -> Snapshot:
        """The snapshot; only for checks that declare ``needs = {"observed"}`` (the runner skips them otherwise)."""
        if self.observed is None:
            raise RuntimeError("this check needs an observed snapshot but was run without one")
        return self.observed

    def derive(self, fn: Callable[[FabricState], T], state: FabricState | None = None) -> T:
        """``fn(state)`` (the subject when no state is given), worked out once per run: ``fn`` must be a pure
        function of the state (module-level, so that every check passes the same one)."""
        return self.derived.of(fn, self.subject if state is None else state)

    def params_as(self, cls: type[P]) -> P:
        """The thresholds, typed as the check's ``Params`` class."""
        if not isinstance(self.params, cls):
            raise TypeError(f"check parameters are {type(self.params).__name__}, expected {cls.__name__}")
        return self.params

    def selects(self, device: str) -> bool:
        """A finding about ``device`` is reported: it is selected, or it names no device of the fabric (a
        fabric-wide finding)."""
        return self.selected is None or device in self.selected or device not in self.desired.devices

    def chosen(self, devices: Iterable[str]) -> set[str]:
        """The selected ones of ``devices`` (a check's "not judged on ..." names no device ``--limit`` left out)."""
        return {d for d in devices if self.selects(d)}

    def has(self, need: Need) -> bool:
        return need == "desired" or self.observed is not None
