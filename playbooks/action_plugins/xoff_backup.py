"""``xoff_backup``: read the device's running state, keep it on the controller and, given the rendered
files, count what a push would change: the backup step (and the diff's count) in one task.

    - name: Backup | read the running configuration, keep it, count what differs from the rendered files
      xoff_backup:
        path: /abs/backups/<stamp>/<device>     # the backup file (0600; parent directories 0700)
        rendered: /abs/render/<device>          # optional: then the result has `changes` and `lines`
      register: xoff_read

The read is the platform's ``tasks/<platform>/backup.yml`` read, sent as ``ansible.builtin.raw``,
``ansible.builtin.command`` (a host's snapshot script on standard input) or ``eos_command`` sent it, and
kept in the same form; it runs in this task's worker on the controller (no module process, no second task
to write the file), and the device's text is never part of the result (only its path). The count is the
platform's own diff (``xoff.platforms.<platform>.apply``, as the Nornir flow counts). The result's
``xoff_step`` is the last step it ended in (``backup`` or ``diff``), which ``xoff.push.ansible_engine``
reports as the device's step. Check mode reads and counts but writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.module_utils.connection import ConnectionError as CliError  # type: ignore[import-untyped]
from ansible.plugins.action import ActionBase  # type: ignore[import-untyped]

from xoff.contracts.apply import ApplyError
from xoff.push.ansible_steps import ask, changes, read_for, write_file


class ActionModule(ActionBase):  # type: ignore[misc]
    TRANSFERS_FILES = False
    _supports_check_mode = True

    def _fail(self, result: dict[str, Any], step: str, message: str) -> dict[str, Any]:
        result.update(failed=True, msg=message, xoff_step=step)
        return result

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = super().run(tmp, task_vars)
        args = self._task.args
        platform = str(args.get("platform") or (task_vars or {}).get("xoff_platform", ""))
        path = Path(str(args.get("path", "")))
        if not path.is_absolute():
            return self._fail(result, "backup", f"xoff_backup: path {str(path)!r} is not absolute")
        try:
            read = read_for(platform)
            text = read.keep(
                ask(self._connection, self._low_level_execute_command, read.command, read.stdin and read.stdin())
            )
        except (ApplyError, CliError) as exc:
            return self._fail(result, "backup", str(exc))
        try:
            result["changed"] = False if self._play_context.check_mode else write_file(path, text)
        except OSError as exc:
            return self._fail(result, "backup", f"xoff_backup: {exc}")
        result.update(backup=str(path), xoff_step="backup")
        if args.get("rendered"):
            try:
                lines = changes(platform, text, Path(str(args["rendered"])))
            except (ApplyError, KeyError) as exc:
                return self._fail(result, "diff", str(exc))
            result.update(changes=len(lines), lines=lines, xoff_step="diff")
        return result
