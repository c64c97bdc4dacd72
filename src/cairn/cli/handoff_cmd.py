"""`cairn handoff save|last`: leave (or read) the note the next session starts from."""

from __future__ import annotations

import argparse
import sys

from cairn.cli.common import add_json, add_root, print_json, resolve, resolve_root


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "handoff",
        help="save or show the handoff the next session starts from",
        description="A handoff says where the work stands so the next session (or this one "
        "after compaction) can continue: it is restored automatically by the "
        "SessionStart hook after `compact` or `clear`.",
    )
    hsub = p.add_subparsers(dest="action", metavar="ACTION")
    s = hsub.add_parser(
        "save",
        help="save a handoff from options, or markdown on stdin",
        description="Give the parts as options (repeat list options), or pipe a markdown "
        "body on stdin (used as is). Stored in .cairn/handoffs/ (or under "
        "CAIRN_HOME without .cairn/), secrets redacted.",
    )
    s.add_argument("--goal", help="what the work is for")
    s.add_argument("--where", help="where we are now")
    s.add_argument("--file", dest="files", action="append", default=[], metavar="PATH", help="a file in play")
    s.add_argument("--decision", dest="decisions", action="append", default=[], metavar="TEXT", help="a decision made")
    s.add_argument("--next", dest="next", action="append", default=[], metavar="TEXT", help="a next step")
    s.add_argument("--blocker", dest="blockers", action="append", default=[], metavar="TEXT", help="a blocker")
    s.add_argument("--session", help="the agent session id this handoff belongs to")
    add_root(s)
    add_json(s)
    s.set_defaults(func=cmd_save)
    last = hsub.add_parser("last", help="print the newest handoff")
    add_root(last)
    add_json(last)
    last.set_defaults(func=cmd_last)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def cmd_save(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cairn.agents.handoff import save_handoff
    from cairn.errors import CairnError
    from cairn.safepath import confine

    project, root = resolve_root(args)
    root = root.resolve()
    files = [
        confine(f, [root], relative_to=Path.cwd(), what="a file in play").relative_to(root).as_posix()
        for f in args.files
    ]
    fields = {
        "goal": args.goal,
        "where": args.where,
        "decisions": args.decisions,
        "next": args.next,
        "blockers": args.blockers,
        "files": files,
    }
    body = None
    if not any(v for v in fields.values()):
        if sys.stdin is None or sys.stdin.isatty():
            raise CairnError("nothing to save: give --goal/--where/--next/... or pipe markdown on stdin")
        body = sys.stdin.read()
    handoff = save_handoff(project, fields=fields, body=body, session=args.session)
    if args.json:
        print_json(handoff.as_json())
    else:
        print(f"handoff saved: {handoff.path}")
    return 0


def cmd_last(args: argparse.Namespace) -> int:
    from cairn.agents.handoff import latest_handoff

    handoff = latest_handoff(resolve(args))
    if args.json:
        print_json(handoff.as_json() if handoff else None)
        return 0
    if handoff is None:
        print("no handoff yet: `cairn handoff save --goal ... --where ... --next ...`")
        return 0
    print(f"{handoff.path} ({handoff.created})\n")
    sys.stdout.write(handoff.body)
    return 0
