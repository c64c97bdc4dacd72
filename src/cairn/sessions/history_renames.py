"""The project's past follows its files: a path the history store names that the project no
longer has is followed through git's renames to where the file is now; one git names no new place
for is marked gone (recall drops it anyway: the index holds no such file) and not looked for again.

Called as sessions are archived (history_store.refresh), so the cost is one stat a stored path
while nothing moved, and one `git log` (the newest MAX_COMMITS commits, GIT_SECONDS at most) when
some path went missing. A project outside git, or a git that fails, only marks paths gone.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess

MAX_COMMITS = 2000  # of the project's history searched for renames
GIT_SECONDS = 10.0


def follow_renames(con: sqlite3.Connection, root: str | None) -> int:
    """Move the store's paths the project at `root` lost to where git renamed them (a file
    renamed twice: to the last name); mark the others gone. How many were moved."""
    if not root or not os.path.isdir(root):
        return 0
    lost = {
        path: fid
        for fid, path in con.execute("SELECT id, path FROM files WHERE gone = 0").fetchall()
        if not os.path.lexists(os.path.join(root, path))
    }
    if not lost:
        return 0
    moved = _chase(lost, _git_renames(root), root)
    for old, new in moved.items():
        _move(con, lost[old], new)
    con.executemany("UPDATE files SET gone = 1 WHERE id = ?", [(fid,) for p, fid in lost.items() if p not in moved])
    return len(moved)


def _git_renames(root: str) -> list[tuple[str, str]]:
    """(old path, new path) of the renames in the newest MAX_COMMITS commits, oldest first, as
    paths relative to `root`; none when `root` is not in git or git fails."""
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                root,
                "log",
                "-M",
                "--diff-filter=R",
                "--name-status",
                "--format=",
                "--relative",
                f"-n{MAX_COMMITS}",
                "HEAD",
            ],
            capture_output=True,
            text=True,
            timeout=GIT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    if out.returncode != 0:
        return []
    moves = []
    for line in out.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0].startswith("R"):
            moves.append((parts[1], parts[2]))
    return moves[::-1]


def _chase(lost: dict[str, int], moves: list[tuple[str, str]], root: str) -> dict[str, str]:
    """lost path -> the path it was renamed to, last, where a file now is."""
    at: dict[str, list[str]] = {p: [p] for p in lost}  # where each lost path is now -> those it was
    for old, new in moves:
        if old in at:
            at.setdefault(new, []).extend(at.pop(old))
    return {
        origin: now
        for now, origins in at.items()
        for origin in origins
        if now != origin and os.path.isfile(os.path.join(root, now))
    }


def _move(con: sqlite3.Connection, fid: int, new: str) -> None:
    """Name file `fid` `new`; when the store knows `new` too, its rows join that file's (a session
    or request that named both keeps the new name's row) and the counts are taken again."""
    row = con.execute("SELECT id FROM files WHERE path = ?", (new,)).fetchone()
    if row is None:
        con.execute("UPDATE files SET path = ?, gone = 0 WHERE id = ?", (new, fid))
        return
    into = row[0]
    for table in ("session_files", "feedback", "request_files"):
        con.execute(f"UPDATE OR IGNORE {table} SET fid = ? WHERE fid = ?", (into, fid))
        con.execute(f"DELETE FROM {table} WHERE fid = ?", (fid,))
    con.execute(
        "UPDATE files SET gone = 0, sessions = (SELECT COUNT(*) FROM session_files WHERE fid = :f), "
        "refs = (SELECT COUNT(*) FROM session_files WHERE fid = :f) + (SELECT COUNT(*) FROM feedback WHERE fid = :f)"
        " + (SELECT COUNT(*) FROM request_files WHERE fid = :f) WHERE id = :f",
        {"f": into},
    )
    con.execute("DELETE FROM files WHERE id = ?", (fid,))
