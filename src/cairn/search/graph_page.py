"""`cairn graph --html FILE`: the project's graph as one self-contained, interactive HTML page.

Files grouped by module and sized by PageRank, edges by kind (import, reference, cites, link,
changes-with from the stored git history), knowledge nodes coloured by status (live, stale,
superseded, done). The page carries its data as JSON and cytoscape.js (vendored, see
vendor/README.md) inline, so it opens offline. Above DETAIL_LIMIT files it starts at module level
and expands a module on click. Clicking a node shows what `cairn explain` would say about it,
from the same index rows (definitions, users and uses by kind, notes, co-change). The page
checks itself: it writes the counts it received and the elements it drew into `<body data-*>`,
which the browser test compares with the index.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from pathlib import Path

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    from cairn.project import Project

EDGE_KINDS = ("import", "ref", "cites", "link", "changes-with")
DETAIL_LIMIT = 1500  # files: above this the page opens at module level
MAX_DEFS = 8  # signatures per file carried into the page
COCHANGE_MIN = 3  # commits two files must share to get a changes-with edge
COCHANGE_MAX = 3000  # changes-with edges kept, most shared commits first
VENDOR = Path(__file__).resolve().parent / "vendor"
TEMPLATE = Path(__file__).resolve().parent / "graph_page.html"
MARKER = re.compile(r"\{\{(TITLE|DATA|CYTOSCAPE)\}\}")  # the template's slots, filled in one pass


def cochange_edges(con: sqlite3.Connection, ids: dict[str, int]) -> list[tuple[int, int, int]]:
    """(file, file, commits shared) for indexed files changed together in COCHANGE_MIN+ commits."""
    by_commit: dict[int, list[int]] = defaultdict(list)
    for path, cid in con.execute("SELECT path, commit_id FROM commit_files"):
        fid = ids.get(path)
        if fid is not None:
            by_commit[cid].append(fid)
    pairs: dict[tuple[int, int], int] = defaultdict(int)
    for files in by_commit.values():
        files.sort()
        for i, a in enumerate(files):
            for b in files[i + 1 :]:
                pairs[(a, b)] += 1
    kept = sorted(((n, a, b) for (a, b), n in pairs.items() if n >= COCHANGE_MIN), key=lambda t: (-t[0], t[1], t[2]))
    return [(a, b, n) for n, a, b in kept[:COCHANGE_MAX]]


def graph_data(con: sqlite3.Connection, project: Project) -> dict[str, Any]:
    """Everything the page shows, as compact JSON-ready lists (files and modules by index)."""
    from cairn.search.knowledge import node_stale

    files = con.execute("SELECT id, path, module, kind, lang, rank, is_hub, lines FROM files ORDER BY path").fetchall()
    index = {r[0]: i for i, r in enumerate(files)}
    modules = [r[0] for r in con.execute("SELECT name FROM modules ORDER BY rank DESC, name")]
    for r in files:  # a file whose module row is missing still belongs somewhere
        if (r[2] or "") not in modules:
            modules.append(r[2] or "")
    mod_index = {m: i for i, m in enumerate(modules)}
    mod_rank = dict(con.execute("SELECT name, rank FROM modules").fetchall())
    code_ranks = sorted((r[5] or 0.0 for r in files if r[3] == "code"), reverse=True)
    position = {rank: i + 1 for i, rank in reversed(list(enumerate(code_ranks)))}
    defs: dict[int, list[str]] = defaultdict(list)
    for fid, line, sig, name in con.execute(
        "SELECT file_id, line, signature, name FROM symbols WHERE top_level = 1 AND kind != 'heading' "
        "ORDER BY file_id, (substr(name, 1, 1) = '_'), (kind IN ('constant', 'variable', 'field')), line"
    ):
        if len(defs[fid]) < MAX_DEFS:
            defs[fid].append(f"L{line} " + (sig or name).split("\n")[0][:120])
    out_files = []
    for r in files:
        out_files.append(
            {
                "p": r[1],
                "m": mod_index[r[2] or ""],
                "k": r[3],
                "l": r[4] or "",
                "r": round(r[5] or 0.0, 7),
                "h": int(r[6] or 0),
                "n": r[7] or 0,
                "pos": position.get(r[5] or 0.0) if r[3] == "code" else 0,
                "d": defs.get(r[0], []),
            }
        )
    notes = []
    root = project.root
    for fid, nid, typ, status, state, title, origin, sup in con.execute(
        "SELECT file_id, id, type, status, state, title, origin, superseded_by FROM nodes ORDER BY id"
    ):
        if fid not in index:
            continue
        stale = node_stale(con, root, files[index[fid]][1], origin) if state == "active" else []
        notes.append(
            {
                "f": index[fid],
                "id": nid,
                "type": typ,
                "status": status,
                "state": state,
                "title": title,
                "by": sup,
                "stale": stale,
            }
        )
    kinds = {k: i for i, k in enumerate(EDGE_KINDS)}
    edges = [
        [index[s], index[d], kinds[k], round(w, 4)]
        for s, d, k, w in con.execute("SELECT src, dst, kind, weight FROM edges ORDER BY src, dst, kind")
        if s in index and d in index and k in kinds
    ]
    ids = {r[1]: r[0] for r in files}
    edges += [[index[a], index[b], kinds["changes-with"], n] for a, b, n in cochange_edges(con, ids)]
    return {
        "project": project.name,
        "files": out_files,
        "modules": [{"name": m, "rank": round(mod_rank.get(m, 0.0), 6)} for m in modules],
        "notes": notes,
        "edges": edges,
        "kinds": list(EDGE_KINDS),
        "detail_limit": DETAIL_LIMIT,
        "code_files": len(code_ranks),
    }


def render_page(data: dict[str, Any]) -> str:
    """The page: template + data (as inert JSON) + cytoscape.js, all inline."""
    from cairn.redact import redact_obj

    # redacted field by field (a signature may quote a value), so the JSON stays JSON
    payload = json.dumps(redact_obj(data), ensure_ascii=False, separators=(",", ":"))
    payload = payload.replace("<", "\\u003c")  # "<" only occurs inside strings: never closes the script element
    library = (VENDOR / "cytoscape.min.js").read_text(encoding="utf-8")
    page = TEMPLATE.read_text(encoding="utf-8")
    title = data["project"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    values = {"TITLE": title, "DATA": payload, "CYTOSCAPE": library.replace("</script", "<\\/script")}
    # one pass over the template: a value that reads like a marker (a file named `{{CYTOSCAPE}}.py`)
    # is never filled in again, as chained str.replace calls would do
    return MARKER.sub(lambda m: values[m.group(1)], page)


def write_page(project: Project, out: Path, *, refresh: bool = True) -> dict[str, Any]:
    """Write the page for `project` to `out` (atomically); the counts it holds."""
    from cairn.codemap.indexer import open_fresh
    from cairn.errors import CairnError
    from cairn.util.atomic import write_if_changed

    con = open_fresh(project, refresh)
    try:
        data = graph_data(con, project)
    finally:
        con.close()
    if not data["files"]:
        raise CairnError("the index is empty: run `cairn index` first")
    write_if_changed(out, render_page(data))
    per_kind = {k: 0 for k in EDGE_KINDS}
    for e in data["edges"]:
        per_kind[EDGE_KINDS[e[2]]] += 1
    return {
        "html": str(out),
        "files": len(data["files"]),
        "modules": len(data["modules"]),
        "notes": len(data["notes"]),
        "edges": per_kind,
        "starts_at": "modules" if len(data["files"]) > DETAIL_LIMIT else "files",
    }
