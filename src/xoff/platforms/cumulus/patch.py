"""Edits and comparisons of NVUE configuration trees (``xoff.platforms.cumulus.nvue.Tree``), the command
form of a patch, and reading ``nv set`` lines back into a tree: the push strategy's (``apply.py``). The
lab's NVUE emulator keeps its own tree code, written from NVIDIA's documentation, never this module.

A diff is two trees: ``unset`` (the paths to remove; a leaf is ``None``) and ``set`` (the new or changed
leaves), NVUE's own ``- unset:`` / ``- set:`` patch document. Unsets come first: that is the order NVUE
applies a patch in.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

from xoff.platforms.cumulus.nvue import Scalar, Tree, leaves

Patch = dict[str, Any]  # a tree whose leaves may be None (an unset path)

# rules whose last word adds a member to a collection (``link: state: up: {}`` in startup.yaml) rather than
# giving a leaf its value: the forms the builders write with ``put(path)`` and no value (grammar.py spelling)
MEMBER_SUFFIXES = (
    "link state (up|down)",
    "link breakout <mode-id>",
    "ip address <ip-prefix-id>",
    "ipv4-unicast network <static-network-id>",
    "qos pfc <profile-id> switch-priority <qos-sp-id>",
)


class CommandsError(ValueError):
    """A line of an ``nv set`` listing that xoff's NVUE grammar does not know."""


def tree_from_commands(text: str) -> Tree:
    """The tree an ``nv set`` listing (``nv config show -o commands``, nvue-commands.txt) stands for;
    comments and blank lines are skipped, anything else unknown is a CommandsError."""
    from xoff.platforms.cumulus.grammar import rule_for  # noqa: PLC0415 (grammar builds its rules at import)

    tree: Tree = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        rule = rule_for(line)
        if rule is None:
            raise CommandsError(f"line {n}: not an nv set command xoff knows: {line}")
        words = line.split()[2:]
        if rule.text.endswith(MEMBER_SUFFIXES):
            set_path(tree, words, None)
        else:
            set_path(tree, words[:-1], int(words[-1]) if words[-1].isdigit() else words[-1])
    return tree


def set_path(tree: Tree, path: Sequence[str], value: Scalar | None) -> None:
    """``nv set``: the leaf takes the value (a later set wins), a member is added; containers appear."""
    node = tree
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    last = path[-1]
    if value is None:
        if not isinstance(node.get(last), dict):
            node[last] = {}
    else:
        node[last] = value


def unset_path(tree: Tree, path: Sequence[str]) -> bool:
    """``nv unset``: remove the subtree at ``path`` and containers left empty; False if it was not there."""
    trail: list[tuple[Tree, str]] = []
    node = tree
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            return False
        trail.append((node, key))
        node = child
    if path[-1] not in node:
        return False
    del node[path[-1]]
    for parent, key in reversed(trail):  # NVUE drops containers that hold nothing
        child = parent[key]
        if isinstance(child, dict) and not child:
            del parent[key]
        else:
            break
    return True


def get_path(tree: Tree, path: Sequence[str]) -> Tree | Scalar | None:
    node: Tree | Scalar = tree
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def diff(old: Tree, new: Tree) -> tuple[Patch, Patch]:
    """(unset, set) taking ``old`` to ``new``."""
    unset: Patch = {}
    sets: Patch = {}
    for key, before in old.items():
        if key not in new:
            unset[key] = None
            continue
        after = new[key]
        if isinstance(before, dict) and isinstance(after, dict):
            u, s = diff(before, after)
            if u:
                unset[key] = u
            if s:
                sets[key] = s
        elif before != after:
            sets[key] = copy.deepcopy(after)
    for key, after in new.items():
        if key not in old:
            sets[key] = copy.deepcopy(after)
    return unset, sets


def unset_paths(unset: Patch, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for key, value in unset.items():
        if value is None:
            yield (*prefix, key)
        else:
            yield from unset_paths(value, (*prefix, key))


def patch_commands(unset: Patch, sets: Patch) -> list[str]:
    """``nv unset`` lines, then ``nv set`` lines."""
    return ["nv unset " + " ".join(p) for p in unset_paths(unset)] + ["nv set " + " ".join(t) for t in leaves(sets)]
