"""Jinja filters for Arista EOS, used by playbooks/tasks/eos/: the Nornir EOS strategy's own diff
(``xoff.platforms.eos.apply``), so both engines count and show the same change for a switch.

- ``running | xoff_eos_diff(folder)``: the hierarchical diff lines (section by section, EOS defaults
  normalised away, of what xoff manages only) from ``show running-config`` to the rendered
  ``running-config`` in ``folder``;
- ``running | xoff_eos_replace(folder)``: the file the replace sends: the running-config's lines xoff
  does not manage (EOS's clean-config, the site's users, management, ...), then the rendered file.

Both engines send the same thing: in a configuration session, ``rollback clean-config``, the
running-config's unmanaged lines and every rendered line. Like ``host_state.py`` these import ``xoff``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.errors import AnsibleFilterError  # type: ignore[import-untyped]

from xoff.contracts.apply import ApplyError, ChangeSet
from xoff.platforms.eos.apply import RUNNING_CONFIG, Strategy


def _change(running: str, folder: str) -> ChangeSet:
    path = Path(folder) / RUNNING_CONFIG
    if not path.is_file():
        raise AnsibleFilterError(f"no rendered {RUNNING_CONFIG} for this switch in {folder}")
    try:
        return Strategy().diff(running, {RUNNING_CONFIG: path.read_text(encoding="utf-8")})
    except ApplyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def diff(running: str, folder: str) -> list[str]:
    return _change(running, folder).lines


def replace(running: str, folder: str) -> str:
    return "".join(f"{line}\n" for line in _change(running, folder).payload)


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {"xoff_eos_diff": diff, "xoff_eos_replace": replace}
