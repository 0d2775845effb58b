"""EOS configuration text as a tree of sections, and the hierarchical diff between two of them.

Pure (no session): ``parse`` reads the indented text EOS prints and xoff renders (``!`` separators,
comments and ``end`` dropped), ``normalise`` removes the lines EOS never prints because they are
its defaults, and ``diff`` compares section by section (siblings are unordered: EOS sorts
interfaces and neighbours its own way), giving ``+``/``-`` lines with their section path.

xoff judges only what it manages (``MANAGED``: the top-level commands its EOS render writes, and any
other the rendered file has): the lines a real switch keeps that xoff does not render (EOS's
clean-config: ``no aaa root``, ``username admin ...``, ``spanning-tree mode mstp``, ``system l1``,
...; a site's users, management APIs, NTP, ...) are neither drift nor a change. ``unmanaged_lines``
gives them, in the running-config's order, so a push that replaces the configuration carries them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

# lines EOS does not print inside a section, because they are the default there
DEFAULT_LINES: dict[str, frozenset[str]] = {
    "interface": frozenset({"no shutdown", "mtu 1500"}),
}
DEFAULT_PREFIXES: dict[str, tuple[str, ...]] = {
    "interface": tuple(f"priority-flow-control priority {p} drop" for p in range(8)),
}


# the families (``family``) of the top-level commands xoff's EOS render writes (render/eos templates;
# tests/platforms/eos checks every rendered line is in one): xoff owns every line of these, so a
# stale one (an interface, a BGP instance, a DSCP map xoff no longer renders) is a difference
MANAGED = frozenset({"hostname", "interface", "ip routing", "qos map", "priority-flow-control pause", "router bgp"})
ONE_WORD = frozenset({"hostname", "interface"})  # every ``interface X`` is one family, ``interface``


def family(line: str) -> str:
    """The kind of a top-level command: ``router bgp 65100`` -> ``router bgp``, ``no ip routing`` ->
    ``ip routing`` (a ``no`` form belongs with what it negates), ``interface Ethernet1/1`` -> ``interface``."""
    words = line.split()
    if len(words) > 1 and words[0] == "no":
        words = words[1:]
    return words[0] if words[0] in ONE_WORD else " ".join(words[:2])


@dataclass
class Node:
    children: dict[str, Node] = field(default_factory=dict)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def parse(text: str) -> Node:
    """Indentation gives the nesting; ``!`` lines, blank lines and ``end`` carry no configuration."""
    root = Node()
    stack: list[tuple[int, Node]] = [(-1, root)]
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("!") or (stripped == "end" and _indent(raw) == 0):
            continue
        depth = _indent(raw)
        while stack[-1][0] >= depth:
            stack.pop()
        node = stack[-1][1].children.setdefault(stripped, Node())
        stack.append((depth, node))
    return root


# physical ports always exist: EOS prints each, with an empty body when it is at defaults
PHYSICAL = ("interface Ethernet", "interface Management")


def normalise(tree: Node) -> Node:
    """A copy without the default lines EOS leaves out of ``show running-config``, and without the
    sections of physical ports at their defaults."""
    out = Node()
    for line, child in tree.children.items():
        section = line.split()[0]
        if line.startswith(PHYSICAL) and not child.children:
            continue
        kept = Node()
        for sub, grandchild in child.children.items():
            if sub in DEFAULT_LINES.get(section, frozenset()) or sub.startswith(DEFAULT_PREFIXES.get(section, ())):
                continue
            kept.children[sub] = grandchild
        out.children[line] = kept
    return out


def _walk(node: Node, path: tuple[str, ...], sign: str) -> list[str]:
    lines: list[str] = []
    for line, child in node.children.items():
        lines.append(f"{sign} {' > '.join((*path, line))}")
        lines.extend(_walk(child, (*path, line), sign))
    return lines


def diff(running: Node, desired: Node, path: tuple[str, ...] = ()) -> list[str]:
    """``- section > line`` for what only running has, ``+ section > line`` for what only desired has."""
    out: list[str] = []
    for line, child in running.children.items():
        if line not in desired.children:
            out.append(f"- {' > '.join((*path, line))}")
            out.extend(_walk(child, (*path, line), "-"))
    for line, child in desired.children.items():
        if line not in running.children:
            out.append(f"+ {' > '.join((*path, line))}")
            out.extend(_walk(child, (*path, line), "+"))
        else:
            out.extend(diff(running.children[line], child, (*path, line)))
    return out


def managed_families(desired: Node) -> frozenset[str]:
    return MANAGED | {family(line) for line in desired.children}


def managed(tree: Node, families: frozenset[str]) -> Node:
    """The top-level sections of ``tree`` xoff manages (their family is in ``families``)."""
    return Node({line: child for line, child in tree.children.items() if family(line) in families})


@functools.lru_cache(maxsize=256)
def _desired(desired_text: str) -> tuple[Node, frozenset[str]]:
    """The rendered configuration as ``config_diff`` compares it (normalised) and the families it manages: a push
    reads the same rendered file at its diff, its unmanaged lines and its verify. Shared: never modified."""
    tree = parse(desired_text)
    return normalise(tree), managed_families(tree)


def config_diff(running_text: str, desired_text: str) -> list[str]:
    """What differs in what xoff manages; the running-config's other lines are not compared."""
    desired, families = _desired(desired_text)
    running = managed(parse(running_text), families)
    return diff(normalise(running), desired)


def unmanaged_lines(running_text: str, desired_text: str) -> list[str]:
    """The running-config's top-level sections xoff does not manage, every line of them (indentation
    kept), in the running-config's order: what a replace must restate to keep them."""
    families = _desired(desired_text)[1]
    out: list[str] = []
    keep = False
    for line in config_lines(running_text):
        if _indent(line) == 0:
            keep = family(line) not in families
        if keep:
            out.append(line)
    return out


def config_lines(text: str) -> list[str]:
    """The lines to type to enter ``text`` (indentation kept: EOS takes it as the mode path)."""
    return [
        ln.rstrip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("!") and ln.strip() != "end"
    ]
