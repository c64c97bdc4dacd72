"""Counts over the file list kept in meta under its version, so that a search need not count every file.

A search weighs prose against code by the share of the repository's files that are prose
(search/engine.py `_prose_share`), counted from every file's kind and language: a grouped pass
over the whole table (50-100 ms at 100k files), paid by every first search of a process (an MCP
server's first answer, a one-shot hook). The counts change only with the file list, whose version
the index keeps (`paths_version`, schema v5: any file added, removed or renamed, or whose kind,
language or role changed), so an index run that stored or deleted files saves them in meta under
that version (`save_kind_counts`), and a search reads them back while the version holds
(`kind_counts`); otherwise it counts, as before.
"""

from __future__ import annotations

import sqlite3

from cairn.codemap.index_meta import IndexMeta

COUNT_SQL = "SELECT kind, lang, COUNT(*) FROM files GROUP BY kind, lang"


def _stamp(con: sqlite3.Connection) -> str | None:
    meta = IndexMeta.load(con, "paths_epoch", "paths_version")
    if meta.paths_epoch is None or meta.paths_version is None:
        return None
    return f"{meta.paths_epoch}:{meta.paths_version}"


def _saved(con: sqlite3.Connection, stamp: str | None) -> list[tuple[str, str | None, int]] | None:
    """The counts saved in meta for the file list's version `stamp`; None when none are (or unreadable)."""
    if stamp is None:
        return None
    try:
        record = IndexMeta.load(con, "kind_counts").kind_counts or {}
        if record.get("stamp") == stamp:
            return [(k, lang, int(n)) for k, lang, n in record["counts"]]
    except (ValueError, TypeError, KeyError, AttributeError):
        pass
    return None


def kind_counts(con: sqlite3.Connection) -> list[tuple[str, str | None, int]]:
    """(kind, language, files) for every pair in the index: from meta when saved for this version
    of the file list, else counted."""
    saved = _saved(con, _stamp(con))
    return saved if saved is not None else [(r[0], r[1], r[2]) for r in con.execute(COUNT_SQL)]


def save_kind_counts(con: sqlite3.Connection) -> None:
    """Count and save them for the file list's version now, unless saved already (caller: the indexer,
    after a run that stored or deleted files; a write only when the version moved)."""
    from cairn.store.db import transaction

    stamp = _stamp(con)
    if stamp is None or _saved(con, stamp) is not None:
        return
    counts = [[r[0], r[1], r[2]] for r in con.execute(COUNT_SQL)]
    with transaction(con):
        IndexMeta.write(con, kind_counts={"stamp": stamp, "counts": counts})
