"""NVUE's configuration tree as the emulator keeps it: one revision is one tree (the ``- set:`` document of
``/etc/nvue.d/startup.yaml``), edited by ``nv set``/``nv unset`` and compared by ``nv config diff``.

Written from NVIDIA's documentation of NVUE, not from xoff's renderer (CumulusNetworks/docs
``content/cumulus-linux-59/System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-CLI.md``, "Configuration
Management Commands", and ``.../NVUE-Snippets.md``): ``nv set A B V`` sets the leaf ``A/B`` to ``V``; a
command whose last word names a collection member (``ip address <prefix>``, ``link state up``) adds the
member, shown as ``<member>: {}``; ``nv unset`` removes a subtree and the containers it leaves empty;
``nv config diff`` prints the patch from one revision to another as NVUE's own patch document, a YAML
list of ``- unset:`` (paths to remove, a removed leaf printed as ``key:``) then ``- set:`` (new and
changed leaves), or with ``-o commands`` as ``nv unset`` / ``nv set`` lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, Union

Scalar = str | int
Tree = dict[str, Union["Tree", Scalar]]
Patch = dict[str, Any]  # a tree whose leaves may be None (a path to unset)

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*\Z")
_YAML11 = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"})


def get_path(tree: Tree, path: Sequence[str]) -> Tree | Scalar | None:
    node: Tree | Scalar = tree
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def set_path(tree: Tree, path: Sequence[str], value: Scalar | None) -> None:
    """``nv set``: a leaf takes the value (a later set wins); a member (``value`` None) is added."""
    node = tree
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            node[key] = child = {}
        node = child
    if value is not None:
        node[path[-1]] = value
    elif not isinstance(node.get(path[-1]), dict):
        node[path[-1]] = {}


def unset_path(tree: Tree, path: Sequence[str]) -> bool:
    """``nv unset``: remove the subtree and the containers left empty; False when it was not there."""
    if not path:
        return False
    parent = get_path(tree, path[:-1])
    if not isinstance(parent, dict) or path[-1] not in parent:
        return False
    del parent[path[-1]]
    for depth in range(len(path) - 1, 0, -1):
        holder = get_path(tree, path[: depth - 1])
        if isinstance(holder, dict) and holder.get(path[depth - 1]) == {}:
            del holder[path[depth - 1]]
        else:
            break
    return True


def leaves(tree: Tree, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Each leaf as the words of its ``nv set`` command (a member has no value word)."""
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            yield from leaves(value, (*prefix, key))
        elif isinstance(value, dict):
            yield (*prefix, key)
        else:
            yield (*prefix, key, str(value))


def set_commands(tree: Tree) -> list[str]:
    return [f"nv set {' '.join(words)}" for words in leaves(tree)]


def patch(old: Tree, new: Tree) -> tuple[Patch, Patch]:
    """(unset, set) that take ``old`` to ``new``: what NVUE applies, unsets first."""
    unset: Patch = {}
    sets: Patch = {}
    for key in old.keys() | new.keys():
        a, b = old.get(key), new.get(key)
        if b is None:
            unset[key] = None
        elif a is None:
            sets[key] = b
        elif isinstance(a, dict) and isinstance(b, dict):
            u, s = patch(a, b)
            unset.update({key: u} if u else {})
            sets.update({key: s} if s else {})
        elif a != b:
            sets[key] = b
    order = {k: i for i, k in enumerate([*old, *new])}
    return _ordered(unset, order), _ordered(sets, order)


def _ordered(part: Patch, order: dict[str, int]) -> Patch:
    return {k: part[k] for k in sorted(part, key=lambda k: order[k])}


def scalar(value: Scalar | float) -> str:
    if isinstance(value, (int, float)):
        return str(value)
    if _PLAIN.match(value) and value.lower() not in _YAML11:
        return value
    return "'" + value.replace("'", "''") + "'"


def yaml_block(tree: Patch, depth: int) -> list[str]:
    """Block YAML, two spaces a level from ``depth``; a None leaf (an unset path) prints as ``key:``."""
    pad, out = "  " * depth, []
    for key, value in tree.items():
        if value is None:
            out.append(f"{pad}{scalar(key)}:")
        elif isinstance(value, dict) and value:
            out += [f"{pad}{scalar(key)}:", *yaml_block(value, depth + 1)]
        elif isinstance(value, dict):
            out.append(f"{pad}{scalar(key)}: {{}}")
        else:
            out.append(f"{pad}{scalar(key)}: {scalar(value)}")
    return out


def _unset_paths(unset: Patch, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for key, value in unset.items():
        if value is None:
            yield (*prefix, key)
        else:
            yield from _unset_paths(value, (*prefix, key))


def diff_yaml(old: Tree, new: Tree) -> str:
    """``nv config diff``: the ``- unset:`` and ``- set:`` documents (nothing when the trees are equal)."""
    unset, sets = patch(old, new)
    lines = (["- unset:", *yaml_block(unset, 2)] if unset else []) + (["- set:", *yaml_block(sets, 2)] if sets else [])
    return "".join(f"{line}\n" for line in lines)


def diff_commands(old: Tree, new: Tree) -> list[str]:
    """``nv config diff -o commands``: ``nv unset`` lines, then ``nv set`` lines."""
    unset, sets = patch(old, new)
    return [f"nv unset {' '.join(p)}" for p in _unset_paths(unset)] + set_commands(sets)
