"""Put the knowledge graph into the code graph: one row per node, edges to what it cites and links.

Node files (`.cairn/knowledge/*.md`, decision records found in the tree) are already indexed as
documents; this adds what makes them knowledge: type, status, title, what replaced them, and
edges node -> cited file ("cites") and node -> node ("link"), so the graph walk can go from a
request about a concept to the gotcha linked to it and to the file that gotcha is about.
Runs inside the graph rebuild (any changed file, note files included, triggers it). The map's
list of key decisions asks here too (`key_notes`): this module is the code map's one door to
`memory`, the layer contract's one exception (pyproject.toml [tool.importlinter]).
"""

from __future__ import annotations

import json
import sqlite3

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

CITE_WEIGHT = 1.0
LINK_WEIGHT = 0.7


def record_candidates(con: sqlite3.Connection, by_path: dict[str, int], project: Any) -> list[str]:
    """Markdown files that could be decision records, judged from the index without reading them.

    A record lives in a record folder, has a record-like name, or has at least two of the
    section headings records use (Status, Context, Decision, Summary, Root cause...). Reading only
    those keeps the graph rebuild fast in a repository with hundreds of docs. Configured
    `[memory] adr_globs` can name any file, so with globs every markdown file is a candidate.
    """
    from cairn.config import load_config
    from cairn.memory import adr_import as adr

    md = [p for p in by_path if p.lower().endswith((".md", ".markdown", ".mdx")) and not p.startswith(".cairn/")]
    try:
        if (load_config(project.root).get("memory", {}) or {}).get("adr_globs"):
            return md
    except Exception:
        return md
    sections = set(adr.DECISION_SECTIONS) | set(adr.RFC_SECTIONS) | set(adr.POSTMORTEM_SECTIONS)
    heads: dict[int, int] = {}
    for fid, name in con.execute("SELECT file_id, lower(name) FROM symbols WHERE kind = 'heading'"):
        if name.strip().strip("*_:").strip() in sections:
            heads[fid] = heads.get(fid, 0) + 1
    out = []
    for p in md:
        parts = tuple(p.split("/"))
        if (heads.get(by_path[p], 0) >= 2 or adr.RECORD_NAME.match(parts[-1])
                or adr._dir_kind(parts[:-1]) is not None):
            out.append(p)
    return out


def knowledge_rows(con: sqlite3.Connection, project: Any,
                   by_path: dict[str, int]) -> tuple[list[tuple], dict[tuple[int, int], tuple[str, float]]]:
    """(nodes rows, {(src file id, dst file id): (kind, weight)}) for the project's repo nodes."""
    try:
        from cairn.memory import load_knowledge, target_resolver

        nodes = load_knowledge(project, personal=False, paths=record_candidates(con, by_path, project))
    except Exception:  # knowledge must never break indexing; `cairn memory doctor` reports problems
        return [], {}
    from cairn.redact import redact

    by_id = {n.id: n for n in nodes}
    resolve_target = target_resolver(nodes)
    rows: list[tuple] = []
    edges: dict[tuple[int, int], tuple[str, float]] = {}
    for n in nodes:
        fid = by_path.get(n.path or "")
        if fid is None:
            continue
        data = {"files": list(n.files), "symbols": list(n.symbols), "tags": list(n.tags),
                "supersedes": n.supersedes, "updated": n.updated}
        rows.append((fid, n.id, n.type, n.status, n.state, redact(n.title), n.origin, n.superseded_by,
                     redact(json.dumps(data))))  # a note written by hand may quote a key
        for cited in n.files:
            dst = by_path.get(cited.strip("/"))
            if dst is not None and dst != fid:
                edges[(fid, dst)] = ("cites", CITE_WEIGHT)
        for link in n.links:
            target = by_id.get(link.target)
            dst = by_path.get(target.path or "") if target is not None else None
            if dst is not None and dst != fid:
                edges.setdefault((fid, dst), ("link", LINK_WEIGHT))
        for name in n.inline_links:  # [[target]] in the body: an id or a title, as Obsidian writes it
            target = resolve_target(name)
            dst = by_path.get(target.path or "") if target is not None else None
            if dst is not None and dst != fid:
                edges.setdefault((fid, dst), ("link", LINK_WEIGHT))
    return rows, edges


def store_nodes(con: sqlite3.Connection, rows: list[tuple]) -> None:
    """Replace the nodes table (caller holds the transaction)."""
    con.execute("DELETE FROM nodes")
    con.executemany("INSERT OR REPLACE INTO nodes(file_id, id, type, status, state, title, origin, superseded_by, data) "
                    "VALUES(?,?,?,?,?,?,?,?,?)", rows)


def key_notes(project: Any, limit: int) -> list:
    """The project's most valuable live decisions, gotchas and bugs (memory's ranking), for the map."""
    from cairn.memory import load_knowledge, ranked

    nodes = ranked(load_knowledge(project, personal=False))
    return [n for n in nodes if n.type in ("decision", "gotcha", "bug")][:limit]
