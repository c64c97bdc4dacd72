"""Staleness by content, not by date: a note is stale when the code it cites has changed since.

When a node is written, each cited file gets a `Cite`: the HEAD commit, the sha1 of the whole
file, and for each cited symbol that a `symbol_range(path, symbol) -> (start, end) | None`
callable can locate, the sha1 of that symbol's lines. At read time only the cited files are
hashed again (cheap), and a symbol hash is preferred over the file hash, so editing an unrelated
function in the same file does not mark a note about another function stale. Every reader passes
a `symbol_range` backed by the code index (`symbols_from_index`; a file the index has not seen
as it is now is judged whole). Hashes are of the code only: comment lines, blank lines and
indentation changes do not make a note stale (a hash of the raw bytes, as older notes hold, is
accepted too).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

from cairn.codemap.knowledge.node import Cite, Node

SymbolRange = Callable[[str, str], "tuple[int, int] | None"]
_SHA = re.compile(r"^[0-9a-f]{40,64}$")


def _git_dir(root: Path) -> tuple[Path, Path] | None:
    """(worktree git dir, common dir) for a worktree root, read from disk without git."""
    dotgit = root / ".git"
    if dotgit.is_dir():
        return dotgit, dotgit
    if not dotgit.is_file():
        return None
    try:
        text = dotgit.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = Path(text[7:].strip())
    gitdir = gitdir if gitdir.is_absolute() else (root / gitdir)
    common = gitdir
    try:
        rel = (gitdir / "commondir").read_text(encoding="utf-8").strip()
        common = Path(rel) if Path(rel).is_absolute() else gitdir / rel
    except OSError:
        pass
    return gitdir, common


def _read_ref(gitdir: Path, common: Path, ref: str) -> str | None:
    for base in (gitdir, common):
        try:
            val = (base / ref).read_text(encoding="utf-8").strip()
            if _SHA.match(val):
                return val
        except OSError:
            pass
    try:
        for line in (common / "packed-refs").read_text(encoding="utf-8").splitlines():
            parts = line.split(" ", 1)
            if len(parts) == 2 and parts[1].strip() == ref and _SHA.match(parts[0]):
                return parts[0]
    except OSError:
        pass
    return None


def head_commit(root: Path | None) -> str | None:
    """HEAD's commit for a worktree: read from .git files, `git rev-parse` only as a fallback."""
    if root is None:
        return None
    dirs = _git_dir(Path(root))
    if dirs is None:
        return None
    gitdir, common = dirs
    try:
        head = (gitdir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if _SHA.match(head):
        return head
    if head.startswith("ref:"):
        ref = head[4:].strip()
        found = _read_ref(gitdir, common, ref)
        if found:
            return found
        if not (common / "packed-refs").exists() and not (common / ref).exists():
            return None  # unborn branch: no commit yet
    try:  # reftable or something unusual: ask git, briefly
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"], capture_output=True, text=True, timeout=2
        )
        val = out.stdout.strip()
        return val if out.returncode == 0 and _SHA.match(val) else None
    except (OSError, subprocess.SubprocessError):
        return None


def _read(path: Path) -> bytes | None:
    """A regular file's bytes, None otherwise (opened non-blocking: a FIFO must not hang the lock)."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


_COMMENT = re.compile(rb"^(?:#(?:\s|$)|//|--(?:\s|$)|/\*.*\*/$|\*(?:\s|/|$)|;)")


def code_digest(data: bytes) -> str:
    """sha1 of the code in `data`: lines that are only a comment (`# `, `//`, `-- `, `/* */`, the
    `*` lines of a block comment, `;`) or blank are left out, and each line is stripped."""
    kept = [s for s in (line.strip() for line in data.split(b"\n")) if s and not _COMMENT.match(s)]
    return hashlib.sha1(b"\n".join(kept)).hexdigest()


def _same(old: str, data: bytes) -> bool:
    """Does content `data` still match the digest a note recorded (a code digest, or older raw sha1)?"""
    return old == code_digest(data) or old == hashlib.sha1(data).hexdigest()


def file_sha1(path: Path) -> str | None:
    """The code digest of a file, None when it is missing, unreadable or not a regular file."""
    data = _read(path)
    return None if data is None else code_digest(data)


def _lines(data: bytes, start: int, end: int) -> bytes:
    return b"\n".join(data.split(b"\n")[max(start - 1, 0) : end])


def symbol_sha1(path: Path, start: int, end: int) -> str | None:
    """The code digest of lines start..end (1-based, inclusive) of a file."""
    data = _read(path)
    return None if data is None else code_digest(_lines(data, start, end))


def symbols_from_index(con: sqlite3.Connection, root: Path) -> SymbolRange:
    """A `symbol_range` read from a code index connection. It answers only for a file the index
    holds as it is on disk now (same size and mtime): else None, and the file is judged whole."""

    def symbol_range(path: str, symbol: str) -> tuple[int, int] | None:
        try:
            st = (Path(root) / path).stat()
            row = con.execute(
                "SELECT s.line, s.end_line, f.size, f.mtime_ns FROM symbols s JOIN files f ON f.id = s.file_id "
                "WHERE f.path = ? AND s.name = ? ORDER BY s.top_level DESC, s.line LIMIT 1",
                (path, symbol),
            ).fetchone()
        except (OSError, sqlite3.Error):
            return None
        if row is None or (row[2], row[3]) != (st.st_size, st.st_mtime_ns):
            return None
        return int(row[0]), int(row[1])

    return symbol_range


def _symbol_hashes(root: Path, rel: str, symbols: list[str], symbol_range: SymbolRange | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if symbol_range is None:
        return out
    for sym in symbols:
        try:
            rng = symbol_range(rel, sym)
        except Exception:  # the index is a best-effort helper here, never a failure
            rng = None
        if rng:
            digest = symbol_sha1(root / rel, int(rng[0]), int(rng[1]))
            if digest:
                out[sym] = digest
    return out


def make_cites(
    root: Path | None,
    files: list[str],
    symbols: list[str],
    symbol_range: SymbolRange | None = None,
    commit: str | None = None,
) -> list[Cite]:
    """Cites for the files that exist now; a missing file is not cited (nothing to compare)."""
    if root is None:
        return []
    root = Path(root)
    out = []
    for rel in files:
        digest = file_sha1(root / rel)
        if digest is None:
            continue
        out.append(Cite(rel, commit, digest, _symbol_hashes(root, rel, symbols, symbol_range)))
    return out


def stale_files(node: Node, root: Path | None, symbol_range: SymbolRange | None = None) -> list[str]:
    """Cited files whose cited content changed since the note was written, or that are gone."""
    if root is None or node.origin in ("personal", "agent"):
        return []
    root = Path(root)
    out = []
    for cite in node.cites:
        path = root / cite.path
        data = _read(path) if path.resolve().is_relative_to(root.resolve()) else None
        if data is None:
            out.append(cite.path)
            continue
        if cite.sha1 and _same(cite.sha1, data):
            continue  # the file's code is as it was: nothing cited in it changed
        ranges = _ranges(cite.path, list(cite.symbols), symbol_range) if cite.symbols else None
        if ranges is not None:  # the index located every cited symbol in the file as it is now
            if any(rng is None or not _same(cite.symbols[sym], _lines(data, *rng)) for sym, rng in ranges.items()):
                out.append(cite.path)
            continue
        if cite.sha1:
            out.append(cite.path)
    return out


def _ranges(
    path: str, symbols: list[str], symbol_range: SymbolRange | None
) -> dict[str, tuple[int, int] | None] | None:
    """Each symbol's (start, end) now (None: gone); None when there is no index for the file."""
    if symbol_range is None:
        return None
    out: dict[str, tuple[int, int] | None] = {}
    for sym in symbols:
        try:
            rng = symbol_range(path, sym)
        except Exception:  # the index is a best-effort helper here, never a failure
            rng = None
        out[sym] = (int(rng[0]), int(rng[1])) if rng else None
    return out
