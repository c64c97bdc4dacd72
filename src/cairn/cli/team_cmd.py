"""`cairn team push|search|pull|forget|status`: the team's session archive on PostgreSQL (opt-in)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from cairn.cli.common import add_json, add_root, print_json
from cairn.cli.sessions_args import date_range

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import psycopg

    from cairn.team.identity import Identity

DESCRIPTION = """\
The team archive: everyone's redacted sessions of a project in one PostgreSQL database.
Opt-in: [team] database = "postgresql://..." in ~/.cairn/config.toml, or CAIRN_TEAM_DATABASE.

  cairn team push                 send your new archived sessions of this project (idempotent, resumable)
  cairn team search QUERY         ranked full-text search of the team's sessions of this project
  cairn team pull [ID]            the team's sessions, newest first; with ID, one conversation
  cairn team forget ID | --before D   delete your own sessions from the team database
  cairn team status               the server, the schema, what is there (the admin's first run creates the schema)

The project is named by its git remote, so every clone of one repository is one project. Rows
belong to the database role that pushed them: a member changes and forgets only their own.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "team",
        help="the team's session archive on PostgreSQL: push, search, pull, forget",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=lambda args: p.print_help() or 0)
    ts = p.add_subparsers(dest="team_command", metavar="SUBCOMMAND")

    q = ts.add_parser("push", help="send your new archived sessions of this project")
    q.add_argument("--full", action="store_true", help="offer every turn again (only missing ones are inserted)")
    q.add_argument("--ingest", action="store_true", help="archive new transcript lines first (`cairn sessions ingest`)")
    add_root(q)
    add_json(q)
    q.set_defaults(func=cmd_push)

    q = ts.add_parser("search", help="search the team's sessions")
    q.add_argument("query", nargs="+", metavar="QUERY")
    _filters(q)
    q.add_argument("--limit", type=int, default=10, metavar="N", help="at most N hits (default 10)")
    add_root(q)
    add_json(q)
    q.set_defaults(func=cmd_search)

    q = ts.add_parser("pull", help="the team's sessions of this project, or one conversation")
    q.add_argument("session", nargs="?", metavar="ID", help="a session id or unique prefix: show it")
    _filters(q)
    q.add_argument("--limit", type=int, default=20, metavar="N")
    add_root(q)
    add_json(q)
    q.set_defaults(func=cmd_pull)

    q = ts.add_parser("forget", help="delete your own sessions from the team database")
    q.add_argument("session", nargs="*", metavar="ID", help="full session ids")
    q.add_argument("--before", metavar="DATE", help="every session of yours that ended before DATE")
    add_root(q)
    add_json(q)
    q.set_defaults(func=cmd_forget)

    q = ts.add_parser("status", help="the server, the schema version and what is stored")
    add_root(q)
    add_json(q)
    q.set_defaults(func=cmd_status)


def _filters(q: argparse.ArgumentParser) -> None:
    q.add_argument("--all-projects", action="store_true", help="every project in the team database")
    q.add_argument("--user", metavar="U", help="only sessions pushed by U")
    q.add_argument("--after", metavar="DATE", help="only at or after DATE")
    q.add_argument("--before", metavar="DATE", help="only before DATE")


def _identity(args: argparse.Namespace) -> Identity:
    from cairn.cli.common import resolve
    from cairn.team.identity import identity

    return identity(resolve(args, need_root=False))


@contextmanager
def team_db(args: argparse.Namespace) -> Iterator[psycopg.Connection]:
    """A connection for one command; any driver error on the way is one line (TeamUnavailable)."""
    from cairn.cli.common import resolve
    from cairn.team.connect import connect, database_url, unavailable

    url = database_url(resolve(args, need_root=False).root)
    con = connect(url)
    import psycopg

    try:
        yield con
    except psycopg.Error as exc:
        raise unavailable(url, exc, "interrupted") from None
    finally:
        try:
            con.close()
        except psycopg.Error:
            pass


def cmd_push(args: argparse.Namespace) -> int:
    from cairn.sessions.archive_schema import archive_path, open_archive
    from cairn.team.push import push

    ident = _identity(args)
    if args.ingest:
        from cairn.sessions.archive import ingest_paths

        ingest_paths(None)  # what the hooks have not archived yet
    if not archive_path().exists():
        from cairn.errors import CairnError

        raise CairnError("no session archive yet: run `cairn sessions ingest` first")
    local = open_archive()
    try:
        with team_db(args) as pg:
            stats = push(local, pg, ident, full=args.full)
    finally:
        local.close()
    if args.json:
        print_json(
            {
                "project": ident.project,
                "user": ident.user,
                "machine": ident.machine,
                "role": stats.role,
                "offered": stats.offered,
                "inserted": stats.inserted,
                "sessions": stats.sessions,
                "batches": stats.batches,
                "seconds": round(stats.seconds, 3),
            }
        )
    else:
        print(f"{ident.project} as {ident.user}@{ident.machine} (database role {stats.role}): {stats.summary()}")
    return 0


def _scope(args: argparse.Namespace) -> str | None:
    return None if args.all_projects else _identity(args).project


def cmd_search(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError
    from cairn.team.search import search

    if args.limit < 1:
        raise CairnError("--limit must be 1 or more")
    project = _scope(args)
    after, before = date_range(args)
    with team_db(args) as pg:
        hits = search(
            pg, " ".join(args.query), project=project, user=args.user, after=after, before=before, limit=args.limit
        )
    if args.json:
        print_json({"results": [h.as_dict() for h in hits]})
        return 0
    if not hits:
        print("no matches in the team archive" + ("" if args.all_projects else " for this project"))
    print_hits(hits)
    return 0


def print_hits(hits: list) -> None:
    """Team hits, each labelled with who pushed it (also used by `cairn sessions search --team`)."""
    for h in hits:
        when = (h.time or "")[:16].replace("T", " ")
        print(f"{h.session_id[:8]}  {when}  team:{h.user}  {h.project}  [{h.role}]  score {h.score:.2f}")
        print(f"    {h.snippet}")


def cmd_pull(args: argparse.Namespace) -> int:
    from cairn.team.search import list_sessions, session_turns

    project = _scope(args)
    after, before = date_range(args)
    with team_db(args) as pg:
        if args.session:
            info, turns = session_turns(pg, args.session, project, args.user)
        else:
            rows = list_sessions(pg, project=project, user=args.user, after=after, before=before, limit=args.limit)
    if args.session:
        if args.json:
            print_json({"session": info, "turns": turns})
            return 0
        print(
            f"session {info['session_id']}  {info['project']}  by {info['user']}@{info['machine']}  "
            f"{info['start']} -> {info['end']}  {info['turns']} turns"
        )
        for t in turns:
            label = f"{t['role']}:{t['tool']}" if t["tool"] else t["role"]
            print(f"\n{label} {(t['time'] or '')[11:19]}".rstrip())
            for line in (t["text"] or t["arg"] or "").splitlines()[:40]:
                print(f"  {line}")
        return 0
    if args.json:
        print_json({"sessions": rows})
        return 0
    if not rows:
        print("no team sessions" + ("" if args.all_projects else " for this project"))
    for r in rows:
        print(
            f"{r['session_id'][:8]}  {(r['start'] or '')[:16].replace('T', ' ')}  {r['user']}  "
            f"{r['turns']} turns  {r['title'] or ''}"[:160]
        )
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError
    from cairn.team.search import forget

    if not args.session and not args.before:
        raise CairnError("name session ids or --before DATE")
    ident = _identity(args)
    _, before = date_range(args)
    with team_db(args) as pg:
        n = forget(pg, ident.user, args.session or None, before, ident.project)
    if args.json:
        print_json({"forgotten": n, "user": ident.user})
    else:
        print(
            f"forgot {n} of your sessions ({ident.user}) in the team database; "
            "they are not pushed again unless `cairn team push --full`"
        )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from cairn.team.connect import database_url, where
    from cairn.team.schema import MIGRATIONS, grant_members

    with team_db(args) as pg:
        grant_members(pg)  # the admin's run: a member role made after the schema gets its rights too
        version = pg.info.server_version
        row = pg.execute(
            "SELECT (SELECT count(*) FROM cairn.sessions), (SELECT count(*) FROM cairn.turns),"
            " (SELECT count(DISTINCT user_name) FROM cairn.sessions),"
            " pg_total_relation_size('cairn.turns') + pg_total_relation_size('cairn.sessions')"
        ).fetchone()
        pg.commit()
    assert row is not None
    from cairn.cli.common import resolve

    out = {
        "server": where(database_url(resolve(args, need_root=False).root)),
        "postgresql": version,
        "schema_version": len(MIGRATIONS),
        "sessions": row[0],
        "turns": row[1],
        "users": row[2],
        "bytes": row[3],
    }
    if args.json:
        print_json(out)
    else:
        print(
            f"{out['server']}: PostgreSQL {version // 10000}.{version % 10000}, schema v{len(MIGRATIONS)}; "
            f"{row[0]} sessions, {row[1]} turns from {row[2]} users, {row[3] / 1e6:.1f} MB"
        )
    return 0
