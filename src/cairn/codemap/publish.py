"""`cairn index --publish`: the index of one commit as one file, for a CI artifact or the team database.

A fresh clone of a big repository pays the cold index again on every machine although the code
is the same. So a CI job (or anyone on a clean checkout) publishes the index once, and a clone
installs it and refreshes only what differs locally (publish_install.py).

The file: a magic line, the manifest's length on a line, the manifest (JSON: the publish format,
cairn's index format, GRAPH_VERSION and schema version, the commit and its tree, the repository's
normalized remote, every indexed file's content hash), then the SQLite index (a consistent copy
made by `VACUUM INTO`), zlib-compressed, whose size and sha256 the manifest states: a truncated or
altered file is refused as such.

What goes out is derived code-index content of files git tracks at that commit, nothing else: the
publish is refused while the index holds a file git lists as changed or untracked (an uncommitted
note, a local `.env`: their text would leave the machine) or keeps out of `git status` (skip-worktree), and without git. The session archive,
the history store, the personal vault and agent memories are other databases, never read here;
the meta rows that describe this machine (watcher, git status, HEAD's stamp) are dropped. The text
was redacted when it was indexed (extract.py); names of definitions and import strings were not,
so publish_redact.py passes those of the files the redactor touched through it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cairn.errors import CairnError
from cairn.project import Project

TYPE_CHECKING = False  # not typing's (see index_db.py)
if TYPE_CHECKING:
    from typing import BinaryIO

MAGIC = b"CAIRN-PUBLISHED-INDEX\n"
PUBLISH_FORMAT = 1  # the layout of the file itself; bump when the manifest or the payload changes shape
MAX_MANIFEST = 256 * 1024 * 1024  # a manifest longer than this is no manifest (a corrupt length line)
CHUNK = 1 << 20
LEVEL = 6  # zlib: terraform's 36 MB index -> see docs/benchmarks.md#published-index
DROPPED_META = ("watch_epoch", "watch_offset", "git_view", "history_stamp")  # this machine's, not the index's
HISTORY_TABLES = ("commit_files", "churn", "commits")  # git history: dropped from a shallow clone's index


class PublishedIndexError(CairnError):
    """A published index that cannot be used here: its format, versions, repository or tree differ,
    or the file is truncated or corrupt. One line, exit code 2; the local index is untouched."""

    exit_code = 2


@dataclass
class Manifest:
    """What a published index is: who can read it, which commit and tree, which file contents."""

    publish_format: int
    cairn_version: str
    index_format: str
    graph_version: str
    schema_version: int
    commit: str
    tree: str
    repository: str | None  # the normalized git remote (team/identity.py), None without a remote
    shallow: bool
    created: str
    files: dict[str, str] = field(default_factory=dict)  # path -> content hash (extract.content_hash)
    skipped: dict[str, str] = field(default_factory=dict)  # files seen but not indexed (binary...) -> hash
    db_bytes: int = 0
    payload_bytes: int = 0
    payload_sha256: str = ""

    def to_bytes(self) -> bytes:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> Manifest:
        try:
            raw = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise PublishedIndexError(f"{where}: corrupt: its manifest is not JSON") from None
        if not isinstance(raw, dict):
            raise PublishedIndexError(f"{where}: corrupt: its manifest is not an object")
        fmt = raw.get("publish_format")
        if fmt != PUBLISH_FORMAT:
            raise PublishedIndexError(
                f"{where}: published in file format {fmt!r}, this cairn reads format {PUBLISH_FORMAT}: "
                "publish it again with this version of cairn, or run `cairn index`"
            )
        try:
            out = cls(**{k: raw[k] for k in cls.__dataclass_fields__})
        except (KeyError, TypeError):
            raise PublishedIndexError(f"{where}: corrupt: its manifest lacks a field") from None
        if not isinstance(out.files, dict) or not isinstance(out.skipped, dict):
            raise PublishedIndexError(f"{where}: corrupt: its manifest's file lists are not maps")
        for name, kind in _SCALARS.items():
            value = getattr(out, name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise PublishedIndexError(f"{where}: corrupt: its manifest's {name} is {type(value).__name__}")
        return out


_SCALARS: dict[str, type | tuple[type, ...]] = {  # what each field must be, or it is compared, sliced, summed in vain
    **dict.fromkeys(("publish_format", "schema_version", "db_bytes", "payload_bytes"), int),
    **dict.fromkeys(("cairn_version", "index_format", "graph_version", "commit", "tree", "created"), str),
    "payload_sha256": str,
    "repository": (str, type(None)),
    "shallow": bool,
}


def read_manifest(fh: BinaryIO, where: str) -> Manifest:
    """The manifest at the head of a published index (the stream is left at the payload's start)."""
    if fh.read(len(MAGIC)) != MAGIC:
        raise PublishedIndexError(f"{where}: not a published cairn index (no header)")
    line = fh.readline(24)
    try:
        size = int(line.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        raise PublishedIndexError(f"{where}: corrupt: no manifest length") from None
    if not 0 < size <= MAX_MANIFEST:
        raise PublishedIndexError(f"{where}: corrupt: a manifest of {size} bytes")
    data = fh.read(size)
    if len(data) != size:
        raise PublishedIndexError(f"{where}: truncated: the manifest ends after {len(data)} of {size} bytes")
    return Manifest.from_bytes(data, where)


def git(root: Path, *args: str) -> str | None:
    """git's answer, stripped, or None when git fails."""
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=60, text=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def file_hash(path: Path) -> str | None:
    """The content hash the index stores for a file (extract.content_hash, written again here: an
    install that finds nothing changed never imports the extractor), None when unreadable."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _refuse_unclean(con: sqlite3.Connection, root: Path, head: str) -> None:
    """Refuse while the index holds a file whose content is not the commit's (changed, untracked)."""
    from cairn.codemap.git_changes import git_view

    view = git_view(root)
    if view is None:
        raise CairnError(f"{root}: git cannot list what changed here; publish from a clean checkout of a commit")
    flags = git(root, "ls-files", "-v", "-z")
    if flags is None:
        raise CairnError(f"{root}: git cannot list its files; publish from a clean checkout of a commit")
    listed = set(view.listed) | _hidden_from_status(flags)
    indexed = {r[0] for r in con.execute("SELECT path FROM files UNION SELECT path FROM skipped")}
    local = sorted(listed & indexed)
    if local:
        sample = ", ".join(local[:3]) + (f" and {len(local) - 3} more" if len(local) > 3 else "")
        raise CairnError(
            f"cannot publish: {len(local)} indexed files are not as commit {head[:12]} has them ({sample}); "
            "their text would leave this machine: publish from a clean checkout (commit, stash or remove them)"
        )


def _hidden_from_status(ls_files_v: str) -> set[str]:
    """Tracked files `git status` does not compare (`update-index --skip-worktree`, tag S, or
    `--assume-unchanged`, a lower-case tag): the recipe for a config file with local credentials,
    so their content may be this machine's."""
    out = set()
    for record in ls_files_v.split("\0"):
        tag, _, path = record.partition(" ")
        if path and (tag == "S" or tag.islower()):
            out.add(path)
    return out


def _snapshot(con: sqlite3.Connection, dest: Path, shallow: bool) -> None:
    """A consistent copy of the index at `dest` without this machine's rows (see module docstring)."""
    from cairn.codemap.index_meta import IndexMeta
    from cairn.codemap.publish_redact import redact_names

    con.execute("VACUUM INTO ?", (str(dest),))
    out = sqlite3.connect(dest, isolation_level=None)
    try:
        out.execute("BEGIN")
        IndexMeta.write(out, **dict.fromkeys(DROPPED_META))
        if shallow:  # a shallow clone's history is a stub: the clone mines its own (history.py)
            for table in HISTORY_TABLES:
                out.execute(f"DELETE FROM {table}")
            IndexMeta.write(out, history_head=None)
        redact_names(out)
        out.execute("COMMIT")
        out.execute("VACUUM")
    finally:
        out.close()


def publish_index(project: Project, out: Path, repository: str | None) -> Manifest:
    """Bring the index up to date, then write it for the current commit to `out` (atomically)."""
    from datetime import UTC, datetime

    from cairn import __version__
    from cairn.codemap.graph import GRAPH_VERSION
    from cairn.codemap.index_db import INDEX_FORMAT
    from cairn.codemap.indexer import index_project, open_index
    from cairn.codemap.schema import MIGRATIONS

    root = project.root
    if root is None or not (root / ".git").exists():
        raise CairnError("publishing needs a git repository: a published index is named by its commit")
    head, tree = git(root, "rev-parse", "--verify", "-q", "HEAD"), git(root, "rev-parse", "HEAD^{tree}")
    if not head or not tree:
        raise CairnError(f"{root}: no commit checked out (HEAD is unborn): commit first, then publish")
    index_project(project, totals=False)
    con = open_index(project)
    try:
        _refuse_unclean(con, root, head)
        files = {r[0]: r[1] for r in con.execute("SELECT path, hash FROM files")}
        skipped = [r[0] for r in con.execute("SELECT path FROM skipped")]
        manifest = Manifest(
            publish_format=PUBLISH_FORMAT,
            cairn_version=__version__,
            index_format=INDEX_FORMAT,
            graph_version=GRAPH_VERSION,
            schema_version=len(MIGRATIONS),
            commit=head,
            tree=tree,
            repository=repository,
            shallow=git(root, "rev-parse", "--is-shallow-repository") == "true",
            created=datetime.now(UTC).isoformat(timespec="seconds"),
            files=files,
            skipped={p: h for p in skipped if (h := file_hash(root / p)) is not None},
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        sweep_dead(out.parent, rf"\.{re.escape(out.name)}\.(\d+)\.(?:db|z|tmp)")  # _write's names, a kill's leftovers
        db = out.with_name(f".{out.name}.{os.getpid()}.db")
        db.unlink(missing_ok=True)
        try:
            _snapshot(con, db, manifest.shallow)
            _write(manifest, db, out)
        finally:
            db.unlink(missing_ok=True)
    finally:
        con.close()
    return manifest


def sweep_dead(folder: Path, pattern: str) -> None:
    """Delete the files in `folder` whose name starts as `pattern` says (its group 1: the pid that
    wrote it) and whose process no longer runs: what a kill -9 left mid-publish or mid-install
    (a finally never ran). A running process's file is never touched."""
    from cairn.util.atomic import pid_alive

    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    rx = re.compile(pattern)
    for entry in entries:
        m = rx.match(entry.name)
        if m and entry.is_file(follow_symlinks=False) and not pid_alive(int(m.group(1))):
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def sweep_beside_index(index: Path) -> None:
    """The temporary files a killed install (`INDEX.fetch-PID`) or team publish (`INDEX.publish-PID`,
    and publish_index's `.INDEX.publish-PID.PID.db` beside it) left in the index's folder."""
    sweep_dead(index.parent, rf"\.?{re.escape(index.name)}\.(?:fetch|publish)-(\d+)")


def _write(manifest: Manifest, db: Path, out: Path) -> None:
    """The file: header, manifest, compressed database; written beside `out`, then renamed over it."""
    payload = out.with_name(f".{out.name}.{os.getpid()}.z")
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        digest, packer = hashlib.sha256(), zlib.compressobj(LEVEL)
        with open(db, "rb") as src, open(payload, "wb") as dst:
            while block := src.read(CHUNK):
                manifest.db_bytes += len(block)
                part = packer.compress(block)
                digest.update(part)
                dst.write(part)
            part = packer.flush()
            digest.update(part)
            dst.write(part)
        manifest.payload_bytes, manifest.payload_sha256 = payload.stat().st_size, digest.hexdigest()
        head = manifest.to_bytes()
        with open(tmp, "wb") as fh, open(payload, "rb") as src:
            fh.write(MAGIC + f"{len(head)}\n".encode() + head)
            while block := src.read(CHUNK):
                fh.write(block)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, out)
    finally:
        payload.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)
