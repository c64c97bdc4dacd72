"""Git history as evidence: which files change together (co-change) and which change often lately (churn).

Mined at index time from one `git log` call, bounded: the newest MAX_COMMITS commits, merges
skipped, commits touching more than MAX_FILES_PER_COMMIT files ignored (mass renames, vendoring,
formatting sweeps say nothing about coupling). Incremental: the newest mined commit is kept in
`meta`; a later run reads only the commits after it while it is still an ancestor of HEAD, and
mines again from scratch when the history was rewritten. No git, a shallow clone, an empty
repository or a failing git never fails an index run: the history channel is simply empty.

Stored as plain rows (`commits`, `commit_files`, `churn`), so the request path computes
co-change for the session's files with two indexed queries and no git call.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

from cairn.codemap.index_meta import IndexMeta
from cairn.store.db import transaction

MAX_COMMITS = 3000
MAX_FILES_PER_COMMIT = 40
HALF_LIFE = 300  # commits: a change this many commits ago counts half as much as the newest
GIT_TIMEOUT = 20.0
_SEP = "\x01"


def _git(root: Path, *args: str) -> str | None:
    import subprocess  # lazily: the request path imports this module for its queries only

    try:
        r = subprocess.run(
            ["git", "-C", str(root), "-c", "core.quotepath=off", *args],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None


def head_commit(root: Path) -> str | None:
    out = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    return out.strip() if out and out.strip() else None


def _log(root: Path, since: str | None, limit: int) -> list[tuple[str, int, list[str]]] | None:
    """(sha, time, files) oldest first, for the commits after `since` (or the newest `limit`)."""
    rev = f"{since}..HEAD" if since else "HEAD"
    out = _git(root, "log", "--no-merges", "--no-renames", "--name-only", f"-n{limit}", f"--format={_SEP}%H %ct", rev)
    if out is None:
        return None
    commits = []
    for block in out.split(_SEP)[1:]:
        lines = block.strip("\n").split("\n")
        head = lines[0].split()
        if len(head) != 2 or not head[1].isdigit():
            continue
        files = [ln for ln in lines[1:] if ln.strip()]
        commits.append((head[0], int(head[1]), files))
    commits.reverse()
    return commits


def _is_ancestor(root: Path, sha: str) -> bool:
    import subprocess

    try:
        r = subprocess.run(
            ["git", "-C", str(root), "merge-base", "--is-ancestor", sha, "HEAD"],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0


def update_history(con: sqlite3.Connection, root: Path) -> int:
    """Mine the commits added since the last run (all of them after a rewrite); how many were new.

    Costs one `git rev-parse` when nothing changed."""
    head = head_commit(root)
    meta = IndexMeta.load(con, "history_head")
    mined = meta.history_head
    if head is None or head == mined:
        return 0
    since = mined if mined and _is_ancestor(root, mined) else None
    commits = _log(root, since, MAX_COMMITS)
    if commits is None:
        return 0
    with transaction(con):
        if since is None:
            con.execute("DELETE FROM commit_files")
            con.execute("DELETE FROM commits")
        for sha, when, files in commits:
            if not files or len(files) > MAX_FILES_PER_COMMIT:
                continue
            cur = con.execute("INSERT OR IGNORE INTO commits(sha, time, nfiles) VALUES(?,?,?)", (sha, when, len(files)))
            if cur.rowcount == 1:
                cid = cur.lastrowid
                con.executemany(
                    "INSERT OR IGNORE INTO commit_files(path, commit_id) VALUES(?,?)", [(f, cid) for f in files]
                )
        _prune(con)
        _rebuild_churn(con)
        meta.save(con, history_head=head)
    return len(commits)


def _prune(con: sqlite3.Connection) -> None:
    n = con.execute("SELECT COUNT(*) FROM commits").fetchone()[0]
    if n > MAX_COMMITS:
        cut = con.execute("SELECT id FROM commits ORDER BY id DESC LIMIT 1 OFFSET ?", (MAX_COMMITS,)).fetchone()[0]
        con.execute("DELETE FROM commit_files WHERE commit_id <= ?", (cut,))
        con.execute("DELETE FROM commits WHERE id <= ?", (cut,))


def _rebuild_churn(con: sqlite3.Connection) -> None:
    """churn(path): commits touching it, a recency-weighted sum of them, and its newest commit time."""
    newest = con.execute("SELECT MAX(id) FROM commits").fetchone()[0] or 0
    con.execute("DELETE FROM churn")
    rows: dict[str, list[float]] = {}
    for path, cid, when in con.execute(
        "SELECT cf.path, c.id, c.time FROM commit_files cf JOIN commits c ON c.id = cf.commit_id"
    ):
        r = rows.setdefault(path, [0, 0.0, 0])
        r[0] += 1
        r[1] += decay(newest - cid)
        r[2] = max(r[2], when)
    con.executemany(
        "INSERT INTO churn(path, commits, score, last) VALUES(?,?,?,?)",
        [(p, int(r[0]), round(r[1], 4), int(r[2])) for p, r in rows.items()],
    )


def decay(age: int) -> float:
    """Weight of a commit `age` commits older than the newest one."""
    return 0.5 ** (max(age, 0) / HALF_LIFE)


def cochange(con: sqlite3.Connection, seeds: dict[str, float], per_seed: int = 40) -> dict[str, float]:
    """path -> how strongly it changes together with the seed paths (path -> weight).

    For each seed, its newest `per_seed` commits; every other file of such a commit earns
    decay / log2(1 + files in the commit), and the sum is normalized cosine-style by both files'
    commit counts, so a file that every commit touches (a changelog, a version file) cannot dominate."""
    if not seeds:
        return {}
    newest = con.execute("SELECT MAX(id) FROM commits").fetchone()[0]
    if newest is None:
        return {}
    counts = _commit_counts(con, list(seeds))
    out: dict[str, float] = {}
    for seed, w in seeds.items():
        n_seed = counts.get(seed, 0)
        if not n_seed:
            continue
        rows = con.execute(
            "SELECT cf.path, c.id, c.nfiles FROM commit_files cf JOIN commits c ON c.id = cf.commit_id "
            "WHERE cf.commit_id IN (SELECT commit_id FROM commit_files WHERE path = ? ORDER BY commit_id DESC LIMIT ?) "
            "AND cf.path != ?",
            (seed, per_seed, seed),
        ).fetchall()
        acc: dict[str, float] = {}
        for path, cid, nfiles in rows:
            acc[path] = acc.get(path, 0.0) + decay(newest - cid) / math.log2(1 + nfiles)
        other = _commit_counts(con, list(acc))
        for path, s in acc.items():
            out[path] = out.get(path, 0.0) + w * s / math.sqrt(min(n_seed, per_seed) * max(other.get(path, 1), 1))
    return out


def _commit_counts(con: sqlite3.Connection, paths: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in range(0, len(paths), 500):
        part = paths[i : i + 500]
        out.update(
            con.execute(f"SELECT path, commits FROM churn WHERE path IN ({','.join('?' * len(part))})", part).fetchall()
        )
    return out


def together(con: sqlite3.Connection, path: str, other: str, last: int = 20) -> tuple[int, int]:
    """(how many of `path`'s newest `last` commits also changed `other`, how many commits that was)."""
    rows = [
        r[0]
        for r in con.execute(
            "SELECT commit_id FROM commit_files WHERE path = ? ORDER BY commit_id DESC LIMIT ?", (path, last)
        )
    ]
    if not rows:
        return 0, 0
    both = con.execute(
        f"SELECT COUNT(*) FROM commit_files WHERE path = ? AND commit_id IN ({','.join('?' * len(rows))})",
        (other, *rows),
    ).fetchone()[0]
    return both, len(rows)


def subjects(root: Path, shas: list[str]) -> dict[str, str]:
    """sha -> the commit's subject line, from one bounded `git log --no-walk` (empty when git fails)."""
    if not shas:
        return {}
    out = _git(root, "log", "--no-walk=unsorted", f"--format=%H{_SEP}%s", *shas)
    found = {}
    for line in (out or "").splitlines():
        sha, _, subject = line.partition(_SEP)
        if subject:
            found[sha] = subject.strip()
    return found


def churn(con: sqlite3.Connection, limit: int = 200) -> dict[str, float]:
    """path -> recency-weighted change count, the files that change most lately first."""
    return dict(con.execute("SELECT path, score FROM churn ORDER BY score DESC LIMIT ?", (limit,)).fetchall())
