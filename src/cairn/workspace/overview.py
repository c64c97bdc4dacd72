"""The workspace in a few lines for `cairn map`: its members, their size and state, the imports between them.

Shown under the project's own level-0 map when the project is a workspace member, so an agent
that starts in one repository learns which siblings it can search and how they depend on each
other (edges.py), within a small share of the map's budget.
"""

from __future__ import annotations

import sqlite3
from collections import Counter

from cairn.text.budget import estimate_tokens
from cairn.workspace.edges import cross_edges
from cairn.workspace.exports import read_only
from cairn.workspace.members import Workspace

TYPE_CHECKING = False  # not typing's: importing typing costs every command ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


def _files(ws: Workspace) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in ws.answering:
        assert m.project is not None
        try:
            con = read_only(m.project.index_path())
            try:
                out[m.name] = int(con.execute("SELECT COUNT(*) FROM files").fetchone()[0])
            finally:
                con.close()
        except sqlite3.Error:
            continue
    return out


def overview(ws: Workspace) -> dict[str, Any]:
    """Members (name, root, state, files, home) and cross-repository links (pair, kind, count, an example)."""
    files = _files(ws)
    members = [{**m.as_json(), "files": files.get(m.name), "home": m is ws.home} for m in ws.members]
    links: Counter[tuple[str, str, str]] = Counter()
    example: dict[tuple[str, str, str], tuple[str, str]] = {}  # (via: the shortest import, a place)
    for e in cross_edges(ws):
        key = (e.src, e.dst, e.kind)
        links[key] += 1
        if key not in example or len(e.via) < len(example[key][0]):
            example[key] = (e.via, f"{e.src_path}:{e.line}")
    return {
        "members": members,
        "links": [
            {"from": k[0], "to": k[1], "kind": k[2], "via": example[k][0], "imports": n, "example": example[k][1]}
            for k, n in links.most_common()
        ],
        "notes": list(ws.notes),
    }


def render(data: dict[str, Any], budget: int) -> str:
    """The overview as markdown, cut to `budget` tokens (links past it are counted, not listed)."""
    shown = []
    for m in data["members"]:
        size = f"{m['files']} files" if m["files"] is not None else m["state"]
        shown.append(f"{m['name']} ({'here, ' if m['home'] else ''}{size})")
    lines = ["", "## Workspace", "", "Searched together: " + ", ".join(shown) + "."]
    if data["links"]:
        lines += ["", "Imports across projects:"]
    for i, link in enumerate(data["links"]):
        line = f"- {link['from']} -> {link['to']}: {link['imports']} ({link['kind']} {link['via']}; e.g. {link['example']})"
        if estimate_tokens("\n".join([*lines, line])) > budget:
            lines.append(f"- ... {len(data['links']) - i} more pairs (`cairn workspace list --json`)")
            break
        lines.append(line)
    return "\n".join(lines) + "\n"
