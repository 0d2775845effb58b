"""``xoff_write``: write files on the controller, in the controller's own process.

The playbooks keep what they read from a device on the controller (the backup, EOS's replace file). Doing that with
``ansible.builtin.file`` and ``copy`` delegated to localhost starts a module process per host and task (AnsiballZ,
its Python, its imports): most of a no-change push's time (``bench/results/push_scale.md``). An action plugin runs
in the worker Ansible already forked for the task, so this writes directly there.

    - name: Backup | write it on the controller
      xoff_write:
        files:
          - path: /abs/path/file          # parent directories are made (mode 0700) as needed
            content: "{{ text }}"         # written as is (UTF-8), mode 0600, replaced atomically
      no_log: true                        # the content is device configuration

``changed`` is true when some file's content was new. Check mode writes nothing and says what would change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.errors import AnsibleActionFail  # type: ignore[import-untyped]
from ansible.plugins.action import ActionBase  # type: ignore[import-untyped]

from xoff.push.ansible_steps import write_file


def _entries(files: Any) -> list[tuple[Path, str]]:
    """The ``files`` argument: a list of {path, content}, each path absolute."""
    if not isinstance(files, list) or not files:
        raise AnsibleActionFail("xoff_write: 'files' must be a non-empty list of {path, content}")
    entries = []
    for item in files:
        if not isinstance(item, dict) or set(item) != {"path", "content"}:
            raise AnsibleActionFail("xoff_write: each entry of 'files' has exactly the keys 'path' and 'content'")
        path = Path(str(item["path"]))
        if not path.is_absolute():
            raise AnsibleActionFail(f"xoff_write: path {path} is not absolute")
        entries.append((path, str(item["content"])))
    return entries


class ActionModule(ActionBase):  # type: ignore[misc]
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _requires_connection = False  # the controller's own files: no session to the device

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = super().run(tmp, task_vars)
        entries = _entries(self._task.args.get("files"))
        if self._play_context.check_mode:
            result["changed"] = any(not p.is_file() or p.read_text(encoding="utf-8") != c for p, c in entries)
            return result
        try:
            written = [
                write_file(path, content) for path, content in entries
            ]  # every file, not up to the first new one
            result["changed"] = any(written)
        except OSError as exc:
            raise AnsibleActionFail(f"xoff_write: {exc}") from None
        result["paths"] = [str(p) for p, _ in entries]
        return result
