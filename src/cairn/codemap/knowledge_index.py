"""Put the knowledge graph into the code graph: one row per node, edges to what it cites and links.

Node files (`.cairn/knowledge/*.md`, decision records found in the tree) are already indexed as
documents; this adds what makes them knowledge: type, status, title, what replaced them, and
edges node -> cited file ("cites") and node -> node ("link"), so the graph walk can go from a
request about a concept to the gotcha linked to it and to the file that gotcha is about.
Runs inside the graph rebuild (any changed file, note files included, triggers it).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

CITE_WEIGHT = 1.0
LINK_WEIGHT = 0.7


def knowledge_rows(project: Any, by_path: dict[str, int]) -> tuple[list[tuple], dict[tuple[int, int], tuple[str, float]]]:
    """(nodes rows, {(src file id, dst file id): (kind, weight)}) for the project's repo nodes."""
    try:
        from cairn.memory import load_knowledge

        nodes = load_knowledge(project, personal=False, paths=list(by_path))
    except Exception:  # knowledge must never break indexing; `cairn memory doctor` reports problems
        return [], {}
    by_id = {n.id: n for n in nodes}
    rows: list[tuple] = []
    edges: dict[tuple[int, int], tuple[str, float]] = {}
    for n in nodes:
        fid = by_path.get(n.path or "")
        if fid is None:
            continue
        data = {"files": list(n.files), "symbols": list(n.symbols), "tags": list(n.tags),
                "supersedes": n.supersedes, "updated": n.updated}
        rows.append((fid, n.id, n.type, n.status, n.state, n.title, n.origin, n.superseded_by, json.dumps(data)))
        for cited in n.files:
            dst = by_path.get(cited.strip("/"))
            if dst is not None and dst != fid:
                edges[(fid, dst)] = ("cites", CITE_WEIGHT)
        for link in n.links:
            target = by_id.get(link.target)
            dst = by_path.get(target.path or "") if target is not None else None
            if dst is not None and dst != fid:
                edges.setdefault((fid, dst), ("link", LINK_WEIGHT))
    return rows, edges


def store_nodes(con: sqlite3.Connection, rows: list[tuple]) -> None:
    """Replace the nodes table (caller holds the transaction)."""
    con.execute("DELETE FROM nodes")
    con.executemany("INSERT OR REPLACE INTO nodes(file_id, id, type, status, state, title, origin, superseded_by, data) "
                    "VALUES(?,?,?,?,?,?,?,?,?)", rows)
