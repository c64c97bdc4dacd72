"""What the `cairn sessions` options mean: the project scope, the dates, the semantic setting, the archive.

Shared by the subcommands of sessions_cmd.py and sessions_forget_cmd.py, and by team_cmd.py (--after, --before).
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import sqlite3


def add_scope(p: argparse.ArgumentParser) -> None:
    """--project P | --all-projects, the scope scope_project_ids reads."""
    who = p.add_mutually_exclusive_group()
    who.add_argument("--project", metavar="P", help="a project name or id (default: the current project)")
    who.add_argument("--all-projects", action="store_true", help="every project")


def scope_project_ids(args: argparse.Namespace, con: sqlite3.Connection) -> list[str] | None:
    """None for --all-projects, else the ids of --project P or of the current project."""
    from cairn.cli.common import resolve
    from cairn.sessions.archive_search import project_ids

    if getattr(args, "all_projects", False):
        return None
    if getattr(args, "project", None):
        return project_ids(con, args.project)
    return [resolve(args, need_root=False).id]


def semantic_setting(args: argparse.Namespace) -> bool:
    """`[index] semantic` of the current project (else of ~/.cairn/config.toml): the archive's
    turns get vectors at ingest, and search fuses them (sessions/archive_vectors.py)."""
    from cairn.config import settings
    from cairn.errors import CairnError
    from cairn.project import resolve_project

    try:
        root = resolve_project(root=getattr(args, "root", None)).root
    except CairnError:
        root = None
    return settings(root).index.semantic


def open_existing() -> sqlite3.Connection:
    """The session archive, open; a clear error when nothing was archived yet."""
    from cairn.errors import CairnError
    from cairn.sessions.archive import archive_path, open_archive

    if not archive_path().exists():
        raise CairnError("no session archive yet: run `cairn sessions ingest` first")
    return open_archive()


def date_range(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """(--after, --before) as ISO prefixes (archive_search.parse_when), None where not given."""
    from cairn.sessions.archive_search import parse_when

    return (
        parse_when(args.after) if getattr(args, "after", None) else None,
        parse_when(args.before) if getattr(args, "before", None) else None,
    )
