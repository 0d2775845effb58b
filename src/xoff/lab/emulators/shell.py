"""The bash-like login shell the SONiC and Cumulus emulators both put in front of their NOS CLI.

One input line is split the way bash splits it (quotes, ``;``/``&&``/``||``, ``|``, ``> FILE``/``>> FILE``,
``cat > FILE <<EOF`` here-documents for putting a file on the switch), then each simple command goes to
the emulator's ``run`` (its builtins, ``sudo``, the NOS's own commands). ``| grep``/``head``/``tail`` filter
what a command printed. The shell keeps the here-document in progress; the emulator says where a switch
path lives and which commands may take a here-document (bash takes one anywhere; the emulators only
``cat``, to put a file on the switch). Text uses "\\n"; the emulator applies a terminal's line ends.

Only lab plumbing lives here: what each NOS accepts and prints stays in its own emulator.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from xoff.lab.emulators.base import EmulatorBase, Reply

OPERATORS = {";", "&&", "||"}
ONLY_CAT_HEREDOC = "-bash: here-documents are only supported as: cat > FILE <<EOF\n"
UNMATCHED_QUOTE = "-bash: unexpected EOF while looking for matching quote\n"

Run = Callable[[list[str]], tuple[Reply, bool]]  # a simple command's argv -> (its reply, end the session)


@dataclass
class Heredoc:
    delimiter: str
    file: Path
    append: bool
    lines: list[str] = field(default_factory=list)


class Shell:
    """One session's shell: ``run`` runs a simple command, ``path`` maps a switch path to its file,
    ``heredoc_ok`` says whether a command may read a here-document, and ``intercept`` (if given) may
    take a line first (a question the last command asked)."""

    def __init__(
        self,
        run: Run,
        path: Callable[[str], Path],
        heredoc_ok: Callable[[list[str]], bool],
        intercept: Callable[[str], Reply | None] | None = None,
    ) -> None:
        self._run = run
        self._path = path
        self._heredoc_ok = heredoc_ok
        self._intercept = intercept
        self._heredoc: Heredoc | None = None

    @property
    def in_heredoc(self) -> bool:
        return self._heredoc is not None

    def input(self, line: str) -> Reply:
        """What the session typed (one line, or several at once): the replies joined, the last status;
        stops at a command that ends the session."""
        out, status, close = "", 0, False
        for physical in line.replace("\r\n", "\n").split("\n"):
            result, close = self.line(physical.rstrip("\r"))
            out += result.output
            status = result.status
            if close:
                break
        return Reply(out, status, close=close)

    def line(self, text: str) -> tuple[Reply, bool]:
        if self._heredoc is not None:
            if text == self._heredoc.delimiter:
                self.finish_heredoc()
            else:
                self._heredoc.lines.append(text)
            return Reply(), False
        if self._intercept is not None and (answer := self._intercept(text)) is not None:
            return answer, False
        if not text.strip() or text.lstrip().startswith("#"):
            return Reply(), False
        try:
            lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            return Reply(UNMATCHED_QUOTE, 2), False
        out, status, skip = "", 0, False
        segment: list[str] = []
        for token in [*tokens, ";"]:
            if token not in OPERATORS:
                segment.append(token)
                continue
            if segment and not skip:
                result, close = self._pipeline(segment)
                out += result.output
                status = result.status
                if close:
                    return Reply(out, status), True
            segment = []
            skip = (token == "&&" and status != 0) or (token == "||" and status == 0)
        return Reply(out, status), False

    def finish_heredoc(self) -> None:
        """Write the here-document in progress (at its delimiter, or when an exec channel's input ends)."""
        doc = self._heredoc
        if doc is None:
            return
        self._heredoc = None
        doc.file.parent.mkdir(parents=True, exist_ok=True)
        with doc.file.open("a" if doc.append else "w", encoding="utf-8") as handle:
            handle.write("".join(f"{line}\n" for line in doc.lines))

    def _pipeline(self, tokens: list[str]) -> tuple[Reply, bool]:
        stages: list[list[str]] = [[]]
        for token in tokens:
            if token == "|":
                stages.append([])
            else:
                stages[-1].append(token)
        argv, redirect, append, heredoc = redirections(stages[0])
        if heredoc is not None:
            if not self._heredoc_ok(argv) or redirect is None:
                return Reply(ONLY_CAT_HEREDOC, 2), False
            self._heredoc = Heredoc(heredoc, self._path(redirect), append)
            return Reply(), False
        result, close = self._run(argv)
        for stage in stages[1:]:
            result = filter_output(stage, result)
        if redirect is not None and not close:
            file = self._path(redirect)
            file.parent.mkdir(parents=True, exist_ok=True)
            with file.open("a" if append else "w", encoding="utf-8") as handle:
                handle.write(result.output)
            result = Reply("", result.status)
        return result, close


def redirections(words: list[str]) -> tuple[list[str], str | None, bool, str | None]:
    """A simple command's words -> (argv, ``>``/``>>`` file, append, here-document delimiter)."""
    argv: list[str] = []
    redirect, append, heredoc = None, False, None
    i = 0
    while i < len(words):
        word = words[i]
        if word in {">", ">>"} and i + 1 < len(words):
            redirect, append = words[i + 1], word == ">>"
            i += 2
        elif word == "<<" and i + 1 < len(words):
            heredoc = words[i + 1].lstrip("-")
            i += 2
        else:
            argv.append(word)
            i += 1
    return argv, redirect, append, heredoc


def filter_output(stage: list[str], result: Reply) -> Reply:
    """``| grep [-i] [-v] RE``, ``| head``/``tail`` [``-n N``, ``-N``]; any other filter is not found."""
    lines = result.output.splitlines()
    name, args = (stage[0], stage[1:]) if stage else ("", [])
    if name == "grep":
        flags = [a for a in args if a.startswith("-")]
        words = [a for a in args if not a.startswith("-")]
        if not words:
            return Reply("Usage: grep [OPTION]... PATTERNS [FILE]...\n", 2)
        regex = re.compile(words[0], re.IGNORECASE if "-i" in flags else 0)
        keep = [line for line in lines if bool(regex.search(line)) != ("-v" in flags)]
        return Reply("".join(f"{line}\n" for line in keep), 0 if keep else 1)
    if name in {"head", "tail"}:
        count = 10
        for i, arg in enumerate(args):
            if arg == "-n" and i + 1 < len(args):
                count = int(args[i + 1])
            elif re.fullmatch(r"-\d+", arg):
                count = int(arg[1:])
        picked = lines[:count] if name == "head" else lines[-count:] if count else []
        return Reply("".join(f"{line}\n" for line in picked))
    return Reply(f"-bash: {name}: command not found\n", 127)


# --- builtins both shells have (each emulator picks its own set) ---------------------------------------


def echo(args: list[str]) -> Reply:
    if args[:1] == ["-n"]:
        return Reply(" ".join(args[1:]))
    return Reply(" ".join(args) + "\n")


def cat(args: list[str], path: Callable[[str], Path]) -> Reply:
    out, status = "", 0
    for name in args:
        file = path(name)
        if file.is_file():
            out += file.read_text(encoding="utf-8")
        else:
            out += f"cat: {name}: No such file or directory\n"
            status = 1
    return Reply(out, status)


def rm(args: list[str], path: Callable[[str], Path]) -> Reply:
    force = any(a.startswith("-") and "f" in a for a in args)
    out, status = "", 0
    for name in [a for a in args if not a.startswith("-")]:
        file = path(name)
        if file.is_file():
            file.unlink()
        elif not force:
            out += f"rm: cannot remove '{name}': No such file or directory\n"
            status = 1
    return Reply(out, status)


class ShellEmulator(EmulatorBase):
    """An emulator whose every line goes through its ``Shell``: how it takes an exec channel and a typed line."""

    shell: Shell
    exec_mode: bool  # an exec channel: no terminal, so "\n" line ends (and questions read end-of-file)

    def execute(self, command: str) -> Reply:
        self.exec_mode = True
        reply = self.step(command)
        self.shell.finish_heredoc()  # a here-document ends with the channel's input
        return reply

    def handle(self, line: str) -> Reply:
        reply = self.shell.input(line)
        return Reply(self._eol(reply.output), reply.status, close=reply.close)

    def _eol(self, text: str) -> str:
        return text if self.exec_mode else text.replace("\n", "\r\n")
