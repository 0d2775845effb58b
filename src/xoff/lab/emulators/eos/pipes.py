"""EOS output pipes on show commands: ``| json`` (the command's model), ``| no-more``, ``| include``,
``| exclude``, ``| begin``, ``| section``; a show without a JSON model says it is unconverted."""

from __future__ import annotations

import json
import re

from xoff.lab.emulators.base import Reply
from xoff.lab.emulators.eos import show_system
from xoff.lab.emulators.eos.grammar import Command, Tokens, match

UNCONVERTED = "% This is an unconverted command"

PIPES = [
    Command("json", lambda _a: None),
    Command("no-more", lambda _a: None),
    Command("include <re:line>", lambda _a: None),
    Command("exclude <re:line>", lambda _a: None),
    Command("begin <re:line>", lambda _a: None),
    Command("section <re:line>", lambda _a: None),
]


def pipe(out: Reply, pipes: str) -> Reply:
    as_json = False
    text = out.output
    for segment in pipes.split("|"):
        cmd, args = match(PIPES, Tokens.split(segment))
        how = cmd.pattern.split()[0]
        if how == "json":
            as_json = True
        elif how != "no-more":
            try:
                text = show_system.filter_output(text, how, args["re"])
            except re.error:
                return Reply(f"% Invalid regular expression: {args['re']}\n")
    if as_json:
        if out.data is None:
            return Reply(UNCONVERTED + "\n")
        return Reply(json.dumps(out.data, indent=2) + "\n")
    return Reply(text)
