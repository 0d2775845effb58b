"""What ``nv set`` / ``nv unset`` accept: NVUE's documented object model (``objmodel.py``), checked word
by word so that a refusal names the word NVUE would name.

NVUE validates a command against its OpenAPI schema before it touches the pending revision, so a bad
path or value never enters it. The emulator knows the documented command forms in ``objmodel.py``
(more than xoff writes); a path outside them is refused.

Error text (one ``Error:`` line, exit status 1): an unknown keyword is
``Error: Invalid Command: set interface swp1 lnk``, a value outside the schema is
``Error: Invalid value 20000 for 'mtu': <what is allowed>`` (jsonschema-style wording; the exact NVUE
message text is not published, see the package docstring).
"""

from __future__ import annotations

from dataclasses import dataclass

from xoff.lab.emulators.cumulus.objmodel import MEMBERS, PLACEHOLDERS, RULES_TEXT, choice

Scalar = str | int


@dataclass(frozen=True)
class Spec:
    text: str  # the grammar's spelling of one word: "mtu", "<interface-id>", "552-9216", "(up|down)"

    @property
    def literal(self) -> bool:
        return not (self.text.startswith(("<", "(")) or _is_range(self.text))

    def accepts(self, word: str) -> bool:
        return choice(self.text)(word)

    def describe(self) -> str:
        if self.text.startswith("("):
            return "one of " + ", ".join(self.text[1:-1].split("|"))
        if _is_range(self.text):
            return f"integer {self.text.replace('-', ' - ')}"
        if self.text.startswith("<"):
            return self.text[1:-1] + (" (any token)" if self.text[1:-1] not in PLACEHOLDERS else "")
        return self.text


def _is_range(text: str) -> bool:
    lo, sep, hi = text.partition("-")
    return bool(sep) and lo.isdigit() and hi.isdigit()


RULES: tuple[tuple[Spec, ...], ...] = tuple(tuple(Spec(w) for w in text.split()) for text, _ in RULES_TEXT)
_MEMBER_RULES = frozenset(rule for rule, (text, _) in zip(RULES, RULES_TEXT, strict=True) if text in MEMBERS)


class CommandError(ValueError):
    """A refused ``nv set``/``nv unset``; ``str()`` is NVUE's one-line message."""


def _has_value(rule: tuple[Spec, ...]) -> bool:
    """A rule whose last word is a value (``link mtu 552-9216``), not a collection member (``ip address <p>``)."""
    return rule not in _MEMBER_RULES and len(rule) >= 2 and rule[-2].literal and not rule[-1].literal


def check_set(words: list[str]) -> tuple[tuple[str, ...], Scalar | None]:
    """The tree path and value an ``nv set`` line stands for; CommandError if the grammar refuses it."""
    for rule in RULES:
        if len(rule) == len(words) and all(s.accepts(w) for s, w in zip(rule, words, strict=True)):
            if _has_value(rule):
                return tuple(words[:-1]), _scalar(words[-1])
            return tuple(words), None
    raise CommandError(_why(words, "set"))


def check_unset(words: list[str]) -> tuple[str, ...]:
    """The tree path an ``nv unset`` removes: any prefix of a known path (optionally with its value)."""
    if not words:
        raise CommandError("Error: Invalid Command: unset")
    for rule in RULES:
        if len(words) <= len(rule) and all(s.accepts(w) for s, w in zip(rule, words, strict=False)):
            if _has_value(rule) and len(words) == len(rule):
                return tuple(words[:-1])  # `nv unset interface swp1 link mtu 9000` names the value too
            return tuple(words)
    raise CommandError(_why(words, "unset"))


def _why(words: list[str], verb: str) -> str:
    """The message for the first word no rule accepts (after the longest accepted prefix)."""
    best, blame = 0, None
    for rule in RULES:
        n = 0
        while n < min(len(rule), len(words)) and rule[n].accepts(words[n]):
            n += 1
        if n > best or (n == best and blame is None and n < len(rule)):
            best, blame = n, rule[n] if n < len(rule) else None
    if best == len(words):  # every word fits, the command stops early
        return f"Error: Incomplete Command: {verb} {' '.join(words)}"
    if blame is not None and not blame.literal and best > 0 and _takes_value_after(words[:best]):
        return f"Error: Invalid value {words[best]} for '{words[best - 1]}': expected {blame.describe()}"
    return f"Error: Invalid Command: {verb} {' '.join(words[: best + 1])}"


def _takes_value_after(prefix: list[str]) -> bool:
    """True when some rule takes a value right after ``prefix`` (so the next word is a bad value)."""
    n = len(prefix)
    return any(
        len(rule) == n + 1 and _has_value(rule) and all(s.accepts(w) for s, w in zip(rule, prefix, strict=False))
        for rule in RULES
    )


def _scalar(word: str) -> Scalar:
    """NVUE stores integers as integers (``mtu: 9100``), everything else as strings."""
    return int(word) if word.isdigit() else word
