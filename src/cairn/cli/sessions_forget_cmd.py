"""`cairn sessions forget`: delete sessions from the archive for real, and from the backups if asked."""

from __future__ import annotations

import argparse
import sys

from cairn.cli.common import print_json
from cairn.cli.sessions_args import open_existing


def cmd_forget(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError
    from cairn.sessions.archive import forget
    from cairn.sessions.archive_browse import resolve_session, sessions_before
    from cairn.sessions.archive_search import parse_when, project_ids

    if bool(args.session) == bool(args.before):
        raise CairnError("give a session ID or --before DATE (not both)")
    con = open_existing()
    in_archive = True
    try:
        if args.session:
            try:
                ids = [resolve_session(con, args.session)]
            except CairnError:
                if not args.purge_backups:
                    raise
                from cairn.sessions.backup import ids_in_backups

                ids, in_archive = ids_in_backups(args.session), False  # forgotten before: backups only
        else:
            # --before is about age: every project unless --project narrows it
            try:
                scope = project_ids(con, args.project) if args.project else None
                ids = sessions_before(con, parse_when(args.before), scope)
            except CairnError:
                if not args.purge_backups:
                    raise
                ids = []
            if not ids and args.purge_backups:  # forgotten before: what the backups still hold
                from cairn.sessions.backup import ids_before_in_backups

                ids, in_archive = ids_before_in_backups(parse_when(args.before), args.project), False
        if not ids:
            print("nothing to forget")
            return 0
        if not args.yes:
            if not sys.stdin.isatty():
                raise CairnError(f"would delete {len(ids)} session(s); pass --yes to confirm")
            answer = input(f"delete {len(ids)} session(s) from the archive for good? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("kept")
                return 1
        n = forget(con, ids) if in_archive else 0
    finally:
        con.close()
    from cairn.sessions.backup import backups_holding, purge_backups, unreadable_copies

    purged = purge_backups(ids) if args.purge_backups else 0
    left = backups_holding(ids)
    unreadable = unreadable_copies() if args.purge_backups else []
    if args.json:
        print_json(
            {
                "forgotten": ids,
                "backups_purged": purged,
                "backups_still_holding": [str(p) for p in left],
                "backups_unreadable": [str(p) for p in unreadable],
            }
        )
        return 0
    if in_archive:
        print(f"forgot {n} session(s); their text is purged from the archive file")
    else:
        print(f"{len(ids)} session(s) were already forgotten in the archive")
    if purged:
        print(f"also purged from {purged} snapshot(s) in the backups folder")
    if left:
        again = (
            f"cairn sessions forget {ids[0]}"
            if args.session
            else f"cairn sessions forget --before {args.before}"
            + (f" --project {args.project}" if args.project else "")
        )
        print(
            f"{len(left)} snapshot(s) in {left[0].parent} still hold them: run `{again} --purge-backups --yes`, "
            "or delete those files"
        )
    for path in unreadable:
        print(f"cannot open {path} to purge it (damaged): delete it if it may hold them")
    if purged or left:
        print("mirror copies written with `cairn backup --mirror` elsewhere are not touched: delete them there")
    return 0
