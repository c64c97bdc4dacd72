"""`cairn memory-md`: the few notes worth loading into every session, in CLAUDE.md / MEMORY.md.

Claude Code loads these files whole at startup (and stops reading MEMORY.md after 200 lines),
so the block is byte- and line-budgeted: pinned nodes (tag `pinned`) first, then live nodes by
value, one line each with its id; everything else stays reachable by search. Only the text
between cairn's markers is ever replaced, the rest of the user's file is left byte for byte, and
the file is backed up before cairn first edits it. The block holds no timestamps and recency is
measured against the newest note, so re-running without changes writes nothing.
"""

from __future__ import annotations

import datetime as _dt
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from cairn.codemap.knowledge.graph import ranked
from cairn.codemap.knowledge.node import Node
from cairn.errors import CairnError
from cairn.safepath import AGENT_INSTRUCTION_FILES
from cairn.text.marked import splice_block
from cairn.util.atomic import atomic_write_text

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

START = "<!-- cairn:memory:start -->"
END = "<!-- cairn:memory:end -->"
DEFAULT_BYTES = 6000
DEFAULT_LINES = 60
SUMMARY_CHARS = 110


def _summary(node: Node) -> str:
    """First sentence-ish of the body; for a decision record, of its Decision section."""
    text = node.body
    m = re.search(r"^#{1,6}\s*decision(?: outcome)?\s*$\n+(.+?)(?:\n#|\Z)", text, re.I | re.M | re.S)
    if m:
        text = m.group(1)
    for line in text.split("\n"):
        stripped = line.strip()
        if (
            not stripped
            or stripped.startswith(("#", "|", "```", "<!--"))
            or re.match(r"^[*-]?\s*\**(date|status|deciders?|tags?)\**\s*:", stripped, re.I)
        ):
            continue
        out = re.sub(r"\s+", " ", stripped.lstrip(">*- ").strip())
        return out if len(out) <= SUMMARY_CHARS else out[: SUMMARY_CHARS - 1].rstrip() + "…"
    return ""


def node_line(node: Node, stale: bool = False) -> str:
    summary = _summary(node)
    mark = " (code changed since)" if stale else ""
    return f"- [{node.type}] {node.title}" + (f": {summary}" if summary else "") + f"{mark} `{node.id}`"


def render_block(
    nodes: list[Node],
    *,
    max_bytes: int = DEFAULT_BYTES,
    max_lines: int = DEFAULT_LINES,
    stale_ids: set[str] | frozenset[str] = frozenset(),
) -> tuple[str, int]:
    """The marked block within budget (bytes and lines, markers included); and how many it lists."""
    order = ranked(nodes)
    head = [
        START,
        "## Project memory (cairn)",
        "",
        'Pinned and most useful notes; find the rest with `cairn search --kind knowledge "..."`, '
        "open one with `cairn read ID`.",
        "",
    ]

    def size(lines: list[str]) -> int:
        return len("\n".join(lines).encode("utf-8")) + 1

    if size(head + [END]) > max_bytes or len(head) + 1 > max_lines:
        raise CairnError(f"--bytes {max_bytes} / {max_lines} lines is too small for even the block header")

    def fits(lines: list[str]) -> bool:
        return size(lines) <= max_bytes and len(lines) <= max_lines

    def more(rest: int) -> list[str]:
        return [f"- … {rest} more: `cairn memory list`"] if rest else []

    body: list[str] = []
    for i, node in enumerate(order):
        candidate = body + [node_line(node, node.id in stale_ids)]
        if not fits(head + candidate + more(len(order) - i - 1) + [END]):
            break
        body = candidate
    if not order:
        body = ['- (nothing recorded yet: `cairn remember "TITLE" --type decision --body ...`)']
    tail = more(len(order) - len(body)) if order else []
    lines = head + body + tail + [END]
    if not fits(lines):  # not even one note fits: drop the count line too
        lines = head + body + [END]
    shown = len(body) if order else 0
    return "\n".join(lines), shown


@dataclass
class MemoryMdResult:
    path: Path
    changed: bool
    shown: int
    total: int
    bytes: int
    backup: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "changed": self.changed,
            "shown": self.shown,
            "total": self.total,
            "bytes": self.bytes,
            "backup": str(self.backup) if self.backup else None,
        }


MEMORY_FILE_NAMES = AGENT_INSTRUCTION_FILES  # the only files memory-md writes without --force


def target_file(root: Path, file: str | Path | None, *, force: bool = False) -> Path:
    """Where memory-md may write: an agent instruction file inside the project (symlinks resolved).
    `force` lifts only the file-name rule: the path must still be inside the project, because a
    `--force` typed for an unusual name must not also let a typo (or a link) write anywhere."""
    from cairn.errors import PathRefused
    from cairn.safepath import confine

    if not file:  # CLAUDE.md may be a link (to AGENTS.md, say): it must still land in the project
        return confine(default_file(root), [root], what="a memory-md target")
    raw = Path(str(file)).expanduser()
    path = raw if raw.is_absolute() else root / raw
    try:
        resolved = confine(path, [root], what="a memory-md target", allow_git=False)
    except PathRefused as exc:
        if not exc.rule.startswith("outside the project"):
            raise
        raise PathRefused(
            file, exc.rule + "; --force allows another file name inside the project, never a path outside it"
        ) from None
    if not force and resolved.name.lower() not in MEMORY_FILE_NAMES and not resolved.name.lower().endswith(".mdc"):
        raise PathRefused(
            file,
            "memory-md writes only agent instruction files (CLAUDE.md, AGENTS.md, "
            "MEMORY.md, GEMINI.md, ...); pass --force to write another file in the project",
        )
    return resolved


def default_file(root: Path) -> Path:
    for name in ("CLAUDE.md", "MEMORY.md"):
        if (root / name).exists():
            return root / name
    return root / "CLAUDE.md"


def write_memory_md(
    project: Any,
    nodes: list[Node],
    file: str | Path | None = None,
    *,
    max_bytes: int = DEFAULT_BYTES,
    max_lines: int = DEFAULT_LINES,
    stale_ids: set[str] | frozenset[str] = frozenset(),
    force: bool = False,
) -> MemoryMdResult:
    """Write the block into the project's CLAUDE.md (or `file`); a no-op when nothing changed."""
    from cairn.redact import redact
    from cairn.safepath import is_regular, memory_path

    if project.root is None or not (Path(project.root) / ".cairn").is_dir():
        raise CairnError(
            "no .cairn/ folder here: run `cairn init` first (cairn edits a repository only after it opted in)"
        )
    root = Path(project.root)
    path = target_file(root, file, force=force)
    if path.exists() and not is_regular(path):
        from cairn.errors import PathRefused

        raise PathRefused(path, "not a regular file")
    try:
        old = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise CairnError(f"cannot read {path}: {exc}") from None
    block, shown = render_block(nodes, max_bytes=max_bytes, max_lines=max_lines, stale_ids=stale_ids)
    block = redact(block)
    new = splice_block(old, block, START, END)
    total = len(ranked(nodes))
    if new == old:
        return MemoryMdResult(path, False, shown, total, len(block.encode()) + 1)
    backup = None
    if old and START not in old:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        backup = memory_path(root / ".cairn", ".state", "backups", f"{path.name}.{stamp}.bak")
        backup.parent.mkdir(parents=True, exist_ok=True)
        ignore = memory_path(root / ".cairn", ".state", ".gitignore")
        if not ignore.exists():
            atomic_write_text(ignore, "*\n")
        shutil.copy2(path, backup)
    atomic_write_text(path, new)
    return MemoryMdResult(path, True, shown, total, len(block.encode()) + 1, backup)
