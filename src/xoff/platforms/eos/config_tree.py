"""EOS configuration text as a tree of sections, and the hierarchical diff between two of them.

Pure (no session): ``parse`` reads the indented text EOS prints and xoff renders (``!`` separators,
comments and ``end`` dropped), ``normalise`` removes the lines EOS never prints because they are
its defaults, and ``diff`` compares section by section (siblings are unordered: EOS sorts
interfaces and neighbours its own way), giving ``+``/``-`` lines with their section path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# lines EOS does not print inside a section, because they are the default there
DEFAULT_LINES: dict[str, frozenset[str]] = {
    "interface": frozenset({"no shutdown", "mtu 1500"}),
}
DEFAULT_PREFIXES: dict[str, tuple[str, ...]] = {
    "interface": tuple(f"priority-flow-control priority {p} drop" for p in range(8)),
}


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


def config_diff(running_text: str, desired_text: str) -> list[str]:
    return diff(normalise(parse(running_text)), normalise(parse(desired_text)))


def config_lines(text: str) -> list[str]:
    """The lines to type to enter ``text`` (indentation kept: EOS takes it as the mode path)."""
    return [
        ln.rstrip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("!") and ln.strip() != "end"
    ]
