"""The active project's leaf for SessionStart: top live decisions and gotchas, open tasks.

One line each, read from the code index's `nodes` table (the indexer stores every
knowledge node of the project there, see codemap/knowledge_index.py). Reading the index instead
of the vault keeps YAML parsing and the graph load off the session-start path.

Order: by importance, the one formula of `codemap/knowledge/importance.py` (pinned first, then type weight,
recency and links, as CLAUDE.md's block ranks them); tasks the same way. Personal notes are not
project knowledge and are left out.
"""

from __future__ import annotations

import json
import sqlite3

LEAF_TYPES = ("decision", "gotcha")


def _line(row: sqlite3.Row, data: dict) -> str:
    files = [f for f in data.get("files") or [] if isinstance(f, str)][:3]
    where = f" (files: {', '.join(files)})" if files else ""
    return f"- [{row['type']}] {row['title']}{where} `{row['id']}`"


def _rows(con: sqlite3.Connection, types: tuple[str, ...]) -> list[tuple[sqlite3.Row, dict]]:
    marks = ",".join("?" * len(types))
    out = []
    try:
        rows = con.execute(
            f"SELECT n.id, n.type, n.title, n.data, (SELECT COUNT(*) FROM edges e WHERE e.kind = 'link' AND "
            f"(e.src = n.file_id OR e.dst = n.file_id)) AS links FROM nodes n WHERE n.state = 'active' AND "
            f"n.origin != 'personal' AND n.type IN ({marks})",
            types,
        ).fetchall()
    except sqlite3.Error:  # an index without knowledge (older format): no leaf rather than an error
        return []
    for r in rows:
        try:
            data = json.loads(r["data"] or "{}")
        except ValueError:
            data = {}
        out.append((r, data if isinstance(data, dict) else {}))
    return out


def _sorted(rows: list[tuple[sqlite3.Row, dict]]) -> list[tuple[sqlite3.Row, dict]]:
    """Most important first (`codemap/knowledge/importance.order`)."""
    from cairn.codemap.knowledge.importance import order

    items = [
        (
            r["id"],
            r["type"],
            str(d.get("updated") or "") or None,
            "pinned" in (d.get("tags") or []),
            int(r["links"] or 0),
        )
        for r, d in rows
    ]
    return [rows[i] for i in order(items)]


def project_leaf(con: sqlite3.Connection, *, decisions: int = 5, tasks: int = 5) -> dict[str, list[str]]:
    """{"decisions": [...], "tasks": [...]} as markdown bullet lines."""
    top = _sorted(_rows(con, LEAF_TYPES))[:decisions]
    open_tasks = _sorted(_rows(con, ("task",)))[:tasks]
    return {"decisions": [_line(r, d) for r, d in top], "tasks": [_line(r, d) for r, d in open_tasks]}
