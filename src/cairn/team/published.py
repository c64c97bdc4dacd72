"""Published code indexes in the team database: `cairn index --publish --team` and the fetch of a clone.

The file `cairn index --publish` writes (codemap/publish.py: manifest, then the compressed index)
is stored as it is, in parts of PART_BYTES (`bytea` rows), keyed by the repository's normalized
remote and the commit, one per publishing role (row-level security: every member reads, a role
writes and deletes only its own). One transaction stores a whole index, replacing that role's
earlier one of the same commit and keeping its newest KEEP per repository, so a reader sees an
index whole or not at all. A fetch asks for the nearest of the commits it is given (HEAD, then its
first-parent ancestors) that has an index of this cairn's formats, and writes the parts, in one
repeatable-read transaction, to a file the caller then installs (codemap/publish_install.py, which
checks size and sha256 again). A server that goes away mid-fetch is a TeamUnavailable line; the
partial file is deleted and the local index was never touched.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cairn.errors import CairnError
from cairn.team.connect import unavailable

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import psycopg

    from cairn.codemap.publish import Manifest

PART_BYTES = 4 * 1024 * 1024
KEEP = 10  # indexes kept per repository and publishing role (the newest)


@dataclass
class Found:
    commit: str
    bytes: int
    published_at: str
    owner: str


def store(con: psycopg.Connection, url: str, repository: str, manifest: Manifest, artifact: Path) -> int:
    """Store the published file `artifact` for (repository, manifest.commit); returns its size."""
    import psycopg

    size, digest = artifact.stat().st_size, hashlib.sha256()
    key = (repository, manifest.commit)
    try:
        with con.transaction():
            con.execute(
                "DELETE FROM cairn.published_indexes WHERE owner = current_user AND project = %s AND commit_sha = %s",
                key,
            )
            con.execute(
                "INSERT INTO cairn.published_indexes (project, commit_sha, publish_format, index_format, "
                "graph_version, bytes, sha256) VALUES (%s, %s, %s, %s, %s, %s, '')",
                (*key, manifest.publish_format, manifest.index_format, manifest.graph_version, size),
            )
            with open(artifact, "rb") as fh:
                seq = 0
                while part := fh.read(PART_BYTES):
                    digest.update(part)
                    con.execute(
                        "INSERT INTO cairn.published_index_parts (project, commit_sha, seq, data) VALUES (%s, %s, %s, %s)",
                        (*key, seq, part),
                    )
                    seq += 1
            con.execute(
                "UPDATE cairn.published_indexes SET sha256 = %s WHERE owner = current_user AND project = %s "
                "AND commit_sha = %s",
                (digest.hexdigest(), *key),
            )
            con.execute(
                "DELETE FROM cairn.published_indexes WHERE owner = current_user AND project = %s AND commit_sha NOT IN "
                "(SELECT commit_sha FROM cairn.published_indexes WHERE owner = current_user AND project = %s "
                "ORDER BY published_at DESC LIMIT %s)",
                (repository, repository, KEEP),
            )
    except psycopg.Error as exc:
        raise unavailable(url, exc, "cannot store the published index") from None
    return size


def find(
    con: psycopg.Connection, repository: str, candidates: list[str], formats: tuple[int, str, str]
) -> Found | None:
    """The published index of the first of `candidates` (nearest commit first) in these formats."""
    if not candidates:
        return None
    rows = _rows(
        con,
        "SELECT commit_sha, bytes, published_at::text, owner FROM cairn.published_indexes WHERE project = %s "
        "AND commit_sha = ANY(%s) AND publish_format = %s AND index_format = %s AND graph_version = %s "
        "AND sha256 <> '' ORDER BY published_at DESC",
        (repository, candidates, *formats),
    )
    by_commit: dict[str, Found] = {}
    for commit, size, at, owner in rows:
        by_commit.setdefault(commit, Found(commit, int(size), at, owner))
    return next((by_commit[c] for c in candidates if c in by_commit), None)


def other_formats(con: psycopg.Connection, repository: str) -> list[str]:
    """Index formats of what is published for this repository (to say why nothing fits)."""
    rows = _rows(con, "SELECT DISTINCT index_format FROM cairn.published_indexes WHERE project = %s", (repository,))
    return sorted(str(r[0]) for r in rows)


def _rows(con: psycopg.Connection, sql: str, params: tuple) -> list:
    """A lookup's rows; a server that cannot answer it (another schema, no rights, gone) is a
    TeamUnavailable line: a plain `cairn index` then indexes from scratch (cli/index_publish.py)."""
    import psycopg

    from cairn.team.connect import TeamUnavailable, reason

    try:
        return con.execute(sql, params).fetchall()
    except psycopg.Error as exc:
        raise TeamUnavailable(f"team database: cannot look up the published indexes: {reason(exc)}") from None


def fetch(
    con: psycopg.Connection,
    url: str,
    repository: str,
    found: Found,
    dest: Path,
    on_part: Callable[[int], None] | None = None,
) -> None:
    """Write the published index `found` to `dest` (deleted again if anything fails)."""
    import psycopg

    digest = hashlib.sha256()
    try:
        if not con.autocommit:
            con.commit()  # the isolation level is set by a transaction's first statement
        with con.transaction():
            con.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            row = con.execute(
                "SELECT sha256, bytes FROM cairn.published_indexes WHERE owner = %s AND project = %s AND commit_sha = %s",
                (found.owner, repository, found.commit),
            ).fetchone()
            if row is None:
                raise CairnError(f"the index published for {found.commit[:12]} was removed meanwhile; run again")
            written = 0
            with open(dest, "wb") as out:
                seq = 0
                while True:
                    part = con.execute(
                        "SELECT data FROM cairn.published_index_parts WHERE owner = %s AND project = %s "
                        "AND commit_sha = %s AND seq = %s",
                        (found.owner, repository, found.commit, seq),
                    ).fetchone()
                    if part is None:
                        break
                    data = bytes(part[0])
                    digest.update(data)
                    out.write(data)
                    written += len(data)
                    seq += 1
                    if on_part is not None:
                        on_part(seq)
        if written != int(row[1]) or digest.hexdigest() != row[0]:
            raise CairnError(f"the index published for {found.commit[:12]} is incomplete in the team database")
    except psycopg.Error as exc:
        dest.unlink(missing_ok=True)
        raise unavailable(url, exc, "cannot fetch the published index") from None
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
