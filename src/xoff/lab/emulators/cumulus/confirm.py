"""NVUE's commit-confirm: ``nv config apply [<rev>] --confirm [<time>]`` applies a revision on trial,
and NVUE puts the previous applied revision back by itself unless ``nv config apply --confirm-yes``
comes in time; ``--confirm-no`` puts it back at once, ``--confirm-status`` tells the time left.

Published (NVIDIA's NVUE reference, "Config Commands"; the option names as NVIDIA's own tests and
NAPALM's Cumulus driver send them): the four options; ten minutes when ``--confirm`` has no time; a
bare number is minutes (``--confirm 60`` is one hour), ``300s`` is seconds; during the trial the
revision's state in ``nv config revision -o json`` is ``confirm``. Not published, so chosen here and
kept in this module: the wording of ``--confirm-status``, of ``confirmed [rev_id: N]``, and of the
refusals (a second apply while one is on trial, a confirm with nothing on trial, a bad time).

The trial lives in ``nvue.json`` (``store.Confirm``), not in the session: a dropped SSH session does not
stop the clock. Every ``nv`` command first rolls back a trial whose deadline passed, and each session's
emulator arms a timer thread for the deadline, so the rollback also happens with nobody connected.
Startup (auto-save) is written on confirmation, not at the trial apply: a reboot during the trial
comes back with the previous configuration, as the rollback would.
"""

from __future__ import annotations

import copy
import re

from xoff.lab.emulators.cumulus.store import Confirm, Nvue, stamp

DEFAULT_S = 600  # ten minutes
MAX_S = 7 * 24 * 3600
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 60}  # a bare number is minutes
_TIME = re.compile(r"(\d+)([smhd]?)")
CONFIRM_STATE = "confirm"
REFUSED_STATE = "confirm_no"  # a trial rolled back, by --confirm-no or by the clock


class ConfirmError(ValueError):
    pass


def is_time(word: str) -> bool:
    return _TIME.fullmatch(word) is not None


def seconds(word: str | None) -> int:
    """``--confirm``'s time in seconds (ten minutes when it has none)."""
    if word is None:
        return DEFAULT_S
    found = _TIME.fullmatch(word)
    if found is None:
        raise ConfirmError(
            f"Error: Invalid confirm time: {word} (allowed: <N>s, <N>m, <N>h, <N>d; <N> alone is minutes)"
        )
    value = int(found.group(1)) * UNITS[found.group(2)]
    if not 0 < value <= MAX_S:
        raise ConfirmError(f"Error: Invalid confirm time: {word} (allowed: 1s to 7d)")
    return value


def busy(state: Nvue) -> str:
    """The refusal of any other apply while a revision is on trial."""
    assert state.confirm is not None
    return (
        f"Error: rev_id {state.confirm.rev_id} is applied and waiting for confirmation: "
        "run nv config apply --confirm-yes or --confirm-no first"
    )


def start(state: Nvue, rev_id: int, previous: int, deadline: float, user: str) -> None:
    """``rev_id`` was just applied on trial (the caller applied it, without saving startup)."""
    state.confirm = Confirm(rev_id, previous, deadline, user)
    state.revisions[rev_id].state = CONFIRM_STATE


def accept(state: Nvue, rev: str | None) -> str:
    """``--confirm-yes``: the trial becomes the applied revision for good, and startup (auto-save)."""
    trial = _trial(state, rev)
    state.confirm = None
    state.revisions[trial.rev_id].state = "applied"
    state.startup = copy.deepcopy(state.revisions[trial.rev_id].tree)
    return f"confirmed [rev_id: {trial.rev_id}]\n"


def refuse(state: Nvue, rev: str | None, user: str, message: str) -> Confirm:
    """``--confirm-no`` or the deadline: the previous revision is applied again (state only; the caller
    carries it into the system). Returns the trial that ended."""
    trial = _trial(state, rev)
    state.confirm = None
    state.revisions[trial.rev_id].state = REFUSED_STATE
    back = state.revisions[trial.previous]
    back.state = "applied"
    state.applied = trial.previous
    count = sum(1 for h in state.history if h["rev_id"] == trial.previous) + 1
    state.history.append(
        {"apply_id": f"rev_{trial.previous}_apply_{count}", "rev_id": trial.previous, "date": stamp(),
         "type": "CLI", "user": user, "message": message}
    )  # fmt: skip
    return trial


def status(state: Nvue, now: float) -> str:
    if state.confirm is None:
        return "No apply is waiting for confirmation\n"
    left = max(0, int(state.confirm.deadline - now + 0.999))
    return f"rev_id {state.confirm.rev_id} is waiting for confirmation: {left} seconds left before rollback to rev_id {state.confirm.previous}\n"


def lapsed(state: Nvue, now: float) -> bool:
    return state.confirm is not None and state.confirm.deadline <= now


def _trial(state: Nvue, rev: str | None) -> Confirm:
    if state.confirm is None:
        raise ConfirmError("Error: No apply is waiting for confirmation")
    if rev is not None and rev != str(state.confirm.rev_id):
        raise ConfirmError(f"Error: rev_id {rev} is not waiting for confirmation (rev_id {state.confirm.rev_id} is)")
    return state.confirm
