"""Staleness by content, not by date: a note is stale when the code it cites has changed since.

When a node is written, each cited file gets a `Cite`: the HEAD commit, the sha1 of the whole
file, and for each cited symbol that a `symbol_range(path, symbol) -> (start, end) | None`
callable can locate, the sha1 of that symbol's lines. At read time only the cited files are
hashed again (cheap), and a symbol hash is preferred over the file hash, so editing an unrelated
function in the same file does not mark a note about another function stale.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from cairn.memory.node import Cite, Node

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
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
                             capture_output=True, text=True, timeout=2)
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


def file_sha1(path: Path) -> str | None:
    """sha1 of a file's bytes, None when it is missing, unreadable or not a regular file."""
    data = _read(path)
    return None if data is None else hashlib.sha1(data).hexdigest()


def symbol_sha1(path: Path, start: int, end: int) -> str | None:
    """sha1 of lines start..end (1-based, inclusive) of a file."""
    data = _read(path)
    if data is None:
        return None
    lines = data.split(b"\n")
    return hashlib.sha1(b"\n".join(lines[max(start - 1, 0):end])).hexdigest()


def _symbol_hashes(root: Path, rel: str, symbols: list[str],
                   symbol_range: SymbolRange | None) -> dict[str, str]:
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


def make_cites(root: Path | None, files: list[str], symbols: list[str],
               symbol_range: SymbolRange | None = None, commit: str | None = None) -> list[Cite]:
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
    if root is None or node.origin == "personal":
        return []
    root = Path(root)
    out = []
    for cite in node.cites:
        path = root / cite.path
        if not path.is_file() or not path.resolve().is_relative_to(root.resolve()):
            out.append(cite.path)
            continue
        if cite.symbols and symbol_range is not None:
            changed = False
            for sym, old in cite.symbols.items():
                try:
                    rng = symbol_range(cite.path, sym)
                except Exception:
                    rng = None
                if not rng or symbol_sha1(path, int(rng[0]), int(rng[1])) != old:
                    changed = True
                    break
            if changed:
                out.append(cite.path)
            continue
        if cite.sha1 and file_sha1(path) != cite.sha1:
            out.append(cite.path)
    return out
