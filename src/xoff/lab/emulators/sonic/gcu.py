"""SONiC's generic config updater (GCU): ``config apply-patch``, ``replace``, ``rollback`` and
checkpoints, with the messages sonic-utilities 202411 prints (``generic_config_updater/
generic_updater.py``: the ``Patch Applier:``, ``Config Replacer:`` and ``Config Rollbacker:``
lines go to the console).

Validation follows the GCU's own order: JSON Patch structure (``Validate json patch: ... failed
due to:``), forbidden field operations, empty tables, tables without YANG models, then the whole
target CONFIG_DB against SONiC's YANG models (``Given patch will produce invalid config. Error:
Data Loading Failed`` + libyang's message). One deliberate difference: 202411's ``config
apply-patch`` first runs a YANG pre-check whose error text only reaches syslog (``Failed validating
patch``); the emulator skips it so that the user sees the YANG message, as the GCU reports it.

The patch sorter's reordering is not emulated: each operation is one change.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import jsonpatch
import jsonpointer

from xoff.lab.emulators.sonic.store import ConfigDb

SCOPE = "localhost"  # HOST_NAMESPACE: a single-ASIC switch's scope in every message
ILLEGAL_REMOVALS = ("/PFC_WD/GLOBAL/POLL_INTERVAL", "/PFC_WD/GLOBAL", "/LOOPBACK_INTERFACE/Loopback0")

_LINE = re.compile(r", line number \d+(?=\.\))")  # the XML document's line: not SONiC's to print

Validator = Callable[[ConfigDb], list[str]]


class GcuError(Exception):
    pass


def _dump(ops: Any) -> str:
    return json.dumps(ops)


def _canonical(op: dict[str, Any]) -> dict[str, Any]:
    keys = ("op", "from", "path", "value")
    return {k: op[k] for k in keys if k in op}


def yang_error(problems: list[str]) -> str:
    """sonic_yang's SonicYangException text for libyang's messages."""
    cleaned = [_LINE.sub("", p.removeprefix("libyang err : ").split(" [CONFIG_DB ", 1)[0]) for p in problems]
    return "Data Loading Failed\n" + "\n".join(cleaned)


def simulate(config: ConfigDb, ops: list[dict[str, Any]]) -> ConfigDb:
    """The target configuration; raises GcuError with jsonpatch's message."""
    try:
        result: ConfigDb = jsonpatch.JsonPatch(copy.deepcopy(ops)).apply(copy.deepcopy(config))
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, TypeError, KeyError) as exc:
        raise GcuError(str(exc)) from None
    return result


class Updater:
    def __init__(self, validate: Validator, yang_tables: set[str]) -> None:
        self.validate = validate
        self.yang_tables = yang_tables
        self.log: list[str] = []

    def _say(self, title: str, message: str) -> None:
        self.log.append(f"{title}: {message}")

    # --- Patch Applier ---------------------------------------------------------------------------

    def apply(self, current: ConfigDb, ops: list[dict[str, Any]]) -> ConfigDb:
        """PatchApplier.apply: the target configuration, or GcuError (lines so far in self.log)."""
        say = self._say
        title = "Patch Applier"
        say(title, f"{SCOPE}: Patch application starting.")
        say(title, f"{SCOPE}: Patch: {_dump(ops)}")
        say(title, f"{SCOPE} getting current config db.")
        say(title, f"{SCOPE}: simulating the target full config after applying the patch.")
        target = simulate(current, ops)
        say(title, f"{SCOPE}: validating all JsonPatch operations are permitted on the specified fields")
        for op in jsonpatch.make_patch(current, target):
            if op["op"] == "remove" and op["path"] in ILLEGAL_REMOVALS:
                raise GcuError(f"Given patch operation is invalid. Operation: remove is illegal on field: {op['path']}")
        say(
            title,
            f"{SCOPE}: validating target config does not have empty tables,\n"
            "                            since they do not show up in ConfigDb.",
        )
        empty = [t for t, entries in target.items() if not entries]
        if empty:
            raise GcuError(
                f"{SCOPE}: given patch is not valid because it will result in empty tables "
                "                                which is not allowed in ConfigDb. "
                f"                                Table{'s' if len(empty) != 1 else ''}: {', '.join(empty)}"
            )
        say(title, f"{SCOPE}: sorting patch updates.")
        if any(not self._has_yang(op, target) for op in ops):
            raise GcuError("Given patch is not valid because it has changes to tables without YANG models")
        problems = self.validate(target)
        if problems:
            raise GcuError(f"Given patch will produce invalid config. Error: {yang_error(problems)}")
        changes = [_dump([_canonical(op)]) for op in ops]
        n = len(changes)
        plural, colon = ("s" if n != 1 else ""), (":" if n > 0 else ".")
        say(title, f"The {SCOPE} patch was converted into {n} change{plural}{colon}")
        say(title, f"{SCOPE}: applying {n} change{plural} in order{colon}")
        for change in changes:
            say(title, f"  * {change}")
        say(title, f"{SCOPE}: verifying patch updates are reflected on ConfigDB.")
        say(title, f"{SCOPE} patch application completed.")
        return target

    def _has_yang(self, op: dict[str, Any], target: ConfigDb) -> bool:
        parts = jsonpointer.JsonPointer(op["path"]).parts
        tables = list(target) if not parts else [parts[0]]
        return all(t in self.yang_tables for t in tables)

    # --- Config Replacer / Rollbacker ------------------------------------------------------------

    def replace(self, current: ConfigDb, target: ConfigDb) -> ConfigDb:
        title = "Config Replacer"
        self._say(title, "Config replacement starting.")
        self._say(title, f"Target config length: {len(json.dumps(target))}.")
        self._say(title, "Getting current config db.")
        self._say(title, "Generating patch between target config and current config db.")
        ops = list(jsonpatch.make_patch(current, target))
        self._say(title, "Applying patch using 'Patch Applier'.")
        result = self.apply(current, ops)
        self._say(title, "Verifying config replacement is reflected on ConfigDB.")
        self._say(title, "Config replacement completed.")
        return result

    def rollback(self, current: ConfigDb, name: str, checkpoint: ConfigDb | None) -> ConfigDb:
        title = "Config Rollbacker"
        self._say(title, "Config rollbacking starting.")
        self._say(title, f"Checkpoint name: {name}.")
        self._say(title, f"Verifying '{name}' exists.")
        if checkpoint is None:
            raise GcuError(f"Checkpoint '{name}' does not exist")
        self._say(title, "Loading checkpoint into memory.")
        self._say(title, "Replacing config using 'Config Replacer'.")
        result = self.replace(current, checkpoint)
        self._say(title, "Config rollbacking completed.")
        return result

    def checkpoint(self, name: str, path: str) -> None:
        title = "Config Rollbacker"
        for message in (
            "Config checkpoint starting.",
            f"Checkpoint name: {name}.",
            "Getting current config db.",
            "Getting checkpoint full-path.",
            "Ensuring checkpoint directory exist.",
            f"Saving config db content to {path}.",
            "Config checkpoint completed.",
        ):
            self._say(title, message)

    def delete_checkpoint(self, name: str, exists: bool) -> None:
        title = "Config Rollbacker"
        self._say(title, "Deleting checkpoint starting.")
        self._say(title, f"Checkpoint name: {name}.")
        self._say(title, "Checking checkpoint exists.")
        if not exists:
            raise GcuError(f"Checkpoint '{name}' does not exist")
        self._say(title, "Deleting checkpoint.")
        self._say(title, "Deleting checkpoint completed.")
