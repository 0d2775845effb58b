"""Cycle detection on the node graph: Kahn peel, iterative Tarjan, one BFS witness per SCC.

Everything is iterative (deadlock.md §4.3): graphs of millions of edges would overflow
CPython's recursion limit. Nodes are ints ``0..n-1`` and ``succ[n]`` their successor lists.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


def peel(succ: Sequence[Sequence[int]]) -> list[bool]:
    """Repeatedly remove nodes with no in-edges or no out-edges; True = survived (may lie on a cycle)."""
    alive = _peel_sources(succ)
    _peel_sinks(succ, alive)
    return alive


def _peel_sources(succ: Sequence[Sequence[int]]) -> list[bool]:
    """Forwards: remove the nodes no cycle reaches (no in-edges, repeatedly)."""
    n = len(succ)
    indeg = [0] * n
    for s in succ:
        for w in s:
            indeg[w] += 1
    alive = [True] * n
    queue = [v for v in range(n) if not indeg[v]]
    while queue:
        v = queue.pop()
        alive[v] = False
        for w in succ[v]:
            indeg[w] -= 1
            if not indeg[w]:
                queue.append(w)
    return alive


def _peel_sinks(succ: Sequence[Sequence[int]], alive: list[bool]) -> None:
    """Backwards: remove the survivors that reach no survivor (no out-edges among them, repeatedly)."""
    n = len(succ)
    outdeg = [0] * n
    pred: dict[int, list[int]] = {}
    for v in range(n):
        if alive[v]:
            count = 0
            for w in succ[v]:
                if alive[w]:
                    count += 1
                    pred.setdefault(w, []).append(v)
            outdeg[v] = count
    queue = [v for v in range(n) if alive[v] and not outdeg[v]]
    while queue:
        v = queue.pop()
        alive[v] = False
        for u in pred.get(v, ()):
            if alive[u]:
                outdeg[u] -= 1
                if not outdeg[u]:
                    queue.append(u)


def strong_components(succ: Sequence[Sequence[int]], alive: Sequence[bool]) -> list[list[int]]:  # noqa: C901, PLR0912 -- iterative Tarjan: one explicit DFS stack in one frame (no recursion limit at fabric scale)
    """Non-trivial strongly connected components (>= 2 nodes) among ``alive`` nodes; iterative Tarjan."""
    n = len(succ)
    index = [0] * n  # 0 = not visited yet, else DFS order + 1
    low = [0] * n
    done = [False] * n  # assigned to a component (no longer on the Tarjan stack)
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] or not alive[root]:
            continue
        counter += 1
        index[root] = low[root] = counter
        stack.append(root)
        calls = [(root, iter(succ[root]))]
        while calls:
            v, it = calls[-1]
            for w in it:
                if not alive[w]:
                    continue
                if not index[w]:
                    counter += 1
                    index[w] = low[w] = counter
                    stack.append(w)
                    calls.append((w, iter(succ[w])))
                    break
                if not done[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:
                calls.pop()
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        done[w] = True
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
                if calls:
                    u = calls[-1][0]
                    low[u] = min(low[u], low[v])
    found.sort(key=lambda c: c[0])
    return found


def witness(succ: Sequence[Sequence[int]], component: Sequence[int]) -> list[int]:
    """A shortest cycle through the component's first node, found by BFS inside the component."""
    inside = set(component)
    start = component[0]
    parent = {start: start}
    todo = deque([start])
    while todo:
        v = todo.popleft()
        for w in succ[v]:
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                path.reverse()
                return path
            if w in inside and w not in parent:
                parent[w] = v
                todo.append(w)
    raise ValueError("component has no cycle through its first node")  # impossible for a real SCC


def find_cycles(succ: Sequence[Sequence[int]]) -> list[tuple[list[int], list[int]]]:
    """Every non-trivial SCC of ``succ`` with a shortest witness cycle through its first node.

    The generic entry point (peel, iterative Tarjan, BFS witness) for graphs built elsewhere,
    e.g. the InfiniBand (port, VL) credit-loop graph; ``[]`` means acyclic (self-loops aside).
    """
    alive = peel(succ)
    if not any(alive):
        return []
    return [(comp, witness(succ, comp)) for comp in strong_components(succ, alive)]
