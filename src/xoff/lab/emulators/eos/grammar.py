"""A small command grammar with EOS's matching rules.

A command is written as a pattern: ``"qos map dscp <values:dscp+> to traffic-class <tc:0-7>"``.
Words are keywords (matched case-insensitively, any unique prefix accepted: ``int``, ``sh run``);
``<name:type>`` is a parameter (``<x:a|b>`` a choice of keywords, ``<x:=kw>`` one keyword whose
presence is recorded); ``[ ... ]`` an optional part. When nothing matches, the error is the
one EOS gives: ``% Incomplete command`` when the line stopped too early, ``% Invalid input`` (at the
furthest token any command reached; eAPI and configure replace add ``(at token N: 'word')``) otherwise,
``% Ambiguous command`` for a word that abbreviates two keywords. EOS prints no caret line.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from xoff.lab.emulators.eos import ifnames

Value = Any
Args = dict[str, Value]


class CommandError(Exception):
    """A line the grammar takes but EOS refuses for its values; the text is what EOS prints."""


@dataclass(frozen=True)
class Lit:
    word: str


@dataclass(frozen=True)
class Param:
    name: str
    kind: str


@dataclass(frozen=True)
class Opt:
    elems: tuple[Elem, ...]


Elem = Lit | Param | Opt


@dataclass(frozen=True)
class Tokens:
    line: str
    words: tuple[str, ...]
    starts: tuple[int, ...]

    @classmethod
    def split(cls, line: str) -> Tokens:
        return _split(line)

    def rest(self, i: int) -> str:
        return self.line[self.starts[i] :].rstrip()


_WORD = re.compile(r"\S+")


@functools.lru_cache(maxsize=4096)
def _split(line: str) -> Tokens:
    """A line's words, once per distinct line (immutable, so shared): a line is split by every step that
    looks at it, and the switches of a fabric are sent the same lines."""
    found = list(_WORD.finditer(line))
    return Tokens(line, tuple(m[0] for m in found), tuple(m.start() for m in found))


class ParseError(Exception):
    """A line the grammar refuses. ``message`` is what EOS prints; ``token`` the index it stopped at."""

    def __init__(self, kind: str, token: int, word: str | None) -> None:
        self.kind = kind  # invalid | incomplete | ambiguous
        self.token = token
        self.word = word
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """What EOS prints at its interactive CLI: the bare ``% Invalid input`` (no caret line, no token:
        public interactive transcripts, tests/fixtures/eos-cli/README.md), ``% Incomplete command``,
        ``% Ambiguous command``."""
        return {"invalid": "% Invalid input", "incomplete": "% Incomplete command", "ambiguous": "% Ambiguous command"}[
            self.kind
        ]

    def detailed(self) -> str:
        """eAPI's and configure replace's form, with the token (counted from 0): ``Invalid input (at token 2: 'foo')``."""
        if self.kind == "invalid":
            return f"Invalid input (at token {self.token}: '{self.word}')"
        return {"incomplete": "Incomplete command", "ambiguous": "Ambiguous command"}[self.kind]


# --- parameter types: token(s) -> (tokens used, value) alternatives --------------------------------


@functools.lru_cache(maxsize=8192)  # pure; a fabric's addresses recur in every switch's lines
def _ipv4(tok: str) -> str | None:
    try:
        return str(ipaddress.IPv4Address(tok))
    except ValueError:
        return None


@functools.lru_cache(maxsize=8192)
def _ipv6(tok: str) -> str | None:
    try:
        return str(ipaddress.IPv6Address(tok))
    except ValueError:
        return None


def _prefix(tok: str) -> str | None:
    addr, slash, length = tok.partition("/")
    if not slash or not length.isdigit() or _ipv4(addr) is None or not 0 <= int(length) <= 32:
        return None
    return f"{_ipv4(addr)}/{int(length)}"


def _int_in(lo: int, hi: int) -> Callable[[str], int | None]:
    def check(tok: str) -> int | None:
        return int(tok) if tok.isdigit() and lo <= int(tok) <= hi else None

    return check


def _decimal(decimals: int, lo: float, hi: float) -> Callable[[str], str | None]:
    pattern = re.compile(rf"^\d+(?:\.\d{{1,{decimals}}})?$")

    def check(tok: str) -> str | None:
        return tok if pattern.match(tok) and lo <= float(tok) <= hi else None

    return check


def _hhmmss(tok: str) -> int | None:
    m = re.fullmatch(r"(\d{1,2}):(\d{2}):(\d{2})", tok)
    if m is None or int(m[2]) > 59 or int(m[3]) > 59:
        return None
    return int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])


def _rt(tok: str) -> str | None:
    """A route target or distinguisher: ``ASN:nn`` (a 2-byte ASN with a 4-byte number, or a 4-byte ASN with a
    2-byte one) or ``IPv4:nn`` (a 2-byte number)."""
    admin, colon, number = tok.rpartition(":")
    if not colon or not number.isdigit():
        return None
    if _ipv4(admin) is not None:
        return tok if int(number) <= 0xFFFF else None
    if not admin.isdigit():
        return None
    wide = int(admin) > 0xFFFF
    return tok if int(admin) <= 0xFFFFFFFF and int(number) <= (0xFFFF if wide else 0xFFFFFFFF) else None


def _vxlan(tok: str) -> str | None:
    """EOS's one VXLAN interface, ``Vxlan1`` (``vx1``, ``vxlan1``: any prefix of the type joined to its number)."""
    m = re.fullmatch(r"([A-Za-z]+)1", tok)
    return "Vxlan1" if m and len(m[1]) >= 2 and "vxlan".startswith(m[1].lower()) else None


def _asn(tok: str) -> str | None:
    return str(int(tok)) if tok.isdigit() and 1 <= int(tok) <= 4294967295 else None


SPEEDS = frozenset(
    {"auto", "1g", "10g", "25g", "40g", "50g", "100g", "200g", "400g", "800g", "1.6t"}
    | {"50g-1", "50g-2", "100g-1", "100g-2", "100g-4", "200g-1", "200g-2", "200g-4", "40g-4"}
    | {"400g-2", "400g-4", "400g-8", "800g-4", "800g-8", "1.6t-8"}
)

FORCED = frozenset({"10000full", "25gfull", "40gfull", "50gfull", "100gfull", "200gfull", "400gfull", "1000full"})

SINGLE: dict[str, Callable[[str], Value]] = {
    "word": lambda t: t,
    "ipv4": _ipv4,
    "prefix": _prefix,
    "asn": _asn,
    "rt": _rt,
    "vxlan": _vxlan,
    "hhmmss": _hhmmss,
    "mtu": _int_in(68, 9214),
    "percent": _int_in(1, 100),
    "uint": _int_in(0, 2**32 - 1),
    "queue": _int_in(0, 7),
    "paths": _int_in(1, 600),
    "secs2": _decimal(2, 0.01, 60),
    "secs3": _decimal(3, 0.001, 60),
    "speed": lambda t: t.lower() if t.lower() in SPEEDS else None,
    "forced": lambda t: t.lower() if t.lower() in FORCED else None,
    "peer": lambda t: _ipv4(t) or _ipv6(t) or (t if re.fullmatch(r"[A-Za-z][\w.-]*", t) else None),
    "pollint": lambda t: "auto" if t.lower() == "auto" else _decimal(3, 0.001, 60)(t),
    "weight": _int_in(0, 15),
    "width": _int_in(10, 32767),
    "length": _int_in(0, 32767),
}
LISTS: dict[str, Callable[[str], int | None]] = {"dscp+": _int_in(0, 63), "cos+": _int_in(0, 7)}


def _consume(kind: str, toks: Tokens, i: int) -> Iterator[tuple[int, Value]]:
    words = toks.words
    if kind == "line":
        yield len(words) - i, toks.rest(i)
    elif kind == "intf":
        found = ifnames.canonical(words[i], words[i + 1] if i + 1 < len(words) else None)
        if found is not None:
            yield found[1], found[0]
    elif kind in LISTS:
        check, values = LISTS[kind], []
        for w in words[i:]:
            v = check(w)
            if v is None:
                break
            values.append(v)
        for n in range(len(values), 0, -1):
            yield n, values[:n]
    elif re.fullmatch(r"\d+-\d+", kind):
        lo, hi = map(int, kind.split("-"))
        v = _int_in(lo, hi)(words[i])
        if v is not None:
            yield 1, v
    else:
        v = SINGLE[kind](words[i])
        if v is not None:
            yield 1, v


# --- patterns ------------------------------------------------------------------------------------


def _is_choice(kind: str) -> bool:
    """``<drop:drop|no-drop>`` or, for one keyword whose presence is the value, ``<sec:=secondary>``."""
    return "|" in kind or kind.startswith("=")


@functools.cache  # pure, and every session builds its command tables from the same patterns
def compile_pattern(pattern: str) -> tuple[Elem, ...]:
    stack: list[list[Elem]] = [[]]
    for word in re.findall(r"\[|\]|<[^>]+>|[^\s\[\]]+", pattern):
        if word == "[":
            stack.append([])
        elif word == "]":
            inner = stack.pop()
            stack[-1].append(Opt(tuple(inner)))
        elif word.startswith("<"):
            name, _, kind = word[1:-1].partition(":")
            known = kind in SINGLE or kind in LISTS or kind in {"line", "intf"} or re.fullmatch(r"\d+-\d+", kind)
            if not known and not _is_choice(kind):
                raise ValueError(f"{pattern!r}: unknown parameter type {kind!r}")
            stack[-1].append(Param(name, kind))
        else:
            stack[-1].append(Lit(word))
    if len(stack) != 1:
        raise ValueError(f"{pattern!r}: unbalanced brackets")
    return tuple(stack[0])


@dataclass
class _Found:
    args: Args
    keywords: dict[int, tuple[str, bool]]  # token index -> (keyword, exact)


@dataclass
class _Progress:
    furthest: int = -1
    # token index -> every keyword the word there abbreviates, on any path that reached it (EOS resolves
    # an abbreviation token by token: "s" is ambiguous in configuration mode whatever follows it)
    prefixes: dict[int, set[str]] = field(default_factory=dict)

    def fail(self, i: int) -> None:
        self.furthest = max(self.furthest, i)


def _keyword(word: str, keyword: str) -> bool | None:
    """True for an exact match, False for an abbreviation, None for no match."""
    w, keyword = word.lower(), keyword.lower()
    if w == keyword:
        return True
    return False if keyword.startswith(w) else None


def _walk(elems: tuple[Elem, ...], toks: Tokens, i: int, found: _Found, out: list[_Found], progress: _Progress) -> None:
    if not elems:
        if i == len(toks.words):
            out.append(_Found(dict(found.args), dict(found.keywords)))
        else:
            progress.fail(i)
        return
    head, tail = elems[0], elems[1:]
    if isinstance(head, Opt):
        _walk(head.elems + tail, toks, i, found, out, progress)
        _walk(tail, toks, i, found, out, progress)
        return
    if i == len(toks.words):
        progress.fail(i)
        return
    if isinstance(head, Lit) or _is_choice(head.kind):
        choices = [head.word] if isinstance(head, Lit) else head.kind.removeprefix("=").split("|")
        for choice in choices:
            exact = _keyword(toks.words[i], choice)
            if exact is None:
                continue
            progress.prefixes.setdefault(i, set()).add(choice.lower())
            found.keywords[i] = (choice, exact)
            if isinstance(head, Param):
                found.args[head.name] = choice
            _walk(tail, toks, i + 1, found, out, progress)
            found.keywords.pop(i)
            if isinstance(head, Param):
                found.args.pop(head.name)
        progress.fail(i)
        return
    for used, value in _consume(head.kind, toks, i):
        found.args[head.name] = value
        _walk(tail, toks, i + used, found, out, progress)
        found.args.pop(head.name)
    progress.fail(i)


@dataclass
class Command:
    pattern: str
    handler: Callable[..., Any]
    elems: tuple[Elem, ...] = field(init=False)
    first: str | None = field(init=False)  # the first keyword, lower case (None: the pattern starts otherwise)

    def __post_init__(self) -> None:
        self.elems = compile_pattern(self.pattern)
        head = self.elems[0] if self.elems else None
        self.first = head.word.lower() if isinstance(head, Lit) else None


@dataclass
class _Table:
    """What ``match`` keeps of one command table: the candidates per first word, and each line's answer."""

    commands: list[Command]
    size: int
    by_first: dict[str | None, tuple[list[Command], bool]] = field(default_factory=dict)
    # a line -> its command and arguments, or the ParseError's (kind, token, word): the grammar is pure, and
    # the switches of a fabric are sent the same lines
    answers: dict[str, tuple[Command, Args] | tuple[str, int, str | None]] = field(default_factory=dict)


_TABLES: dict[int, _Table] = {}
_KEPT = 4096  # answers and first words kept per table (a table that sees more starts again)


def _table(commands: list[Command]) -> _Table:
    kept = _TABLES.get(id(commands))
    if kept is None or kept.commands is not commands or kept.size != len(commands):
        if len(_TABLES) > 256:  # a few per session (its mode tables hold its CLI): the last sessions' kept
            _TABLES.clear()
        kept = _TABLES[id(commands)] = _Table(commands, len(commands))
    return kept


def _candidates(table: _Table, first: str | None) -> tuple[list[Command], bool]:
    """The commands a line starting with ``first`` may be (in table order), and whether any was ruled out."""
    if first not in table.by_first:
        if len(table.by_first) > _KEPT:
            table.by_first.clear()
        chosen = [c for c in table.commands if first is None or c.first is None or c.first.startswith(first)]
        table.by_first[first] = (chosen, len(chosen) < len(table.commands))
    return table.by_first[first]


def match(commands: list[Command], toks: Tokens) -> tuple[Command, Args]:
    """The one command the tokens select, with its arguments; ``ParseError`` otherwise. Each table's answer
    to a line is kept (a copy of the arguments is returned: a handler may change its own)."""
    table = _table(commands)
    answer = table.answers.get(toks.line)
    if answer is None:
        try:
            answer = _match(table, toks)
        except ParseError as err:
            answer = (err.kind, err.token, err.word)
        if len(table.answers) > _KEPT:
            table.answers.clear()
        table.answers[toks.line] = answer
    if isinstance(answer[0], str):
        kind, token, word = answer
        raise ParseError(kind, token, word)
    cmd, args = answer
    return cmd, {k: list(v) if isinstance(v, list) else v for k, v in args.items()}


def _match(table: _Table, toks: Tokens) -> tuple[Command, Args]:
    results: list[tuple[Command, _Found]] = []
    progress = _Progress()
    first = toks.words[0].lower() if toks.words else None
    candidates, skipped = _candidates(table, first)
    if skipped:
        progress.fail(0)  # what _walk finds for a command whose first keyword the word does not start
    for cmd in candidates:
        found: list[_Found] = []
        _walk(cmd.elems, toks, 0, _Found({}, {}), found, progress)
        results.extend((cmd, f) for f in found)
    if not results:
        at = max(progress.furthest, 0)
        if at >= len(toks.words):
            raise ParseError("incomplete", at, None)
        raise ParseError("invalid", at, toks.words[at])
    for idx in sorted({k for _, f in results for k in f.keywords}):
        if any(f.keywords.get(idx, ("", False))[1] for _, f in results):
            results = [(c, f) for c, f in results if f.keywords.get(idx, ("", True))[1]]
        elif len(progress.prefixes.get(idx, ())) > 1:
            raise ParseError("ambiguous", idx, toks.words[idx])
        words = {f.keywords[idx][0] for _, f in results if idx in f.keywords}
        if len(words) > 1:
            raise ParseError("ambiguous", idx, toks.words[idx])
    cmd, f = results[0]
    return cmd, f.args
