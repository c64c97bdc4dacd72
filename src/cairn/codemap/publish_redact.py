"""Before an index leaves the machine: redact the names and import strings of files that held a secret.

extract.py redacts a file's text before it is indexed and, since index format 13, every string the
parser took from a file that held a secret (definitions' names, parents and signatures, imports, used
identifiers). This pass checks it again on the copy that goes to every teammate: it passes those
columns of every file whose stored text carries the redactor's mark through the same function (a
no-op on a format-13 index, a repair if an older extractor let one through), writes the file's names
into the text index again where they changed, and merges the text index ('optimize'), since FTS5
keeps a deleted row's terms in its old segments until a merge; publish.py vacuums the copy, so no
freed page keeps them either.
"""

from __future__ import annotations

import sqlite3

from cairn.codemap import fts_rows

MARK = "[REDACTED:"


def touched_files(con: sqlite3.Connection) -> list[int]:
    """Files whose indexed text the redactor changed (its mark is in the stored text)."""
    out = []
    for file_id, blob in con.execute("SELECT file_id, z FROM fts_text"):
        if MARK in fts_rows.unpack(blob)[2]:
            out.append(file_id)
    return out


def redact_names(con: sqlite3.Connection) -> int:
    """Redact the parser's strings of the touched files (caller holds the transaction); returns how
    many files it rewrote."""
    from cairn.codemap.model import symbol_key
    from cairn.redact import redact
    from cairn.text.tokens import expand_identifiers

    files = touched_files(con)
    for fid in files:
        names = []
        for sid, name, kind, sig, parent in con.execute(
            "SELECT id, name, kind, signature, parent FROM symbols WHERE file_id = ? ORDER BY id", (fid,)
        ).fetchall():
            new, new_sig, new_parent = (redact(v) if v else v for v in (name, sig, parent))
            names.append(new)
            if (new, new_sig, new_parent) != (name, sig, parent):
                con.execute(
                    "UPDATE symbols SET name = ?, signature = ?, parent = ?, key = ? WHERE id = ?",
                    (new, new_sig, new_parent, symbol_key(new, kind or ""), sid),
                )
        for table, cols in (("chunks", ("name", "signature")), ("imports", ("raw", "names")), ("refs", ("name",))):
            sel = ", ".join(cols)
            for row in con.execute(f"SELECT rowid, {sel} FROM {table} WHERE file_id = ?", (fid,)).fetchall():
                new_vals = [redact(v) if isinstance(v, str) else v for v in row[1:]]
                if new_vals != list(row[1:]):
                    sets = ", ".join(f"{c} = ?" for c in cols)
                    con.execute(f"UPDATE {table} SET {sets} WHERE rowid = ?", (*new_vals, row[0]))
        stored = fts_rows.stored_text(con, fid)
        if stored is not None:
            path, old_names, body = stored
            fts_names = expand_identifiers(" ".join(names)) if names else redact(old_names)
            if fts_names != old_names:
                fts_rows.delete(con, (fid,))
                fts_rows.insert(con, fid, path, fts_names, body)
    if files:  # a deleted FTS5 row stays in its segment until a merge: merge them all
        con.execute("INSERT INTO files_fts(files_fts) VALUES('optimize')")
    return len(files)
