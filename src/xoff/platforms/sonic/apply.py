"""Push to a community SONiC switch: CONFIG_DB by JSON Patch through the generic config updater.

- backup: ``show runningconfiguration all`` (CONFIG_DB as JSON, with FRR's running-config in ``bgpraw``);
- diff: a semantic JSON Patch from the running CONFIG_DB to the rendered ``config_db.json``, limited
  to the tables xoff renders (a table xoff does not render, e.g. a factory ``FEATURE`` or ``SYSLOG``
  table, is never touched); inside those tables xoff owns every key, and of a key's fields the ones it
  models (a factory ``PORT|Ethernet0 fec`` stays);
- apply: ``config checkpoint xoff-<run>`` then ``config apply-patch`` of the patch (put on the switch
  by SFTP), which the GCU validates whole against SONiC's YANG models before anything changes;
- rollback: ``config rollback xoff-<run>`` (or, without that checkpoint, ``config replace`` of the
  backup's CONFIG_DB);
- BGP: SONiC's bgpcfgd carries ``BGP_NEIGHBOR`` into FRR, so verify also compares FRR's neighbours
  (``bgpraw``) with the rendered ``frr.conf``.

The session is SONiC's bash login shell (netmiko ``linux``); ``config`` needs ``sudo``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from xoff.contracts.apply import ApplyError, ApplyStrategy, ChangeSet
from xoff.contracts.session import Session
from xoff.platforms.sonic.fields import modelled

CONFIG_DB = "config_db.json"
FRR_CONF = "frr.conf"
BGPRAW = "bgpraw"
PATCH_PATH = "/tmp/xoff-{run}.patch.json"
RESTORE_PATH = "/tmp/xoff-{run}.restore.json"
READ_TIMEOUT_S = 120.0
OK_PATCH = "Patch applied successfully."
OK_CHECKPOINT = "Checkpoint created successfully."
OK_ROLLBACK = "Config rolled back successfully."
OK_REPLACE = "Config replaced successfully."
_NEIGHBOR = re.compile(r"^\s*neighbor (\S+) remote-as (\S+)\s*$", re.MULTILINE)

Db = dict[str, dict[str, dict[str, Any]]]


def _pointer(*parts: str) -> str:
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def parse_running(text: str) -> tuple[Db, str]:
    """``show runningconfiguration all`` -> (CONFIG_DB, FRR running-config)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ApplyError(f"show runningconfiguration all: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ApplyError("show runningconfiguration all: not a JSON object")
    bgpraw = str(data.pop(BGPRAW, ""))
    return data, bgpraw


def config_patch(running: Db, desired: Db) -> tuple[list[dict[str, Any]], list[str]]:
    """JSON Patch (RFC 6902) and one human line per operation, for the tables of ``desired`` only.

    Whole tables and whole keys are added or removed as units; a key present on both sides is
    patched field by field, so an unchanged field is never rewritten, and a field xoff does not model
    (``fields.modelled``: PORT ``fec``/``autoneg``, DEVICE_METADATA ``timezone``, BGP_NEIGHBOR timers) is
    never removed: on a real switch dropping ``fec`` would take the link down."""
    ops: list[dict[str, Any]] = []
    lines: list[str] = []
    for table in sorted(desired):
        want, have = desired[table], running.get(table)
        if have is None:
            ops.append({"op": "add", "path": _pointer(table), "value": want})
            lines.extend(f"+ {table}|{key} {json.dumps(want[key], sort_keys=True)}" for key in sorted(want))
            continue
        for key in sorted(set(have) - set(want)):
            ops.append({"op": "remove", "path": _pointer(table, key)})
            lines.append(f"- {table}|{key}")
        for key in sorted(want):
            if key not in have:
                ops.append({"op": "add", "path": _pointer(table, key), "value": want[key]})
                lines.append(f"+ {table}|{key} {json.dumps(want[key], sort_keys=True)}")
                continue
            before, after = have[key], want[key]
            owned = modelled(table, key)
            for field in sorted(set(before) - set(after)):
                if owned is not None and field not in owned:
                    continue  # a field xoff does not model (PORT fec, DEVICE_METADATA timezone): the switch's own
                ops.append({"op": "remove", "path": _pointer(table, key, field)})
                lines.append(f"- {table}|{key} {field}={before[field]!r}")
            for field in sorted(after):
                if field not in before:
                    ops.append({"op": "add", "path": _pointer(table, key, field), "value": after[field]})
                    lines.append(f"+ {table}|{key} {field}={after[field]!r}")
                elif before[field] != after[field]:
                    ops.append({"op": "replace", "path": _pointer(table, key, field), "value": after[field]})
                    lines.append(f"~ {table}|{key} {field}={before[field]!r} -> {after[field]!r}")
    return ops, lines


def bgp_neighbors(frr_text: str) -> dict[str, str]:
    """neighbour address -> remote-as, from an FRR configuration (peer-group lines left out)."""
    return {m.group(1): m.group(2) for m in _NEIGHBOR.finditer(frr_text) if m.group(2) != "peer-group"}


def _desired_db(desired: dict[str, str]) -> Db:
    try:
        data: Db = json.loads(desired[CONFIG_DB])
    except (KeyError, ValueError) as exc:
        raise ApplyError(f"rendered {CONFIG_DB} missing or not JSON ({exc})") from None
    return data


def patch_file(ops: list[dict[str, Any]]) -> str:
    """The patch file's exact text, as both engines put it on the switch."""
    return json.dumps(ops, indent=2) + "\n"


def change_set(running: str, desired: dict[str, str]) -> ChangeSet:
    """The change from ``show runningconfiguration all`` to the rendered files: one pure function the
    Nornir strategy and the Ansible filters (playbooks/filter_plugins/config_db.py) both call."""
    db, _ = parse_running(running)
    ops, lines = config_patch(db, _desired_db(desired))
    return ChangeSet(lines=lines, payload=ops)


def verify_problems(running: str, desired: dict[str, str]) -> list[str]:
    """What still differs after a change: CONFIG_DB's owned tables, and FRR's neighbours (bgpcfgd)."""
    db, bgpraw = parse_running(running)
    _, lines = config_patch(db, _desired_db(desired))
    problems = [f"CONFIG_DB still differs: {line}" for line in lines]
    if FRR_CONF in desired:
        want, have = bgp_neighbors(desired[FRR_CONF]), bgp_neighbors(bgpraw)
        problems += [
            f"FRR neighbor {a}: remote-as {have.get(a)} (want {w})" for a, w in want.items() if have.get(a) != w
        ]
    return problems


def rollback_problems(running: str, backup: str) -> list[str]:
    """What differs from the backup after a rollback (empty: the rollback verified)."""
    want, _ = parse_running(backup)
    have, _ = parse_running(running)
    if have == want:
        return []
    _, lines = config_patch(have, want)
    tables = sorted(set(have) ^ set(want))
    return [f"CONFIG_DB differs from the backup: {line}" for line in lines] + [
        f"CONFIG_DB table {t} differs from the backup" for t in tables
    ]


def restore_file(backup: str) -> str:
    """The file ``config replace`` takes: the backup's CONFIG_DB (FRR's ``bgpraw`` left out)."""
    db, _ = parse_running(backup)
    return json.dumps(db, indent=4, sort_keys=True) + "\n"


def restore_lines(running: str, backup: str) -> list[str]:
    """What ``config replace`` of the backup's CONFIG_DB would change (empty: running equals it)."""
    have, _ = parse_running(running)
    want, _ = parse_running(backup)
    if have == want:
        return []
    _, lines = config_patch(have, want)
    lines += [f"- {table}" for table in sorted(set(have) - set(want))]
    return lines or ["~ CONFIG_DB differs from the backup in fields xoff does not model"]


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "(no output)"


class Strategy(ApplyStrategy):
    platform = "sonic"

    def __init__(self, run_id: str = "manual") -> None:
        super().__init__(run_id)
        self.checkpoint: str | None = None

    def _run(self, session: Session, command: str) -> str:
        return str(session.send_command(command, read_timeout=READ_TIMEOUT_S))

    def backup(self, session: Session) -> str:
        text = self._run(session, "show runningconfiguration all")
        parse_running(text)  # a backup that cannot be read back is no backup
        return text

    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:
        return change_set(running, desired)

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:  # noqa: ARG002
        name = f"xoff-{self.run_id}"
        self.checkpoint = name
        out = self._run(session, f"sudo config checkpoint {name}")
        if OK_CHECKPOINT not in out:
            raise ApplyError(f"config checkpoint {name}: {_last_line(out)}")
        path = PATCH_PATH.format(run=self.run_id)
        session.put_file(path, patch_file(change.payload))
        out = self._run(session, f"sudo config apply-patch {path}")
        if OK_PATCH not in out:
            raise ApplyError(f"config apply-patch: {_last_line(out)}")

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        return verify_problems(self.backup(session), desired)

    def rollback(self, session: Session, backup: str) -> None:
        if self.checkpoint is not None:
            out = self._run(session, f"sudo config rollback {self.checkpoint}")
            if OK_ROLLBACK in out:
                return
        self._replace(session, backup)  # no checkpoint (or it is gone): replace with the backup itself

    def _replace(self, session: Session, backup: str) -> None:
        path = RESTORE_PATH.format(run=self.run_id)
        session.put_file(path, restore_file(backup))
        out = self._run(session, f"sudo config replace {path}")
        if OK_REPLACE not in out:
            raise ApplyError(f"config replace {path}: {_last_line(out)}")

    def verify_rollback(self, session: Session, backup: str) -> list[str]:
        return rollback_problems(self.backup(session), backup)

    def restore_change(self, running: str, backup: str) -> ChangeSet:
        return ChangeSet(lines=restore_lines(running, backup))

    def restore(self, session: Session, change: ChangeSet, backup: str, of_run: str) -> None:  # noqa: ARG002
        """``config checkpoint xoff-<this run>`` (what undoes the restore, and a later rollback of it),
        then ``config replace`` of the backup's CONFIG_DB."""
        name = f"xoff-{self.run_id}"
        out = self._run(session, f"sudo config checkpoint {name}")
        if OK_CHECKPOINT not in out:
            raise ApplyError(f"config checkpoint {name}: {_last_line(out)}")
        self.checkpoint = name
        self._replace(session, backup)
