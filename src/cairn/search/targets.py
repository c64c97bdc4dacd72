"""What a name on the command line means in the index: a file, a symbol or a knowledge node.

`cairn explain TARGET`, `cairn path A B` and their MCP tools take whatever a person or an agent
types: `src/app/billing.py`, `billing.py`, `./app/billing.py`, `charge_card`, `Invoice.total`,
`app/billing.py:charge_card`, or a knowledge node id. Files come first (an exact path, then a
unique file name or path suffix), then knowledge node ids, then symbols (exact name, then the
name key: `applyCoupon` finds `apply_coupon`). An unknown name is one CairnError that suggests
the nearest file names, symbols and node ids.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from cairn.codemap.model import short_name
from cairn.errors import CairnError
from cairn.store.db import like_escape
from cairn.text.tokens import name_key as _key

MAX_DEFINITIONS = 12  # a name defined in more files than this is shown by its first few
SUGGESTIONS = 5
_IDENT = re.compile(r"[A-Za-z_$][\w$]*$")


@dataclass
class Target:
    kind: str  # file | symbol | node
    name: str  # the path, the symbol name, or the node id
    file_ids: list[int] = field(default_factory=list)  # the file, the symbol's defining files, the node's file
    paths: list[str] = field(default_factory=list)


def _as_repo_path(raw: str, root: Path | None) -> str:
    """`./a/b.py`, `a\\b.py` or an absolute path inside the root, as the index spells paths."""
    text = raw.strip().replace("\\", "/")
    if root is not None and text.startswith("/"):
        try:
            text = Path(text).resolve().relative_to(Path(root).resolve()).as_posix()
        except (ValueError, OSError):
            return text
    while text.startswith("./"):
        text = text[2:]
    return text.strip("/")


def _file(con: sqlite3.Connection, text: str) -> list[tuple[int, str]]:
    row = con.execute("SELECT id, path FROM files WHERE path = ?", (text,)).fetchone()
    if row is not None:
        return [(row[0], row[1])]
    if not text or text.endswith("/"):
        return []
    like = like_escape(text)
    rows = con.execute(
        "SELECT id, path FROM files WHERE path LIKE ? ESCAPE '\\' ORDER BY rank DESC, path LIMIT 20", ("%/" + like,)
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def _node(con: sqlite3.Connection, text: str) -> tuple[str, int, str] | None:
    row = con.execute(
        "SELECT n.id, n.file_id, f.path FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id = ?", (text,)
    ).fetchone()
    if row is None and len(text) >= 6:  # a unique id prefix, as `cairn read` accepts
        like = like_escape(text)
        rows = con.execute(
            "SELECT n.id, n.file_id, f.path FROM nodes n JOIN files f ON f.id = n.file_id "
            "WHERE n.id LIKE ? ESCAPE '\\' LIMIT 2",
            (like + "%",),
        ).fetchall()
        row = rows[0] if len(rows) == 1 else None
    return (row[0], row[1], row[2]) if row is not None else None


def symbol_rows(con: sqlite3.Connection, name: str, in_path: str | None = None) -> list[sqlite3.Row]:
    """Definitions of `name` (exact, then `Parent.name`'s last part, then by name key), best first."""
    where = " AND f.path = ?" if in_path else ""
    extra = (in_path,) if in_path else ()
    base = (
        "SELECT s.id, s.name, s.kind, s.line, s.end_line, s.signature, s.parent, s.top_level, f.id AS file_id, "
        "f.path, f.rank FROM symbols s JOIN files f ON f.id = s.file_id WHERE {} AND s.kind != 'heading'"
        + where
        + " ORDER BY s.top_level DESC, f.kind = 'code' DESC, f.rank DESC, s.line LIMIT ?"
    )
    con.row_factory = sqlite3.Row
    rows = con.execute(base.format("s.name = ?"), (name, *extra, MAX_DEFINITIONS)).fetchall()
    if not rows and "." in name.strip("."):
        parent, short = name.rsplit(".", 1)
        rows = [
            r
            for r in con.execute(base.format("s.name = ?"), (short, *extra, 200)).fetchall()
            if (r["parent"] or "").rsplit(".", 1)[-1] == parent.rsplit(".", 1)[-1]
        ][:MAX_DEFINITIONS]
    if not rows and _IDENT.match(name):  # applyCoupon -> apply_coupon; never a file name's last part
        rows = con.execute(base.format("s.key = ?"), (_key(short_name(name)), *extra, MAX_DEFINITIONS)).fetchall()
    return rows


def resolve_target(con: sqlite3.Connection, raw: str, root: Path | None = None) -> Target:
    """The file, symbol or knowledge node `raw` names; CairnError (with near names) when none."""
    text = (raw or "").strip()
    if not text or "\x00" in text:
        raise CairnError("give a file path, a symbol name or a knowledge node id")
    path = _as_repo_path(text, root)
    files = _file(con, path)
    if len(files) == 1:
        note = con.execute("SELECT id FROM nodes WHERE file_id = ?", (files[0][0],)).fetchone()
        if note is not None:  # a note's file is explained as the note
            return Target("node", note[0], [files[0][0]], [files[0][1]])
        return Target("file", files[0][1], [files[0][0]], [files[0][1]])
    if len(files) > 1:
        shown = ", ".join(p for _, p in files[:6]) + (" ..." if len(files) > 6 else "")
        raise CairnError(f"{raw!r} names {len(files)} files: {shown}; give more of the path")
    node = _node(con, text)
    if node is not None:
        return Target("node", node[0], [node[1]], [node[2]])
    in_path = None
    name = text
    if ":" in text and not text.endswith(":"):  # path:symbol, path::symbol
        head, _, tail = text.replace("::", ":").rpartition(":")
        found = _file(con, _as_repo_path(head, root))
        if len(found) == 1:
            in_path, name = found[0][1], tail.strip()
    rows = symbol_rows(con, name, in_path)
    if rows:
        fids = list(dict.fromkeys(r["file_id"] for r in rows))
        return Target("symbol", rows[0]["name"], fids, list(dict.fromkeys(r["path"] for r in rows)))
    module = con.execute("SELECT name FROM modules WHERE name = ?", (path,)).fetchone()
    if module is not None:
        raise CairnError(f"{raw!r} is a module, not a file: `cairn map {module[0]}` shows its files and links")
    near = suggestions(con, text)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise CairnError(f"no file, symbol or knowledge node named {raw!r} in the index{hint}")


def suggestions(con: sqlite3.Connection, text: str, n: int = SUGGESTIONS) -> list[str]:
    """Near names from the index: file names and paths, symbols sharing a prefix, node ids."""
    import difflib

    base = PurePosixPath(text.replace("\\", "/")).name or text
    key = _key(short_name(base))
    pool: dict[str, str] = {}  # candidate -> what is compared against the request
    for (path,) in con.execute("SELECT path FROM files"):
        pool.setdefault(PurePosixPath(path).name, path)
    for (ident,) in con.execute("SELECT id FROM nodes WHERE id IS NOT NULL"):
        pool.setdefault(ident, ident)
    if len(key) >= 2:
        for (name,) in con.execute(
            "SELECT DISTINCT name FROM symbols WHERE key >= ? AND key < ? AND kind != 'heading' LIMIT 3000",
            (key[:2], key[:2] + "\uffff"),
        ):
            pool.setdefault(name, name)
    near = difflib.get_close_matches(base, list(pool), n=n, cutoff=0.7)
    out = [pool[c] if "/" in pool[c] else c for c in near]
    if len(out) < n and _IDENT.match(text):  # a typo in the key (apply_copon -> applyCoupon)
        keys = {_key(c): c for c in pool}
        for k in difflib.get_close_matches(key, list(keys), n=n, cutoff=0.75):
            cand = pool[keys[k]] if "/" in pool[keys[k]] else keys[k]
            if cand not in out:
                out.append(cand)
    return out[:n]
