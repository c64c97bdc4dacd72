"""The active project's leaf for SessionStart: top live decisions and gotchas, open tasks.

One line each, read from the code index's `nodes` table (the indexer stores every
knowledge node of the project there, see codemap/knowledge_index.py). Reading the index instead
of the vault keeps YAML parsing and the graph load off the session-start path.

Order: notes tagged `pinned` first, then by the day of their last update (newest first), then
decisions before gotchas, then title; tasks the same way. Personal notes are not project knowledge and are left out.
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
        rows = con.execute(f"SELECT id, type, title, data FROM nodes WHERE state = 'active' AND origin != 'personal' "
                           f"AND type IN ({marks})", types).fetchall()
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
    """Pinned first, then the most recently updated day, then decisions before gotchas, then title
    (day granularity: notes written in one sitting keep a stable order)."""
    rows = sorted(rows, key=lambda rd: (rd[0]["type"], rd[0]["title"] or ""))
    rows = sorted(rows, key=lambda rd: str(rd[1].get("updated") or "")[:10], reverse=True)
    return sorted(rows, key=lambda rd: "pinned" not in (rd[1].get("tags") or []))


def project_leaf(con: sqlite3.Connection, *, decisions: int = 5, tasks: int = 5) -> dict[str, list[str]]:
    """{"decisions": [...], "tasks": [...]} as markdown bullet lines."""
    top = _sorted(_rows(con, LEAF_TYPES))[:decisions]
    open_tasks = _sorted(_rows(con, ("task",)))[:tasks]
    return {"decisions": [_line(r, d) for r, d in top], "tasks": [_line(r, d) for r, d in open_tasks]}
