"""`cairn init`, `cairn index`, `cairn summary`: opt a project in, build its index, curate its map."""

from __future__ import annotations

import argparse
import sys

from cairn.cli.common import add_json, add_root, print_json, resolve

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.codemap.stages.state import IndexStats
    from cairn.project import Project


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "index",
        help="scan and parse the project into its index (incremental)",
        description="Scan the project (git-tracked and not-ignored files), parse them with "
        "tree-sitter and update the index under CAIRN_HOME. A second run with no change "
        "only stats files. Nothing is written into the repository unless it has a .cairn/ "
        "folder (see `cairn init`), where the maps are refreshed.",
    )
    add_root(p)
    add_json(p)
    p.add_argument("--full", action="store_true", help="re-parse every file, ignoring the stat cache")
    p.add_argument("--workers", type=int, default=None, help="parser processes (default: one per core)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    from cairn.cli.index_publish import add_flags

    add_flags(p)  # --publish, --from, --team: an index built once for the team (index_publish.py)
    p.set_defaults(func=cmd_index)

    p = sub.add_parser(
        "init",
        help="opt this project in: create .cairn/ (committed memory and maps)",
        description="Create <root>/.cairn/ with its own .gitignore, index the project and write "
        ".cairn/map.md and .cairn/modules/*.md (generated on each machine, ignored by git so "
        "parallel branches never conflict on them). Without .cairn/, cairn never writes into the repo.",
    )
    add_root(p)
    add_json(p)
    p.set_defaults(func=cmd_init)

    p = sub.add_parser(
        "summary",
        help="set or show the curated summary of the map or of a module",
        description="A summary written by a person or an agent; kept across re-indexing and "
        "shown at the top of the map (or of the module page).",
    )
    ssub = p.add_subparsers(dest="action", metavar="ACTION")
    s = ssub.add_parser("set", help="set the summary (TEXT, or '-' to read stdin; empty removes it)")
    s.add_argument("text", help="the summary text, or - for stdin")
    s.add_argument("--module", "-m", help="a module name (default: the top-level map)")
    add_root(s)
    add_json(s)
    s.set_defaults(func=cmd_summary_set)
    g = ssub.add_parser("show", help="print the summary")
    g.add_argument("--module", "-m", help="a module name (default: the top-level map)")
    add_root(g)
    add_json(g)
    g.set_defaults(func=cmd_summary_show)


def run_index(project: Project, *, quiet: bool, full: bool = False, workers: int | None = None) -> IndexStats:
    """Index with a progress bar on a terminal; returns IndexStats. An explicit index run also
    walks the index's pages for damage (`PRAGMA quick_check`): a damaged index is rebuilt."""
    from cairn.codemap.indexer import index_project

    if quiet or not sys.stderr.isatty():
        return index_project(project, full=full, workers=workers, check=True)
    import time

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    start = time.monotonic()
    with Progress(
        TextColumn("indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task("index", total=None, rate="")

        def progress(done: int, total: int) -> None:
            rate = done / max(time.monotonic() - start, 1e-6)
            bar.update(task, completed=done, total=total, rate=f"{rate:,.0f} files/s")

        return index_project(project, full=full, workers=workers, check=True, progress=progress)


def summary_line(stats: IndexStats) -> str:
    langs = ", ".join(f"{k} {v}" for k, v in list(stats.languages.items())[:5])
    skipped = sum(stats.skipped.values())
    headings = f" (and {stats.headings} markdown headings)" if stats.headings else ""  # the map's count is symbols'
    line = (
        f"indexed {stats.files} files ({langs}), {stats.symbols} symbols{headings}, {stats.edges} edges; "
        f"{stats.changed} changed, {stats.deleted} removed, {skipped} skipped in {stats.seconds:.2f}s"
    )
    if stats.parse_errors:
        by_lang = ", ".join(f"{k} {v}" for k, v in list(stats.parse_failures.items())[:5])
        line += f"; {stats.parse_errors} indexed as text after a parser failure ({by_lang})"
    return line


def _refresh_maps(project: Project) -> int:
    if not project.has_memory_dir:
        return 0
    from cairn.codemap.indexer import open_index
    from cairn.codemap.maps import write_maps

    con = open_index(project)
    try:
        return write_maps(con, project)
    finally:
        con.close()


def cmd_index(args: argparse.Namespace) -> int:
    from cairn.cli import index_publish

    project = resolve(args)
    if index_publish.wanted(args):
        return index_publish.run(args, project, summary_line)
    if not args.full:
        index_publish.maybe_fetch(project)  # a fresh clone: the team's published index, when configured
    stats = run_index(project, quiet=args.quiet or args.json, full=args.full, workers=args.workers)
    if args.json:
        print_json({"project": project.id, "root": str(project.root), **stats.as_dict()})
    else:
        print(summary_line(stats))
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    import os

    from cairn.project import project_for_root
    from cairn.util.atomic import atomic_write_text

    project = resolve(args, need_root=False)
    if project.root is None:  # outside any project: the folder you stand in becomes one
        project = project_for_root(os.getcwd())
    from cairn.safepath import memory_path

    base = project.memory_dir
    assert base is not None  # the project has a tree
    created = not base.exists()
    memory_path(base, "knowledge").mkdir(parents=True, exist_ok=True)
    from cairn.memory.committed import gitignore_text

    ignore = memory_path(base, ".gitignore")
    try:
        existing: str | None = ignore.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = None
    wanted = gitignore_text(existing)
    if wanted is not None:
        atomic_write_text(ignore, wanted)
    stats = run_index(project, quiet=args.json)
    maps = stats.maps_written or _refresh_maps(project)
    if args.json:
        print_json(
            {
                "project": project.id,
                "root": str(project.root),
                "created": created,
                "memory_dir": str(base),
                **stats.as_dict(),
                "maps_written": maps,
            }
        )
    else:
        print(f"{'created' if created else 'kept'} {base}")
        print(summary_line(stats))
        print(f"wrote {maps} map files under {base}")
    return 0


def _module_arg(project: Project, module: str | None) -> str | None:
    if module is None:
        return None
    from cairn.codemap.indexer import open_index
    from cairn.codemap.maps import find_module

    con = open_index(project)
    try:
        return find_module(con, module)
    finally:
        con.close()


def cmd_summary_set(args: argparse.Namespace) -> int:
    from cairn.codemap.summaries import set_summary

    project = resolve(args)
    text = sys.stdin.read() if args.text == "-" else args.text
    module = _module_arg(project, args.module)
    path = set_summary(project, module, text)
    _refresh_maps(project)
    if args.json:
        print_json({"module": module, "path": str(path), "removed": not text.strip()})
    else:
        print(f"summary {'removed' if not text.strip() else 'saved'}: {path}")
    return 0


def cmd_summary_show(args: argparse.Namespace) -> int:
    from cairn.codemap.summaries import get_summary

    project = resolve(args)
    module = _module_arg(project, args.module)
    text = get_summary(project, module)
    if args.json:
        print_json({"module": module, "summary": text})
    else:
        print(text or '(no summary yet: `cairn summary set "..."`)')
    return 0
