"""``xoff_connect``: log in and have the device answer one harmless command (the connect step).

    - name: Connect | log in and have the device answer
      xoff_connect:

The command is the platform's (``xoff.push.ansible_steps.READS``: ``hostname`` in a switch's or host's shell,
``show version`` on a ``network_cli`` session, which logs in at this first request), sent the way
``ansible.builtin.raw`` or ``eos_command`` send it, but from this task's own worker: no module process. So a
refused login or host key, no route or no answer fails the connect step, as under Nornir.
"""

from __future__ import annotations

from typing import Any

from ansible.errors import AnsibleActionFail  # type: ignore[import-untyped]
from ansible.module_utils.connection import ConnectionError as CliError  # type: ignore[import-untyped]
from ansible.plugins.action import ActionBase  # type: ignore[import-untyped]

from xoff.contracts.apply import ApplyError
from xoff.push.ansible_steps import ask, read_for


class ActionModule(ActionBase):  # type: ignore[misc]
    TRANSFERS_FILES = False
    _supports_check_mode = True  # reads only

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = super().run(tmp, task_vars)
        platform = str(self._task.args.get("platform") or (task_vars or {}).get("xoff_platform", ""))
        try:
            command = read_for(platform).connect
            answer = ask(self._connection, self._low_level_execute_command, command)
        except (ApplyError, CliError) as exc:
            raise AnsibleActionFail(str(exc)) from None
        if answer.rc != 0:
            why = next((ln for ln in (answer.stderr + answer.stdout).splitlines() if ln.strip()), "no output")
            raise AnsibleActionFail(f"{command}: exit status {answer.rc}: {why.strip()}")
        result["changed"] = False
        return result
