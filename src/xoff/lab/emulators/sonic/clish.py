"""A small stand-in for the click 7.0 command trees of SONiC's ``show`` and ``config``.

sonic-utilities 202411 pins ``click==7.0``; its groups use ``AliasedGroup`` (show) and
``AbbreviationGroup`` (config): a unique prefix selects a command (``show int st``), and so
does the shortest of several matches when it prefixes all of them. Errors print as click 7.0
prints them (``Usage:`` line, ``Try "show -h" for help.``, a blank line, ``Error: ...``; exit 2).
Only the commands the emulator implements are in the tree; anything else is
``Error: No such command "x".`` as on a real switch's unknown subcommand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

HELP_OPTIONS = ("-h", "--help", "-?")  # CONTEXT_SETTINGS of show/main.py and config/main.py


class UsageError(Exception):
    """click's UsageError: printed with the command's usage line, exit status 2."""

    def __init__(self, command: Command, path: str, message: str) -> None:
        super().__init__(message)
        self.command = command
        self.path = path
        self.message = message

    def text(self) -> str:
        return usage_error_text(self.command, self.path, self.message)


def usage_error_text(command: Command, path: str, message: str) -> str:
    return f'Usage: {path} {command.usage()}\nTry "{path} -h" for help.\n\nError: {message}\n'


@dataclass(frozen=True)
class Option:
    names: tuple[str, ...]  # ("-d", "--dry-run")
    dest: str
    flag: bool = True  # a flag takes no value
    multiple: bool = False
    choices: tuple[str, ...] = ()
    help: str = ""
    hidden: bool = False
    metavar: str = "TEXT"

    def hint(self) -> str:
        return " / ".join(f'"{n}"' for n in self.names)


@dataclass(frozen=True)
class Argument:
    dest: str
    metavar: str  # what usage and errors show: PATCH_FILE_PATH, <interface_name>
    required: bool = True
    many: bool = False  # nargs=-1
    int_range: tuple[int, int] | None = None

    def usage(self) -> str:
        text = self.metavar if self.required else f"[{self.metavar}]"
        return f"{text}..." if self.many else text


Handler = Callable[[dict[str, Any]], Any]


@dataclass
class Command:
    name: str
    help: str = ""
    options: tuple[Option, ...] = ()
    arguments: tuple[Argument, ...] = ()
    handler: Handler | None = None
    children: dict[str, Command] = field(default_factory=dict)
    hidden: bool = False

    @property
    def is_group(self) -> bool:
        return bool(self.children)

    def add(self, command: Command) -> Command:
        self.children[command.name] = command
        return command

    def usage(self) -> str:
        if self.is_group:
            return "[OPTIONS] COMMAND [ARGS]..."
        parts = ["[OPTIONS]", *(a.usage() for a in self.arguments)]
        return " ".join(parts)

    def find(self, word: str, path: str) -> Command | None:
        """The child a word selects: exact, else a unique prefix, else the shortest match that
        prefixes every match (AbbreviationGroup); several others fail as click does."""
        if word in self.children:
            return self.children[word]
        matches = sorted(n for n in self.children if n.lower().startswith(word.lower()))
        if not matches:
            return None
        if len(matches) == 1:
            return self.children[matches[0]]
        shortest = min(matches, key=len)
        if all(m.startswith(shortest) for m in matches):
            return self.children[shortest]
        raise UsageError(self, path, f"Too many matches: {', '.join(matches)}")

    def help_text(self, path: str) -> str:
        lines = [f"Usage: {path} {self.usage()}", ""]
        if self.help:
            lines += [f"  {line}".rstrip() for line in self.help.splitlines()] + [""]
        lines.append("Options:")
        rows = [
            (", ".join(o.names) + ("" if o.flag else f" {o.metavar}"), o.help) for o in self.options if not o.hidden
        ]
        rows.append(("-h, -?, --help", "Show this message and exit."))
        width = max(len(r[0]) for r in rows)
        lines += [f"  {name.ljust(width)}  {text}".rstrip() for name, text in rows]
        if self.is_group:
            lines += ["", "Commands:"]
            names = sorted(n for n, c in self.children.items() if not c.hidden)
            width = max(len(n) for n in names)
            lines += [
                f"  {n.ljust(width)}  {self.children[n].help.splitlines()[0] if self.children[n].help else ''}".rstrip()
                for n in names
            ]
        return "\n".join(lines) + "\n"


@dataclass
class Invocation:
    """A resolved command line: the chain of commands from the root, and the leaf's parameters."""

    chain: list[tuple[str, Command]]  # (command path, command)
    params: dict[str, Any]
    help: bool = False

    @property
    def path(self) -> str:
        return self.chain[-1][0]

    @property
    def command(self) -> Command:
        return self.chain[-1][1]


def resolve_first(root: Command, argv: list[str]) -> Command | None:
    """Resolve only the root's own subcommand (what click does before the root's callback runs):
    None when argv is empty or asks for help; UsageError when unknown."""
    path = root.name
    rest = _skip_group_options(root, argv, path)
    if not rest or rest[0] in HELP_OPTIONS:
        return None
    child = root.find(rest[0], path)
    if child is None:
        raise UsageError(root, path, f'No such command "{rest[0]}".')
    return child


def resolve(root: Command, argv: list[str]) -> Invocation:
    """Walk the tree for argv (after the root's name); raises UsageError."""
    command, path = root, root.name
    chain: list[tuple[str, Command]] = [(path, command)]
    args = list(argv)
    while command.is_group:
        args = _skip_group_options(command, args, path)
        if not args or args[0] in HELP_OPTIONS:
            return Invocation(chain, {}, help=True)
        child = command.find(args[0], path)
        if child is None:
            raise UsageError(command, path, f'No such command "{args[0]}".')
        path = f"{path} {child.name}"
        command = child
        chain.append((path, command))
        args = args[1:]
    if any(a in HELP_OPTIONS for a in args):
        return Invocation(chain, {}, help=True)
    return Invocation(chain, parse_params(command, path, args))


def _skip_group_options(group: Command, args: list[str], path: str) -> list[str]:
    """A group's own options (``config interface -n asic0``) are accepted and ignored."""
    out = list(args)
    while out and out[0].startswith("-") and out[0] not in HELP_OPTIONS:
        option = _option(group, out[0])
        if option is None:
            raise UsageError(group, path, f"no such option: {out[0]}")
        out = out[1:] if option.flag else out[2:]
    return out


def _option(command: Command, word: str) -> Option | None:
    name = word.split("=", 1)[0]
    return next((o for o in command.options if name in o.names), None)


def parse_params(command: Command, path: str, args: list[str]) -> dict[str, Any]:  # noqa: C901, PLR0912 -- click's option parser: flag, =value, next-word value, choices and repeats, each with click's own usage error
    params: dict[str, Any] = {}
    for o in command.options:
        params[o.dest] = [] if o.multiple else (False if o.flag else None)
    positional: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word.startswith("-") and len(word) > 1 and not _is_number(word):
            option = _option(command, word)
            if option is None:
                raise UsageError(command, path, f"no such option: {word}")
            if option.flag:
                params[option.dest] = True
            else:
                if "=" in word:
                    value = word.split("=", 1)[1]
                elif i + 1 < len(args):
                    i += 1
                    value = args[i]
                else:
                    raise UsageError(command, path, f"{word} option requires an argument")
                if option.choices and value not in option.choices:
                    raise UsageError(
                        command,
                        path,
                        f"Invalid value for {option.hint()}: invalid choice: {value}. (choose from {', '.join(option.choices)})",
                    )
                if option.multiple:
                    params[option.dest].append(value)
                else:
                    params[option.dest] = value
        else:
            positional.append(word)
        i += 1
    for argument in command.arguments:
        if argument.many:
            params[argument.dest] = positional
            positional = []
            continue
        if not positional:
            if argument.required:
                raise UsageError(command, path, f'Missing argument "{argument.metavar}".')
            params[argument.dest] = None
            continue
        value = positional.pop(0)
        params[argument.dest] = _convert(command, path, argument, value)
    if positional:
        plural = "" if len(positional) == 1 else "s"
        raise UsageError(command, path, f"Got unexpected extra argument{plural} ({' '.join(positional)})")
    return params


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def _convert(command: Command, path: str, argument: Argument, value: str) -> Any:
    if argument.int_range is None:
        return value
    hint = f'"{argument.metavar}"'
    try:
        number = int(value)
    except ValueError:
        raise UsageError(command, path, f"Invalid value for {hint}: {value} is not a valid integer") from None
    low, high = argument.int_range
    if not low <= number <= high:
        raise UsageError(
            command, path, f"Invalid value for {hint}: {number} is not in the valid range of {low} to {high}."
        )
    return number
