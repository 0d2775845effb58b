"""``lldpctl [-f FORMAT] [INTERFACE ...]``'s command line, as the SONiC and Cumulus emulators both take it before
asking the device's lldpd (``lldpcli show neighbors``); what each prints stays in its own emulator."""

from __future__ import annotations


class LldpctlUsageError(ValueError):
    """An option lldpctl does not take; the message is lldpctl's own line."""


def parse_args(args: list[str]) -> tuple[list[str], list[str]]:
    """The options to pass on (``-f FORMAT``) and the interfaces named, in order."""
    options: list[str] = []
    ports: list[str] = []
    rest = list(args)
    while rest:
        word = rest.pop(0)
        if word == "-f" and rest:
            options += ["-f", rest.pop(0)]
        elif word.startswith("-"):
            raise LldpctlUsageError(f"lldpctl: invalid option -- '{word.lstrip('-')[:1]}'\n")
        else:
            ports.append(word)
    return options, ports
