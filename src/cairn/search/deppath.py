"""`cairn path A B`: the shortest dependency paths from one file or symbol to another, or why none.

Over the index's import and reference edges (a reference edge is a shared name where imports
cannot name files, so it is labelled apart). Breadth-first from A's files (a symbol stands for
the files defining it) along the direction of dependency; every shortest path is kept up to
MAX_PATHS. When there is none, the answer says why: B depends on A instead (that path is shown),
the two only meet through files both use or both are used by (shown with each edge's direction),
they lie in different components of the graph (with their sizes), or one has no edges at all.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict, deque

from cairn.search.targets import Target

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_PATHS = 3
CANDIDATES = 40  # shortest paths looked at to pick the MAX_PATHS shown
MAX_DEPTH = 12
LABEL = {"import": "imports", "ref": "names"}
REVERSE_LABEL = {"import": "imported by", "ref": "named by"}


def _graph(con: sqlite3.Connection) -> tuple[dict[int, dict[int, str]], dict[int, dict[int, str]]]:
    """(out, in) adjacency over import and reference edges; an import wins over a ref between a pair."""
    out: dict[int, dict[int, str]] = defaultdict(dict)
    inc: dict[int, dict[int, str]] = defaultdict(dict)
    for s, d, kind in con.execute("SELECT src, dst, kind FROM edges WHERE kind IN ('import', 'ref') AND src != dst"):
        if out[s].get(d) != "import":
            out[s][d] = kind
            inc[d][s] = kind
    return out, inc


def _bfs(starts: list[int], goals: set[int], nbrs: Callable[[int], list[int]]) -> dict[int, list[int]] | None:
    """Parents of every node on a shortest path from `starts` to the nearest goals, or None."""
    parents: dict[int, list[int]] = {s: [] for s in starts}
    frontier = list(dict.fromkeys(starts))
    for _ in range(MAX_DEPTH):
        nxt: dict[int, list[int]] = {}
        for u in frontier:
            for v in nbrs(u):
                if v not in parents:
                    nxt.setdefault(v, []).append(u)
        if not nxt:
            return None
        parents.update(nxt)
        if goals & nxt.keys():
            return parents
        frontier = list(nxt)
    return None


def _unwind(parents: dict[int, list[int]], goals: set[int], limit: int) -> list[list[int]]:
    out: list[list[int]] = []

    def back(node: int, tail: list[int]) -> None:
        if len(out) >= limit:
            return
        if not parents[node]:
            out.append([node, *tail])
            return
        for p in sorted(parents[node]):
            back(p, [node, *tail])

    for g in sorted(goals & parents.keys()):
        back(g, [])
    return out[:limit]


def _component(start: list[int], out: dict[int, dict[int, str]], inc: dict[int, dict[int, str]]) -> set[int]:
    seen = set(start)
    queue = deque(start)
    while queue:
        u = queue.popleft()
        for v in (*out.get(u, {}), *inc.get(u, {})):
            if v not in seen:
                seen.add(v)
                queue.append(v)
    return seen


def _best(
    con: sqlite3.Connection, found: list[list[int]], out: dict[int, dict[int, str]], paths: dict[int, str], limit: int
) -> list[list[dict[str, Any]]]:
    """The `limit` most telling of the shortest paths: fewest guessed (reference) hops, then the
    most names carried along the way."""
    hops = [_hops(con, p, out, paths) for p in found]
    hops.sort(key=lambda steps: (sum(s["edge"] == "ref" for s in steps[1:]), -sum(len(s["via"]) for s in steps[1:])))
    return hops[:limit]


def _hops(
    con: sqlite3.Connection, ids: list[int], out: dict[int, dict[int, str]], paths: dict[int, str]
) -> list[dict[str, Any]]:
    """One path as steps: each file, and how it reaches the next (edge kind, direction, names)."""
    from cairn.search.explain import defined_names, uses_of

    steps: list[dict[str, Any]] = [{"path": paths[ids[0]]}]
    for u, v in zip(ids, ids[1:], strict=False):
        forward = v in out.get(u, {})
        kind = out[u][v] if forward else out[v][u]
        user, used = (u, v) if forward else (v, u)
        via = uses_of(con, user, defined_names(con, used) - defined_names(con, user))
        steps.append(
            {
                "path": paths[v],
                "edge": kind,
                "forward": forward,
                "via": [n for n, _ in sorted(via.items(), key=lambda kv: (-kv[1], kv[0]))[:3]],
            }
        )
    return steps


def find_paths(con: sqlite3.Connection, a: Target, b: Target, max_paths: int = MAX_PATHS) -> dict[str, Any]:
    """The answer for `cairn path A B` (JSON-ready): paths found, in which direction, or the reason."""
    paths = {r[0]: r[1] for r in con.execute("SELECT id, path FROM files")}
    res: dict[str, Any] = {"from": _end(a), "to": _end(b), "direction": None, "paths": [], "reason": ""}
    shared = set(a.file_ids) & set(b.file_ids)
    if shared:
        res["reason"] = f"both are in {paths[min(shared)]}"
        return res
    out, inc = _graph(con)
    for direction, starts, goals in (
        ("forward", a.file_ids, set(b.file_ids)),
        ("reverse", b.file_ids, set(a.file_ids)),
    ):
        parents = _bfs(starts, goals, lambda u: sorted(out.get(u, {}), key=lambda v: (out[u][v] != "import", v)))
        if parents is not None:
            res["direction"] = direction
            res["paths"] = _best(con, _unwind(parents, goals, CANDIDATES), out, paths, max_paths)
            res["reason"] = (
                "" if direction == "forward" else f"{a.name} does not depend on {b.name}; {b.name} depends on {a.name}"
            )
            return res
    parents = _bfs(a.file_ids, set(b.file_ids), lambda u: sorted({*out.get(u, {}), *inc.get(u, {})}))
    if parents is not None:
        res["direction"] = "mixed"
        res["paths"] = _best(con, _unwind(parents, set(b.file_ids), CANDIDATES), out, paths, max_paths)
        res["reason"] = (
            f"no dependency path either way between {a.name} and {b.name}; they meet only through "
            "files both use or both are used by"
        )
        return res
    lonely = [t.name for t in (a, b) if not any(out.get(f) or inc.get(f) for f in t.file_ids)]
    if lonely:
        res["reason"] = "; ".join(
            f"{name} has no import or reference edges (nothing it imports resolves to a file "
            "of the repository, and nothing uses it)"
            for name in lonely
        )
    else:
        ca, cb = _component(a.file_ids, out, inc), _component(b.file_ids, out, inc)
        res["reason"] = (
            f"different components of the dependency graph: {a.name}'s has {len(ca)} files, "
            f"{b.name}'s has {len(cb)}; no chain of imports or references joins them"
        )
    return res


def _end(t: Target) -> dict[str, Any]:
    return {"kind": t.kind, "name": t.name, "files": list(t.paths)}


def render(res: dict[str, Any]) -> str:
    """The answer as text: one block per path, each hop with its edge, direction and names."""
    lines = []
    for end in (res["from"], res["to"]):
        if end["kind"] != "file":
            lines.append(f"{end['name']}: {end['kind']} in {', '.join(end['files'][:4])}")
    if res["reason"]:
        lines.append(res["reason"])
    if res["paths"]:
        n = len(res["paths"][0]) - 1
        a, b = (res["from"]["name"], res["to"]["name"])
        if res["direction"] == "reverse":
            a, b = b, a
        count = "shortest path" if len(res["paths"]) == 1 else f"{len(res['paths'])} shortest paths"
        lines.append(f"{count} from {a} to {b}: {n} step{'s' if n != 1 else ''}")
    for i, steps in enumerate(res["paths"], 1):
        lines.append(f"{i}. {steps[0]['path']}")
        for s in steps[1:]:
            label = LABEL[s["edge"]] if s["forward"] else REVERSE_LABEL[s["edge"]]
            arrow = f"--{label}-->" if s["forward"] else f"<--{label}--"
            via = f"  (via {', '.join(s['via'])})" if s["via"] else ""
            lines.append(f"   {arrow} {s['path']}{via}")
    return "\n".join(lines) + "\n"
