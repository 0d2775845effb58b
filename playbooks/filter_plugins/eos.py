"""Jinja filters for Arista EOS, used by playbooks/tasks/eos/: the Nornir EOS strategy's own diff
(``xoff.platforms.eos.apply``), so both engines count and show the same change for a switch.

- ``running | xoff_eos_diff(folder)``: the hierarchical diff lines (section by section, EOS defaults
  normalised away) from ``show running-config`` to the rendered ``running-config`` in ``folder``.

Both engines send the same thing: the whole rendered configuration in a configuration session
(``rollback clean-config`` and every line). Like ``host_state.py`` these import ``xoff``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.errors import AnsibleFilterError  # type: ignore[import-untyped]

from xoff.contracts.apply import ApplyError
from xoff.platforms.eos.apply import RUNNING_CONFIG, Strategy


def diff(running: str, folder: str) -> list[str]:
    path = Path(folder) / RUNNING_CONFIG
    if not path.is_file():
        raise AnsibleFilterError(f"no rendered {RUNNING_CONFIG} for this switch in {folder}")
    try:
        return Strategy().diff(running, {RUNNING_CONFIG: path.read_text(encoding="utf-8")}).lines
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {"xoff_eos_diff": diff}
