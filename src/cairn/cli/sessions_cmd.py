"""`cairn sessions ...`: archive past agent sessions, then search, list, show and relate them."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable

from cairn.cli.common import add_json, print_json
from cairn.cli.sessions_args import add_scope, date_range, open_existing, scope_project_ids, semantic_setting
from cairn.cli.sessions_forget_cmd import cmd_forget

DESCRIPTION = """\
The session archive: every past agent conversation, redacted, searchable offline.

  cairn sessions ingest [PATH...]        archive new transcript lines (default: Claude Code, Codex, Gemini folders)
  cairn sessions search QUERY            ranked hits with session, time and a snippet
  cairn sessions list                    sessions with start, end, turns and tags
  cairn sessions show ID                 one conversation, tool calls folded (id or unique prefix)
  cairn sessions related TERM            terms and sessions that co-occur with TERM
  cairn sessions forget ID | --before D  delete for real (the text is purged from the file)
  cairn sessions history [--rebuild]     what recall learns from: earlier requests and the files they led to

search/list cover the current project by default; --project P (name or id) or --all-projects
widen it. Dates: YYYY-MM-DD, an ISO time, today, yesterday, or an age like 7d / 2w.
"""


def db_errors(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """An SQLite failure (locked past the busy timeout, disk full, corrupt file) is a one-line
    error like any other, not a traceback."""

    @functools.wraps(fn)
    def run(args: argparse.Namespace) -> int:
        import sqlite3

        from cairn.errors import CairnError

        try:
            return fn(args)
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            from cairn.errors import printable
            from cairn.store.repair import is_damage

            hint = ""
            if is_damage(exc):
                from cairn.sessions.archive_schema import restore_hint

                hint = f"; {restore_hint()}"
            raise CairnError(f"session archive: {printable(str(exc))}{hint}") from None

    return run


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sessions",
        help="archive of past agent sessions: ingest, search, list, show, forget",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=lambda args: p.print_help() or 0)
    ss = p.add_subparsers(dest="sessions_command", metavar="SUBCOMMAND")

    q = ss.add_parser("ingest", help="archive new transcript lines (incremental)")
    q.add_argument("paths", nargs="*", metavar="PATH", help="transcript files or folders")
    q.add_argument("--no-backup", action="store_true", help="skip the (at most daily) automatic backup")
    add_json(q)
    q.set_defaults(func=db_errors(cmd_ingest))

    q = ss.add_parser("search", help="search past sessions")
    q.add_argument("query", nargs="+", metavar="QUERY")
    add_scope(q)
    q.add_argument("--after", metavar="DATE", help="only turns at or after DATE")
    q.add_argument("--before", metavar="DATE", help="only turns before DATE")
    q.add_argument("--tag", metavar="T", help="only sessions with tag T (e.g. webhook, topic:webhook, tool:bash)")
    q.add_argument("--limit", type=int, default=10, metavar="N", help="at most N hits (default 10)")
    q.add_argument(
        "--team",
        action="store_true",
        help="also search the team archive (PostgreSQL, see `cairn team`); its hits are labelled team:USER",
    )
    add_json(q)
    q.set_defaults(func=db_errors(cmd_search))

    q = ss.add_parser("list", help="list archived sessions")
    add_scope(q)
    q.add_argument("--after", metavar="DATE", help="only sessions that ended at or after DATE")
    q.add_argument("--before", metavar="DATE", help="only sessions that ended before DATE")
    q.add_argument("--tag", metavar="T", help="only sessions with tag T")
    q.add_argument("--limit", type=int, metavar="N", help="at most N sessions (newest first)")
    add_json(q)
    q.set_defaults(func=db_errors(cmd_list))

    q = ss.add_parser("show", help="show one archived conversation")
    q.add_argument("session", metavar="ID", help="session id or a unique prefix")
    q.add_argument("--full", action="store_true", help="do not fold tool calls and results")
    add_json(q)
    q.set_defaults(func=db_errors(cmd_show))

    q = ss.add_parser("related", help="terms and sessions co-occurring with TERM")
    q.add_argument("term", nargs="+", metavar="TERM")
    add_scope(q)
    q.add_argument("--limit", type=int, default=15, metavar="N")
    add_json(q)
    q.set_defaults(func=db_errors(cmd_related))

    q = ss.add_parser("history", help="the request log and co-access recall learns from (per project)")
    add_scope(q)
    q.add_argument("--rebuild", action="store_true", help="build it again from the archive first")
    add_json(q)
    q.set_defaults(func=db_errors(cmd_history))

    q = ss.add_parser("forget", help="delete sessions from the archive for real")
    q.add_argument("session", nargs="?", metavar="ID", help="session id or a unique prefix")
    q.add_argument("--before", metavar="DATE", help="every session that ended before DATE")
    q.add_argument("--project", metavar="P", help="with --before: only this project's sessions")
    q.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    q.add_argument(
        "--purge-backups", action="store_true", help="also delete them from the snapshots in ~/.cairn/backups"
    )
    add_json(q)
    q.set_defaults(func=db_errors(cmd_forget))


def cmd_ingest(args: argparse.Namespace) -> int:
    from cairn.sessions.archive import ingest_paths
    from cairn.sessions.backup import maybe_auto_backup
    from cairn.sessions.transcript import find_transcripts

    total = 0
    if sys.stderr.isatty():  # a progress bar only for a person watching long work
        for f in find_transcripts(args.paths or None):
            try:
                total += f.stat().st_size
            except OSError:
                pass
    backup = None if args.no_backup else maybe_auto_backup  # at most daily (backup.py)
    if total > 32_000_000:
        from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            DownloadColumn(),
            TimeRemainingColumn(),
            transient=True,
        ) as bar:
            task = bar.add_task("archiving transcripts", total=total)
            stats = ingest_paths(
                args.paths or None,
                auto_backup=backup,
                semantic=semantic_setting(args),
                progress=lambda done, tot: bar.update(task, completed=done, total=tot),
            )
    else:
        stats = ingest_paths(args.paths or None, auto_backup=backup, semantic=semantic_setting(args))
    if args.json:
        print_json(
            {
                "files": stats.files,
                "files_read": stats.files_read,
                "bytes": stats.bytes,
                "turns": stats.turns,
                "sessions": len(stats.sessions),
                "reread": stats.reread,
                "bad_lines": stats.bad_lines,
                "vectors": stats.vectors,
                "errors": stats.errors,
            }
        )
    elif stats.files == 0:
        where = (
            " ".join(args.paths)
            if args.paths
            else "~/.claude/projects (or $CLAUDE_CONFIG_DIR), ~/.codex/sessions (or $CODEX_HOME), ~/.gemini/tmp"
        )
        print(f"no transcripts (*.jsonl) found in {where}")
    else:
        print(f"archived: {stats.summary()}")
        if stats.errors:
            print(f"cairn: {_log_unreadable(stats.errors)}", file=sys.stderr)
    return 0


def _log_unreadable(errors: list[str]) -> str:
    """Each transcript that could not be read, into logs/ingest.log; the one line saying so (a list
    of paths and reasons in the middle of the command's output was read as part of it)."""
    import time

    from cairn.logs import append

    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    where = append("ingest.log", "".join(f"--- {stamp} unreadable: {e}\n" for e in errors))
    n = len(errors)
    return f"{n} transcript{'s' if n != 1 else ''} could not be read" + (
        f": the reasons are in {where}" if where else f" (first: {errors[0]})"
    )


def cmd_search(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError
    from cairn.sessions.archive_search import search

    if args.limit < 1:
        raise CairnError("--limit must be 1 or more")
    from cairn.sessions.archive_schema import archive_path

    hits = []
    if archive_path().exists() or not args.team:
        con = open_existing()
        try:
            after, before = date_range(args)
            hits = search(
                con,
                " ".join(args.query),
                project_ids=scope_project_ids(args, con),
                after=after,
                before=before,
                tag=args.tag,
                limit=args.limit,
                semantic=semantic_setting(args),
            )
        finally:
            con.close()
    team_hits = _team_hits(args) if args.team else []
    if args.json:
        print_json({"results": [h.as_dict() for h in hits] + [h.as_dict() for h in team_hits]})
        return 0
    if not hits and not team_hits:
        print("no matches" + ("" if args.all_projects else " in this project (try --all-projects)"))
        return 0
    if team_hits:
        from cairn.cli.team_cmd import print_hits

        print_hits(team_hits)
    for h in hits:
        when = (h.time or "")[:16].replace("T", " ")
        role = f"{h.role}:{h.tool}" if h.tool else h.role
        print(f"{h.session_id[:8]}  {when}  {h.project}  [{role}]  score {h.score:.2f}")
        print(f"    {h.snippet}")
    return 0


def _team_hits(args: argparse.Namespace) -> list:
    """The team archive's hits for `sessions search --team` (same query, dates; project by git remote)."""
    from cairn.cli.team_cmd import team_db
    from cairn.team.search import search as team_search

    project = None
    if not args.all_projects:
        from cairn.cli.common import resolve
        from cairn.team.identity import identity

        project = identity(resolve(args, need_root=False)).project
    after, before = date_range(args)
    with team_db(args) as pg:
        return team_search(pg, " ".join(args.query), project=project, after=after, before=before, limit=args.limit)


def cmd_list(args: argparse.Namespace) -> int:
    from cairn.sessions.archive_browse import list_sessions

    con = open_existing()
    try:
        after, before = date_range(args)
        rows = list_sessions(
            con, project_ids=scope_project_ids(args, con), after=after, before=before, tag=args.tag, limit=args.limit
        )
    finally:
        con.close()
    if args.json:
        print_json({"sessions": rows})
        return 0
    if not rows:
        print("no archived sessions" + ("" if args.all_projects else " for this project (try --all-projects)"))
        return 0
    for r in rows:
        span = f"{(r['start'] or '')[:16].replace('T', ' ')} -> {(r['end'] or '')[11:16]}"
        who = "" if r["agent"] == "claude-code" else f"  [{r['agent']}]"
        print(f"{r['session_id'][:8]}  {span}  {r['project']}{who}  {r['turns']} turns  {r['title'] or ''}"[:160])
        if r["tags"]:
            print(f"          {' '.join(r['tags'])}"[:200])
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    """The request log and co-access of the current project (or --project P, --all-projects), built
    as sessions are archived; `--rebuild` builds them again from the archive (sessions/history_store.py)."""
    from cairn.sessions.history_store import rebuild, stats

    con = open_existing()
    try:
        pids = scope_project_ids(args, con)
        if pids is None:
            pids = [
                r[0]
                for r in con.execute(
                    "SELECT DISTINCT project_id FROM sessions WHERE project_id IS NOT NULL "
                    "AND project_id != '_global' ORDER BY project_id"
                )
            ]
        if args.rebuild:
            for pid in pids:
                rebuild(con, pid)
    finally:
        con.close()
    rows = [stats(pid) for pid in pids]
    if args.json:
        print_json({"projects": rows})
        return 0
    for r in rows:
        print(
            f"{r['project_id']}: {r['sessions']} sessions, {r['requests']} requests ({r['leading']} led to files), "
            f"{r['links']} request-file links, {r['files']} files, {r['bytes'] / 1e6:.1f} MB"
        )
    if not rows:
        print("no project history yet: sessions are learned from as they are archived (`cairn sessions ingest`)")
    return 0


def _fold(text: str, width: int = 110) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def cmd_show(args: argparse.Namespace) -> int:
    from cairn.sessions.archive_browse import resolve_session, session_detail

    con = open_existing()
    try:
        info, turns = session_detail(con, resolve_session(con, args.session))
    finally:
        con.close()
    if args.json:
        print_json({"session": info, "turns": [dict(t) for t in turns]})
        return 0
    print(
        f"session {info['session_id']}  agent {info['agent']}  project {info['project_name']}"
        f"  branch {info['git_branch'] or '-'}"
    )
    print(f"{info['start']} -> {info['end']}  {info['turns']} turns  cwd {info['cwd']}")
    if info["tags"]:
        print("tags: " + " ".join(info["tags"]))
    for t in turns:
        pad = "    " if t["agent"] else ""
        who = f"{pad}[agent {t['agent']}] " if t["agent"] else ""
        when = (t["ts"] or "")[11:19]
        role = t["role"]
        if role in ("user", "assistant", "summary"):
            print(f"\n{who}{role} {when}".rstrip())
            body = t["text"] if args.full or role != "summary" else _fold(t["text"], 300)
            for line in body.splitlines():
                print(f"{pad}  {line}")
        elif role == "tool":
            print(f"{pad}  > {t['tool']}: {t['text'] if args.full else _fold(t['arg'] or '')}")
        elif role == "error":
            print(f"{pad}  ! {t['tool'] or 'error'}: {_fold(t['text'])}")
        elif args.full:
            print(f"{pad}    = {t['text']}")
    return 0


def cmd_related(args: argparse.Namespace) -> int:
    from cairn.sessions.archive_browse import related

    con = open_existing()
    try:
        out = related(con, " ".join(args.term), project_ids=scope_project_ids(args, con), limit=args.limit)
    finally:
        con.close()
    if args.json:
        print_json(out)
        return 0
    if not out["sessions"]:
        print(f"nothing mentions {out['term']!r}" + ("" if args.all_projects else " in this project"))
        return 0
    print("terms: " + ", ".join(f"{t['term']} ({t['turns']})" for t in out["terms"]))
    print("sessions:")
    for s in out["sessions"]:
        print(f"  {s['session_id'][:8]}  {s['project']}  {s['turns']} turns mention it  {s['title'] or ''}"[:160])
    return 0
