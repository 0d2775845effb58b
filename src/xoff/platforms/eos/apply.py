"""Push to Arista EOS: a configuration session replacing the whole configuration, committed with a
timer, verified, then confirmed.

- backup: ``show running-config``;
- diff: hierarchical (``config_tree``): section by section, EOS defaults normalised away, of what
  xoff manages only (the commands it renders): the lines a switch keeps that xoff does not render
  (EOS's clean-config, a site's users, management, NTP ...) are no change and no drift;
- apply: ``configure session xoff-<run>``, ``rollback clean-config`` + the running-config's lines
  xoff does not manage (so the replace keeps them, as they were) + the rendered configuration,
  written in one go (as a paste: EOS reads it line by line, echoing each line and printing its
  prompt, and a refused line's ``% ...`` message in place) and read back to the prompt that follows
  a closing comment line; one round trip instead of one per line, and every refusal still seen,
  ``show session-config diffs`` (EOS's own diff, kept in the error text on refusal),
  ``commit timer 00:05:00``: EOS rolls the change back by itself unless it is confirmed in time,
  so a controller that loses the device mid-change leaves it safe;
- confirm (after verify): ``configure session xoff-<run> commit``;
- rollback: ``configure session xoff-<run> abort`` (during the timer: back to the previous
  configuration at once; before the commit: the running-config was never touched), else
  ``configure replace`` of the backup put on ``flash:``.

The lab's users (and many sites') log in at privilege 1, so every session starts with ``enable``.
"""

from __future__ import annotations

import re

from xoff.contracts.apply import ApplyError, ApplyStrategy, ChangeSet
from xoff.contracts.session import Session
from xoff.platforms.eos import COMMIT_TIMER
from xoff.platforms.eos.config_tree import config_diff, config_lines, unmanaged_lines

RUNNING_CONFIG = "running-config"
READ_TIMEOUT_S = 60.0
PROMPT = r"#\s*$"  # any privileged prompt: spine2#, spine2(config-s-xoff-1)#
# the end of ``show running-config`` (its last line is ``end``) or of a refusal (``% ...``), then the
# prompt: read to it, netmiko does not look for the prompt first (``find_prompt``: ~0.3 s of sleeps
# per command); any prompt line ends it (a site's own ``prompt`` format, a hostname the commit changed)
SHOW_CONFIG_END = r"(?m:^(?:end|% [^\n]*))[ \t]*\r?\n[^\n]*[#>][ \t]*\Z"
FLASH_BACKUP = "/mnt/flash/xoff-{run}-backup.cfg"
END_MARK = "! xoff end of {session}"  # a comment: EOS takes it in any mode, changes nothing, echoes it


def _errors(text: str) -> list[str]:  # every EOS refusal starts with "% "
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("% ")]


class Strategy(ApplyStrategy):
    platform = "eos"

    def __init__(self, run_id: str = "manual") -> None:
        super().__init__(run_id)
        self.session_name = f"xoff-{run_id}"
        self.opened = False

    def _run(self, session: Session, command: str) -> str:
        out = str(session.send_command(command, expect_string=PROMPT, read_timeout=READ_TIMEOUT_S))
        errors = _errors(out)
        if errors:
            raise ApplyError(f"{command}: {errors[0]}")
        return out

    def prepare(self, session: Session) -> None:
        session.enable()

    def backup(self, session: Session) -> str:
        out = str(
            session.send_command("show running-config", expect_string=SHOW_CONFIG_END, read_timeout=READ_TIMEOUT_S)
        )
        if not re.search(r"(?m)^end[ \t]*\r?$", out) and _errors(out):  # refused: no configuration to keep
            raise ApplyError(f"show running-config: {_errors(out)[0]}")
        return out

    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:
        try:
            text = desired[RUNNING_CONFIG]
        except KeyError:
            raise ApplyError(f"no rendered {RUNNING_CONFIG}") from None
        # the payload restates what xoff does not manage, first: the base the rendered file is read onto
        payload = [*unmanaged_lines(running, text), *config_lines(text)]
        return ChangeSet(lines=config_diff(running, text), payload=payload)

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:  # noqa: ARG002
        self.opened = True
        self._run(session, f"configure session {self.session_name}")
        mark = END_MARK.format(session=self.session_name)
        out = str(
            session.send_command(
                "\n".join(["rollback clean-config", *change.payload, mark]),
                # the prompt after the closing comment's echo: every line before it has been read
                expect_string=re.escape(mark) + r"[^\n]*\n[^\n]*" + PROMPT,
                read_timeout=READ_TIMEOUT_S,
                cmd_verify=False,
                strip_prompt=False,
                strip_command=False,
            )
        )
        if _errors(out):
            raise ApplyError(f"configure session {self.session_name}: {_errors(out)[0]}")
        self._run(session, "show session-config diffs")
        self._run(session, f"commit timer {COMMIT_TIMER}")

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        return config_diff(self.backup(session), desired[RUNNING_CONFIG])

    def confirm(self, session: Session) -> None:
        self._run(session, f"configure session {self.session_name} commit")

    def rollback(self, session: Session, backup: str) -> None:
        session.send_command("end", expect_string=PROMPT)  # out of any configuration mode the failure left
        if self.opened:
            out = str(session.send_command(f"configure session {self.session_name} abort", expect_string=PROMPT))
            if not _errors(out):
                return
        path = FLASH_BACKUP.format(run=self.run_id)  # no session to abort (gone, or the timer lapsed)
        session.put_file(path, backup)
        self._run(session, f"configure replace flash:{path.rsplit('/', 1)[1]}")

    def restore_change(self, running: str, backup: str) -> ChangeSet:
        """``configure replace`` of the backup: its lines against running (any other text difference,
        one line)."""
        if _lines(running) == _lines(backup):
            return ChangeSet()
        return ChangeSet(lines=config_diff(running, backup) or ["~ running-config differs from the backup"])


def _lines(text: str) -> list[str]:
    """A running-config's lines, as either engine's read gives them (trailing spaces and blank ends aside)."""
    return [ln.rstrip() for ln in text.strip().splitlines()]
