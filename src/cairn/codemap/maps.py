"""Level-0 and level-1 maps rendered from the index: what an agent reads instead of exploring.

Level 0 (`cairn map`): a <= ~500-token overview: languages, modules with their central files,
the most central files with their key symbols, entry points. Level 1 (`cairn map MODULE`): one
page per module: files, key symbols with line numbers, what it imports and is imported by, and
apart from those the modules it shares names with where imports cannot name files.
Output is deterministic (sorted, no timestamps) so the copies written to `.cairn/` only change
in git when the code did.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from pathlib import PurePosixPath

from cairn.codemap.summaries import get_summary, module_slug
from cairn.errors import CairnError
from cairn.project import Project
from cairn.text.budget import estimate_tokens

LEVEL0_BUDGET = 500
MAX_MODULES = 12
MAX_NOTES = 5
ENTRY_NAMES = frozenset(
    """__main__.py main.py cli.py app.py manage.py wsgi.py asgi.py main.go main.rs lib.rs main.ts main.js
    index.ts index.js server.ts server.js server.py main.kt Main.java Program.cs main.swift main.dart
    main.c main.cpp""".split()
)
SYMBOL_KINDS = ("class", "interface", "struct", "type", "enum", "trait", "function", "method", "constant")


def key_symbols(con: sqlite3.Connection, file_id: int, limit: int) -> list[sqlite3.Row]:
    """Top-level definitions worth naming: public types and functions before constants and privates."""
    return con.execute(
        "SELECT name, kind, line, signature FROM symbols WHERE file_id=? AND top_level=1 AND kind != 'heading' "
        "ORDER BY (substr(name, 1, 1) = '_'), (kind IN ('constant', 'variable', 'field')), line LIMIT ?",
        (file_id, limit),
    ).fetchall()


def _entry_points(con: sqlite3.Connection, limit: int = 6) -> list[str]:
    rows = con.execute("SELECT path, rank FROM files WHERE kind='code' ORDER BY rank DESC").fetchall()
    found = []
    for r in rows:
        p = PurePosixPath(r["path"])
        depth = len(p.parts)
        if p.name in ENTRY_NAMES and (depth <= 4 or p.name in ("__main__.py", "main.go", "main.rs")):
            found.append(r["path"])
        elif len(p.parts) >= 2 and p.parts[-2] in ("bin", "cmd") and depth <= 3:
            found.append(r["path"])
    found.sort(key=lambda s: (len(PurePosixPath(s).parts), s))
    return found[:limit]


def _key_knowledge(con: sqlite3.Connection, project: Project, limit: int = MAX_NOTES) -> list:
    """The few most valuable live decisions and gotchas of the project (none if it has no notes)."""
    if not con.execute("SELECT 1 FROM nodes WHERE state = 'active' LIMIT 1").fetchone():
        return []
    try:
        from cairn.codemap.knowledge_index import key_notes

        return key_notes(project, limit)
    except Exception:  # a broken note must not break the map; `cairn memory doctor` reports it
        return []


def _module_knowledge(con: sqlite3.Connection, module: str) -> list[sqlite3.Row]:
    """Live notes that cite a file of the module (through the index's cites edges)."""
    return con.execute(
        "SELECT DISTINCT n.id, n.type, n.title FROM edges e JOIN nodes n ON n.file_id = e.src "
        "JOIN files f ON f.id = e.dst WHERE e.kind = 'cites' AND f.module = ? AND n.state = 'active' "
        "ORDER BY n.type, n.title LIMIT 12",
        (module,),
    ).fetchall()


def _languages(con: sqlite3.Connection) -> str:
    rows = con.execute(
        "SELECT lang, COUNT(*) n FROM files WHERE lang IS NOT NULL GROUP BY lang ORDER BY n DESC, lang LIMIT 6"
    ).fetchall()
    return ", ".join(f"{r['lang']} {r['n']}" for r in rows) or "no parsed languages"


def render_level0(
    con: sqlite3.Connection, project: Project, budget: int = LEVEL0_BUDGET, whole: list[int] | None = None
) -> str:
    """The overview map, trimmed to `budget` estimated tokens; `whole` receives the untrimmed map's
    tokens when it was trimmed (the MCP map says what the budget left out)."""
    n_files = con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    if n_files == 0:
        raise CairnError("the index is empty: run `cairn index` first")
    n_sym = con.execute("SELECT COUNT(*) FROM symbols WHERE kind != 'heading'").fetchone()[0]
    head = [f"# Map of {project.name}", ""]
    summary = get_summary(project)
    if summary:
        head += [summary, ""]
    head += [
        f"{n_files} files ({_languages(con)}), {n_sym} symbols. "
        f'`cairn map MODULE` opens a module; `cairn search "..."` finds code.',
        "",
    ]
    mods = con.execute("SELECT name, files, rank FROM modules ORDER BY rank DESC, name").fetchall()
    mod_lines = ["## Modules (most central first)"]
    for m in mods[:MAX_MODULES]:
        central = con.execute(
            "SELECT path FROM files WHERE module=? AND kind='code' ORDER BY rank DESC, path LIMIT 3", (m["name"],)
        ).fetchall()
        names = ", ".join(PurePosixPath(c["path"]).name for c in central)
        mod_lines.append(f"- `{m['name']}` ({m['files']} files)" + (f": {names}" if names else ""))
    top = con.execute(
        "SELECT id, path, is_hub, indegree FROM files WHERE kind='code' ORDER BY rank DESC, path LIMIT 10"
    ).fetchall()
    file_lines = ["", "## Central files"]
    for f in top:
        syms = ", ".join(s["name"] for s in key_symbols(con, f["id"], 4))
        hub = " [hub]" if f["is_hub"] else ""
        file_lines.append(f"- `{f['path']}`{hub} (used by {f['indegree']})" + (f": {syms}" if syms else ""))
    entries = _entry_points(con)
    entry_lines = ["", "## Entry points", *(f"- `{e}`" for e in entries)] if entries else []
    notes = _key_knowledge(con, project)
    know_lines = (
        ["", "## Key decisions and gotchas (`cairn read ID`)", *(f"- {n.type}: {n.title} (`{n.id}`)" for n in notes)]
        if notes
        else []
    )
    lines = head + know_lines + mod_lines + file_lines + entry_lines

    def assemble() -> list[str]:
        shown = len(mod_lines) - 1  # say what the list leaves out, so nobody takes it as complete
        more = (
            [f"- ... {len(mods) - shown} more modules (`cairn map MODULE` opens one)"]
            if mod_lines and len(mods) > shown
            else []
        )
        return head + know_lines + mod_lines + more + file_lines + entry_lines

    lines = assemble()
    untrimmed = "\n".join(lines)
    sections = (know_lines, mod_lines, file_lines, entry_lines)
    # trim the longest section from its bottom until the map fits (every section keeps a few rows),
    # then down to one row each, then drop whole sections, least useful first: the budget is a cap
    for keep in (4, 3):
        while estimate_tokens("\n".join(lines)) > budget:
            section = max(sections, key=len)
            if len(section) <= keep:
                break
            section.pop()
            lines = assemble()
    for section in (entry_lines, file_lines, know_lines, mod_lines):
        if estimate_tokens("\n".join(lines)) <= budget:
            break
        section.clear()
        lines = assemble()
    if whole is not None and "\n".join(lines) != untrimmed:
        whole.append(estimate_tokens(untrimmed.rstrip() + "\n"))
    return "\n".join(lines).rstrip() + "\n"


def find_module(con: sqlite3.Connection, name: str) -> str:
    """Resolve a module argument: exact name, slug, or a unique suffix/prefix."""
    names = [r[0] for r in con.execute("SELECT name FROM modules ORDER BY name")]
    clean = name.strip().strip("/")
    for n in names:
        if n == clean or module_slug(n) == clean:
            return n
    cands = [n for n in names if n.endswith("/" + clean) or n.startswith(clean)]
    if len(cands) == 1:
        return cands[0]
    if not names:
        raise CairnError("the index has no modules yet: run `cairn index` first")
    hint = ", ".join(cands[:8] or names[:8]) + (" ..." if len(cands or names) > 8 else "")
    raise CairnError(f"no module '{name}'" + (" (ambiguous)" if cands else "") + f"; modules: {hint}")


def render_level1(con: sqlite3.Connection, project: Project, module: str, max_files: int = 40) -> str:
    """One module's page: files by centrality with key symbols, and its module-level links."""
    files = con.execute(
        "SELECT id, path, lines, is_hub, kind FROM files WHERE module=? ORDER BY rank DESC, path", (module,)
    ).fetchall()
    lines = [f"# Module `{module}` ({len(files)} files)", ""]
    summary = get_summary(project, module)
    if summary:
        lines += [summary, ""]
    # module -> edges, per kind: an import is a dependency the code states; a reference edge is a
    # shared name where imports cannot name files (a Go package never "imports" its parent)
    out_mods: dict[str, dict[str, int]] = {"import": defaultdict(int), "ref": defaultdict(int)}
    in_mods: dict[str, dict[str, int]] = {"import": defaultdict(int), "ref": defaultdict(int)}
    for r in con.execute(
        "SELECT fs.module sm, fd.module dm, e.kind FROM edges e JOIN files fs ON fs.id=e.src "
        "JOIN files fd ON fd.id=e.dst WHERE (fs.module=? OR fd.module=?) AND fs.module != fd.module "
        "AND e.kind IN ('import', 'ref')",
        (module, module),
    ):
        if r["sm"] == module:
            out_mods[r["kind"]][r["dm"]] += 1
        else:
            in_mods[r["kind"]][r["sm"]] += 1

    def fmt(d: dict[str, int]) -> str:
        return ", ".join(f"`{m}`" for m, _ in sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))[:8]) or "none"

    lines += [f"Imports: {fmt(out_mods['import'])}", f"Imported by: {fmt(in_mods['import'])}"]
    if out_mods["ref"] or in_mods["ref"]:
        lines += [
            f"Names used from (no import): {fmt(out_mods['ref'])}",
            f"Names used by (no import): {fmt(in_mods['ref'])}",
        ]
    notes = _module_knowledge(con, module)
    if notes:
        lines += ["", "## Knowledge about this module"] + [f"- {n['type']}: {n['title']} (`{n['id']}`)" for n in notes]
    lines += ["", "## Files"]
    for f in files[:max_files]:
        hub = " [hub]" if f["is_hub"] else ""
        lines.append(f"### `{f['path']}`{hub} ({f['lines']} lines)")
        for s in key_symbols(con, f["id"], 10):
            sig = (s["signature"] or s["name"]).splitlines()[0][:120]
            lines.append(f"- L{s['line']} {sig}")
    if len(files) > max_files:
        lines.append(f"... {len(files) - max_files} more files")
    return "\n".join(lines).rstrip() + "\n"


def write_maps(con: sqlite3.Connection, project: Project) -> int:
    """Write `.cairn/map.md` and `.cairn/modules/*.md` (only in an opted-in project). Returns files changed."""
    if project.memory_dir is None or not project.has_memory_dir:
        return 0
    from cairn.redact import redact
    from cairn.safepath import memory_path
    from cairn.util.atomic import sweep_temps, write_if_changed

    base = project.memory_dir
    changed = int(write_if_changed(memory_path(base, "map.md"), redact(render_level0(con, project))))
    mod_dir = memory_path(base, "modules")
    mod_dir.mkdir(exist_ok=True)
    for folder in (base, mod_dir):  # temp files of an index run killed mid-write
        sweep_temps(folder)
    wanted = set()
    for (name,) in con.execute("SELECT name FROM modules ORDER BY name").fetchall():
        fname = module_slug(name) + ".md"
        wanted.add(fname)
        page = redact(render_level1(con, project, name))  # constants' values are quoted on the pages
        changed += int(write_if_changed(memory_path(base, "modules", fname), page))
    for stale in mod_dir.glob("*.md"):
        if stale.name not in wanted and not stale.is_symlink():
            stale.unlink()
            changed += 1
    return changed
