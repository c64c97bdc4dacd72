"""What the tools and the resources show: the map, a module page, a knowledge node, a file region.

Why apart from tools.py: the `map` and `read` tools and the MCP resources (resources.py) show the
same things, and each view here is capped (tokens, files, lines, characters, bytes read) and ends
with the truncation line of bounds.py when it was cut, so a huge file or a hand-written
ten-megabyte note costs the agent a bounded amount of context and says how to get the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cairn.agents.mcp.bounds import (
    MAX_LINE_CHARS,
    MAX_MAP_BUDGET,
    MAX_MODULE_FILES,
    MAX_READ_CHARS,
    MAX_READ_LINES,
    Truncation,
    cap_text,
    with_note,
)
from cairn.agents.mcp.guard import relative_to_root, safe_path
from cairn.errors import CairnError

if TYPE_CHECKING:
    import sqlite3

    from cairn.project import Project

REDACT_CONTEXT_LINES = 120  # lines above a region read along for redaction (a private key block fits)
MAX_COUNT_BYTES = 16 << 20  # past this, a read stops instead of counting the file's lines


def map_overview(con: sqlite3.Connection, project: Project, budget: int) -> str:
    """The level-0 map within `budget` tokens; said cut when the whole map is longer."""
    from cairn.codemap.maps import render_level0
    from cairn.text.budget import estimate_tokens

    whole: list[int] = []  # the untrimmed map's tokens, when the budget trimmed it
    text = render_level0(con, project, budget=budget, whole=whole)
    if not whole:
        return text
    more = f"budget up to {MAX_MAP_BUDGET}, or " if budget < MAX_MAP_BUDGET else ""
    cut = Truncation(estimate_tokens(text), whole[0], "tokens", f"budget {budget}", more + "map(module=...)")
    return with_note(text, cut)


def module_page(con: sqlite3.Connection, project: Project, name: str) -> str:
    """One module's page (codemap.maps), said cut when the module has more files than it lists."""
    from cairn.codemap.maps import find_module, render_level1

    module = find_module(con, name)
    text = render_level1(con, project, module, max_files=MAX_MODULE_FILES)
    files = con.execute("SELECT COUNT(*) FROM files WHERE module=?", (module,)).fetchone()[0]
    if files <= MAX_MODULE_FILES:
        return text
    cut = Truncation(MAX_MODULE_FILES, files, "files", f"{MAX_MODULE_FILES} per page", "search_code or explain")
    return with_note(text, cut)


def indexed_paths(project: Project) -> list[str] | None:
    """The index's file list, so finding decision records skips a second walk of a big tree
    (5k files: 140 ms -> 5 ms). None without an index: load_knowledge then walks itself."""
    if project.root is None or not project.index_path().exists():
        return None
    from cairn.codemap.indexer import open_index

    con = open_index(project)
    try:
        return [row[0] for row in con.execute("SELECT path FROM files")]
    finally:
        con.close()


def render_node(project: Project, ref: str) -> str:
    """The node `ref` (id, title or id prefix) as `cairn read` shows it, cut at MAX_READ_CHARS."""
    from cairn.memory import load_knowledge
    from cairn.memory.node_view import node_view

    nodes = load_knowledge(project, paths=indexed_paths(project))
    view = node_view(project, nodes, ref, hint="search_knowledge lists ids")
    where = None
    if view.node.path:  # repo-relative for the project's notes, absolute for the personal vault's
        file = Path(view.node.path)
        where = relative_to_root(project, (Path(project.root) / file if project.root else file).resolve())
    more = f"read(path={where!r}) from a later start_line" if where else "search_knowledge for a narrower note"
    return with_note(*cap_text(view.text(), MAX_READ_CHARS, more))


def read_region(project: Project, path: str, start: int, end: int | None) -> str:
    """Numbered lines start..end of a text file, bounded in lines, characters and bytes read."""
    real = safe_path(project, path)
    if not real.is_file():
        raise CairnError(f"{path}: not a file")
    with open(real, "rb") as fh:
        if b"\x00" in fh.read(8192):
            raise CairnError(f"{path}: binary file, not shown")
        fh.seek(0)
        last = min(end if end is not None else start + MAX_READ_LINES - 1, start + MAX_READ_LINES - 1)
        if last < start:
            raise CairnError("end_line is before start_line")
        before: list[str] = []  # lines just above the region: a key block may start there
        lines: list[str] = []
        used = 0
        total: int | None = 0
        for total, raw in enumerate(fh, 1):
            if total < start:
                if total >= start - REDACT_CONTEXT_LINES:
                    before.append(raw.decode("utf-8", errors="replace").rstrip("\r\n")[: MAX_LINE_CHARS * 4])
                continue
            if total > last or used >= MAX_READ_CHARS:
                if fh.tell() > MAX_COUNT_BYTES:  # a huge file: stop here, do not count every line
                    total = None
                    break
                continue
            lines.append(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
            used += min(len(lines[-1]), MAX_LINE_CHARS) + 9
    out: list[str] = []
    if lines:  # redacted as a whole (blocks span lines), line breaks kept so the numbers stay true
        from cairn.redact import redact

        shown = redact("\n".join(before + lines), keep_lines=True).split("\n")[len(before) :]
        for i, line in enumerate(shown):
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + f" ... [{len(line) - MAX_LINE_CHARS} more characters]"
            out.append(f"{start + i:>6}| {line}")
    name = relative_to_root(project, real)
    if total == 0:
        return f"{name}: empty file\n"
    if not out:
        raise CairnError(f"{path} has {total} lines; start_line {start} is past the end")
    shown_last = start + len(out) - 1
    want = end if end is not None else total  # the last line asked for (None: unknown, a huge file)
    if total is not None and want is not None:
        want = min(want, total)
    cut = None
    if want is None or shown_last < want:
        why = f"{MAX_READ_LINES} lines per call" if len(out) == last - start + 1 else f"{MAX_READ_CHARS:,} characters"
        asked = None if want is None else want - start + 1
        cut = Truncation(len(out), asked, "lines", why, f"read(path={name!r}, start_line={shown_last + 1})")
    if total is None:
        more, of = f"; continue with start_line={shown_last + 1}", "?"
    else:
        more = (
            f"; {total - shown_last} more lines, continue with start_line={shown_last + 1}"
            if shown_last < total
            else ""
        )
        of = str(total)
    return with_note(f"{name} L{start}-{shown_last} of {of}{more}\n" + "\n".join(out) + "\n", cut)
