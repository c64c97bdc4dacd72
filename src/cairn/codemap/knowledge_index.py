"""Put the knowledge graph into the code graph: one row per node, edges to what it cites and links.

Node files (`.cairn/knowledge/*.md`, decision records found in the tree) are already indexed as
documents; this adds what makes them knowledge: type, status, title, what replaced them, and
edges node -> cited file ("cites") and node -> node ("link"), so the graph walk can go from a
request about a concept to the gotcha linked to it and to the file that gotcha is about.
Runs inside the graph rebuild (any changed file, note files included, triggers it). The map's
list of key decisions asks here too (`key_notes`). The nodes are read by codemap/knowledge/ (the
node file format, the vault, the decision records), which `memory` builds on to write them.
"""

from __future__ import annotations

import json
import sqlite3

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

CITE_WEIGHT = 1.0
LINK_WEIGHT = 0.7


def record_headings(con: sqlite3.Connection, project: Any, file_ids: list[int] | None = None) -> dict[str, int] | None:
    """Per prose file of the index, how many of its headings are record sections (Status, Context,
    Summary, Motivation, Root cause...): with the file list, what records.py needs to open only the
    files that could be records (`file_ids`: of those files only). None when `[memory] adr_globs` can name
    any file (open them all)."""
    from cairn.codemap.knowledge.records import CANDIDATE_SECTIONS
    from cairn.config import load_config

    try:
        if (load_config(project.root).get("memory", {}) or {}).get("adr_globs"):
            return None
    except Exception:
        return None
    sections = CANDIDATE_SECTIONS
    heads: dict[str, int] = {}
    only = "" if file_ids is None else f" AND s.file_id IN ({','.join(str(int(f)) for f in file_ids)})"
    for path, name in con.execute(
        "SELECT f.path, lower(s.name) FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind = 'heading'" + only
    ):
        if name.strip().strip("*_:").strip() in sections:
            heads[path] = heads.get(path, 0) + 1
    return heads


def record_candidates(con: sqlite3.Connection, changed: dict[str, int], project: Any) -> list[str]:
    """Of the `changed` files (path -> file id), those that could be decision records (an edit to
    one rebuilds the knowledge rows): by name, folder or record headings (records.candidates);
    a file below a record-named folder too (`0007-storage/02-design.md`)."""
    from cairn.codemap.knowledge.records import changed_candidates

    heads = record_headings(con, project, list(changed.values()))
    paths = list(changed)
    return changed_candidates(paths, None if heads is None else {p: heads.get(p, 0) for p in paths})


def knowledge_rows(
    con: sqlite3.Connection, project: Any, by_path: dict[str, int]
) -> tuple[list[tuple], dict[tuple[int, int], tuple[str, float]]]:
    """(nodes rows, {(src file id, dst file id): (kind, weight)}) for the project's repo nodes."""
    try:
        from cairn.codemap.knowledge.graph import target_resolver
        from cairn.codemap.knowledge.load import load_knowledge

        nodes = load_knowledge(project, personal=False, paths=list(by_path), heads=record_headings(con, project))
    except Exception:  # knowledge must never break indexing; `cairn memory doctor` reports problems
        return [], {}
    from cairn.redact import redact
    from cairn.text.tokens import expand_identifiers

    by_id = {n.id: n for n in nodes}
    resolve_target = target_resolver(nodes)
    rows: list[tuple] = []
    edges: dict[tuple[int, int], tuple[str, float]] = {}
    for n in nodes:
        fid = by_path.get(n.path or "")
        if fid is None:
            continue
        data = {
            "files": list(n.files),
            "symbols": list(n.symbols),
            "tags": list(n.tags),
            "supersedes": n.supersedes,
            "updated": n.updated,
        }
        if n.extra.get("record"):  # one record kept as a folder of parts (codemap/knowledge/record_shape.py)
            data["record"] = n.extra["record"]
        title = redact(n.title)
        rows.append(
            (
                fid,
                n.id,
                n.type,
                n.status,
                n.state,
                title,
                n.origin,
                n.superseded_by,
                redact(json.dumps(data)),  # a note written by hand may quote a key
                (title, expand_identifiers(n.path or ""), redact(expand_identifiers(n.body))),
            )
        )
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
    """Replace the nodes table and `records_fts`, the text of the nodes alone (title, path words, body;
    contentless), which search/records.py ranks records by: among a few hundred records a word's
    rarity is read among them, not among every file (caller holds the transaction)."""
    from cairn.codemap.schema import FTS_TOKENIZER

    con.execute("DELETE FROM nodes")
    con.executemany(
        "INSERT OR REPLACE INTO nodes(file_id, id, type, status, state, title, origin, superseded_by, data) "
        "VALUES(?,?,?,?,?,?,?,?,?)",
        [r[:9] for r in rows],
    )
    con.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5(title, path, body, content='', "
        f"tokenize='{FTS_TOKENIZER}')"
    )
    con.execute("INSERT INTO records_fts(records_fts) VALUES('delete-all')")
    con.executemany(
        "INSERT INTO records_fts(rowid, title, path, body) VALUES(?,?,?,?)", [(r[0], *r[9]) for r in rows if len(r) > 9]
    )


def key_notes(project: Any, limit: int) -> list:
    """The project's most valuable live decisions, gotchas and bugs (graph.ranked, as memory-md ranks them), for the map."""
    from cairn.codemap.knowledge.graph import ranked
    from cairn.codemap.knowledge.load import load_knowledge

    nodes = ranked(load_knowledge(project, personal=False))
    return [n for n in nodes if n.type in ("decision", "gotcha", "bug")][:limit]
