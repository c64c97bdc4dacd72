"""What changed since the index was last right, as git already knows it: no walk of the tree.

Without the watcher's journal (freshness.py), a no-change `cairn index` listed and stat'ed every
file (~4 s at 100,000 files). git keeps the stat data of every tracked file in its own index and
answers `git status` from it in C (~0.2-0.7 s at 100,000). So each run records git's view at its
start: the commit checked out (HEAD) and the paths git status lists (changed, deleted, untracked).
A later run asks again; the files that can differ from what the index holds are then only:
  - the paths git lists now or listed then (a file dirty then may be clean now: reverted);
  - the paths that differ between the two commits (`git diff --name-only`), when HEAD moved.
Every other file was clean then and is clean now at the same commit: its content is the one the
index read. Those few paths go through the same look as the watcher's (stages/changes.py).

It answers None (walk as before) when git cannot say: no repository, HEAD unborn or gone, a
submodule or an error, or more listed paths than MAX_LISTED (stored in the index's meta row).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

MAX_LISTED = 20_000  # listed paths kept in the meta row; past it a walk is as cheap as the bookkeeping
TIMEOUT_S = 30
ALWAYS_STAMPED = (".cairn/ignore", ".git/info/exclude")  # ignore rules that may sit outside git's listing


@dataclass
class GitView:
    """git's view of a worktree at one moment: HEAD's commit, the paths git status lists, and the
    size and mtime of the ignore files among them (a changed rule changes what is listed: walk)."""

    head: str
    listed: list[str]
    stamps: dict[str, str] = field(default_factory=dict)

    def as_row(self) -> dict:
        return {"head": self.head, "listed": self.listed, "stamps": self.stamps}

    @staticmethod
    def from_row(row: dict | None) -> GitView | None:
        if not isinstance(row, dict) or not isinstance(row.get("head"), str) or not isinstance(row.get("listed"), list):
            return None
        raw = row.get("stamps")
        stamps = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
        return GitView(row["head"], [p for p in row["listed"] if isinstance(p, str)], stamps)


def is_ignore_file(path: str) -> bool:
    return path in ALWAYS_STAMPED or path.rsplit("/", 1)[-1] == ".gitignore"


def _stamp(root: Path, rel: str) -> str:
    try:
        st = os.stat(root / rel)
    except OSError:
        return "absent"
    return f"{st.st_size}:{st.st_mtime_ns}"


def _git(root: Path, *args: str) -> bytes | None:
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def git_view(root: Path) -> GitView | None:
    """HEAD and the listed paths, from one `git status` (porcelain v2 with the branch header)."""
    if not (root / ".git").exists():
        return None
    raw = _git(
        root, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--no-renames",
        "--ignore-submodules=all",
    )  # fmt: skip
    if raw is None:
        return None
    head: str | None = None
    listed: list[str] = []
    for record in raw.decode("utf-8", "surrogateescape").split("\0"):
        if record.startswith("# branch.oid "):
            oid = record[len("# branch.oid ") :]
            head = oid if oid != "(initial)" else None
        elif record.startswith(("1 ", "u ")):  # changed / unmerged: the path is the last field
            fields = record.split(" ", 8 if record[0] == "1" else 10)
            listed.append(fields[-1])
        elif record.startswith("? "):
            listed.append(record[2:])
        elif record.startswith("2 "):  # a rename despite --no-renames: git cannot be read plainly
            return None
        if len(listed) > MAX_LISTED:
            return None
    if head is None:
        return None
    stamped = [p for p in listed if is_ignore_file(p)] + list(ALWAYS_STAMPED)
    return GitView(head, sorted(set(listed)), {p: _stamp(root, p) for p in stamped})


def changed_paths(root: Path, then: GitView, now: GitView) -> set[str] | None:
    """The paths whose content may differ from what the index read when `then` was taken (None:
    git cannot say, walk)."""
    paths = set(then.listed) | set(now.listed)
    if then.head != now.head:
        raw = _git(root, "diff", "--name-only", "-z", "--no-renames", then.head, now.head, "--")
        if raw is None:  # the old commit is gone (rebased and collected): walk
            return None
        paths.update(p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p)
        if len(paths) > 4 * MAX_LISTED:
            return None
    for p in [p for p in paths if is_ignore_file(p)] + list(ALWAYS_STAMPED):
        if then.stamps.get(p) != _stamp(root, p):  # an ignore rule moved: what git lists and cairn keeps may too
            return None
    return paths
