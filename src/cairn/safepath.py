"""Path safety in one place: which files cairn may read or write, and how it opens them.

Two rules, both refusing with `PathRefused` (one line naming the path and the rule, exit code 2):

1. A path a user, an agent or a committed config names is resolved (symlinks followed) and must
   land inside an allowed base: the project, CAIRN_HOME, or (for `install`/`connect`) the agent
   config files those commands manage. `.git/` internals are never read, at any depth (a nested
   clone's `.git/config` holds credentials too). Only regular files are read (a FIFO would block
   forever), and a symlink loop is a refusal, not a crash.
2. `.cairn/` comes from a repository anyone may have cloned, so nothing under it is trusted as a
   path: cairn writes there only through real directories and files (no symlink at any level,
   opened with O_NOFOLLOW), and reads a file there only when its real path stays inside the real
   `.cairn/`.

Names that become file names (titles, module names, handoff names) go through `slug`.
Stdlib only: the hooks import it.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path, PurePath

from cairn.errors import PathRefused

_SLUG = re.compile(r"[^a-z0-9]+")

# Files agents load as project instructions (lower-cased names): the only files `cairn memory-md`
# writes without --force, and never worth injecting into a prompt (the agent already has them).
AGENT_INSTRUCTION_FILES = frozenset(
    n.lower()
    for n in (
        "CLAUDE.md",
        "CLAUDE.local.md",
        "AGENTS.md",
        "MEMORY.md",
        "GEMINI.md",
        "AGENT.md",
        "CONVENTIONS.md",
        "copilot-instructions.md",
        ".cursorrules",
        ".windsurfrules",
        ".clinerules",
        "QWEN.md",
        "CRUSH.md",
    )
)


def slug(text: str, max_len: int = 60, default: str = "item") -> str:
    """A file-name-safe slug: lower-case letters, digits and single dashes, never empty, never `..`."""
    return _SLUG.sub("-", str(text).lower()).strip("-")[:max_len].strip("-") or default


def inside(path: Path, base: Path) -> bool:
    """`path` is `base` or below it (both already real)."""
    return path == base or base in path.parents


def real(path: str | os.PathLike, shown: object = None) -> Path:
    """The real path (symlinks resolved, missing tail allowed); a loop or a NUL byte is refused."""
    shown = path if shown is None else shown
    if "\x00" in str(path):
        raise PathRefused(repr(str(shown)), "a NUL byte in a path")
    try:
        return Path(path).expanduser().resolve()
    except (RuntimeError, OSError) as exc:  # RuntimeError: a symlink loop
        raise PathRefused(
            shown, f"cannot be resolved ({type(exc).__name__}: a symlink loop or an unreadable link)"
        ) from None


def has_git_part(path: Path, base: Path) -> bool:
    """A `.git` component anywhere below `base` (git internals, of this repository or a nested one)."""
    try:
        return ".git" in path.relative_to(base).parts
    except ValueError:
        return False


def confine(
    path: str | os.PathLike,
    bases: list[Path],
    *,
    relative_to: Path | None = None,
    what: str = "path",
    allow_git: bool = False,
) -> Path:
    """The real path of `path` (relative paths from `relative_to`), refused unless inside a base."""
    raw = PurePath(os.path.expanduser(str(path)))
    if not str(path).strip():
        raise PathRefused(repr(str(path)), f"an empty {what}")
    joined = Path(raw) if raw.is_absolute() or relative_to is None else Path(relative_to) / raw
    resolved = real(joined, path)
    bases = [real(b) for b in bases]
    home = next((b for b in bases if inside(resolved, b)), None)
    if home is None:
        names = " or ".join(str(b) for b in bases) or "nowhere"
        raise PathRefused(path, f"outside the project: {what} must be inside the project ({names}; symlinks included)")
    if not allow_git and has_git_part(resolved, home):
        raise PathRefused(path, "git internals (.git/) are not read or written through cairn")
    return resolved


def regular_file(path: Path, shown: object = None) -> Path:
    """`path` if it is a regular file (after symlinks); a FIFO, socket or device is refused."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise PathRefused(shown or path, "no such file") from None
    except OSError as exc:
        raise PathRefused(shown or path, f"cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise PathRefused(shown or path, "not a regular file (a FIFO, socket, device or directory)")
    return path


def is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


# ------------------------------------------------------------------ .cairn/ (untrusted tree)


def no_links_below(base: Path, path: Path) -> None:
    """Refuse when `base` or any existing component from it down to `path` is a symlink."""
    base, path = Path(base), Path(path)
    try:
        rel = path.relative_to(base)
    except ValueError:
        raise PathRefused(path, f"must be inside {base}") from None
    cur = base
    for part in (None, *rel.parts):
        if part is not None:
            if part in ("..", ""):
                raise PathRefused(path, "'..' is not allowed")
            cur = cur / part
        try:
            if stat.S_ISLNK(os.lstat(cur).st_mode):
                raise PathRefused(cur, "a symlink inside .cairn/ is never followed for a write")
        except FileNotFoundError:
            return  # the rest does not exist yet: it will be created as real directories and files


def memory_path(memory_dir: Path, *parts: str) -> Path:
    """A path under `.cairn/` that is safe to write: no symlink on the way, no `..`."""
    path = Path(memory_dir).joinpath(*parts)
    no_links_below(Path(memory_dir).parent, path)
    return path


def memory_member_ok(memory_dir: Path, path: Path) -> bool:
    """A file under `.cairn/` may be read: its real path stays in the real `.cairn/` (and in the project)."""
    try:
        base = Path(memory_dir).resolve()
        target = Path(path).resolve()
    except (RuntimeError, OSError):
        return False
    return inside(base, Path(memory_dir).parent.resolve()) and inside(target, base) and is_regular(target)


def open_append(path: Path, mode: int = 0o644) -> int:
    """An O_APPEND descriptor that never follows a symlink (O_NOFOLLOW) nor blocks on a FIFO."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, mode)
    except OSError as exc:
        if exc.errno in (40, 62):  # ELOOP (Linux, macOS): the last component is a symlink
            raise PathRefused(path, "a symlink is never written through") from None
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads (O_NONBLOCK write end)
            raise PathRefused(path, "not a regular file (a FIFO, socket or device)") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise PathRefused(path, "not a regular file (a FIFO, socket or device)")
    return fd
