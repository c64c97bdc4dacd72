"""`cairn install claude`: wire cairn's hooks and MCP server into Claude Code (see agents/install.py)."""

from __future__ import annotations

import argparse

from cairn.cli.common import add_json, add_root, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "install",
        help="register cairn's hooks and MCP server with Claude Code",
        description="Register the hooks (SessionStart map, prompt recall, context meter, read guard, "
        "handoffs around compaction, journal) and the MCP server. Backs files up first, "
        "replaces only cairn's own entries when run again, and --undo restores them.",
    )
    p.add_argument("agent", choices=["claude"], help="the agent to install into (claude)")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument(
        "--user",
        dest="scope",
        action="store_const",
        const="user",
        help="~/.claude/settings.json and ~/.claude.json (default)",
    )
    scope.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help="<project>/.claude/settings.json and <project>/.mcp.json",
    )
    p.add_argument(
        "--compact-window",
        metavar="N|best",
        help="also set CLAUDE_CODE_AUTO_COMPACT_WINDOW (tokens, e.g. 150k; `best` replays your sessions)",
    )
    p.add_argument(
        "--otel",
        action="store_true",
        help="also make Claude Code export OpenTelemetry usage to `cairn otel serve` (127.0.0.1:4318)",
    )
    p.add_argument("--dry-run", action="store_true", help="print what would change, write nothing")
    p.add_argument("--undo", action="store_true", help="remove cairn's entries (byte-for-byte restore when unchanged)")
    add_root(p)
    add_json(p)
    p.set_defaults(func=cmd_install, scope="user")


def cmd_install(args: argparse.Namespace) -> int:
    from cairn.agents import install
    from cairn.errors import CairnError

    root = None
    if args.scope == "project":
        from cairn.cli.common import resolve

        root = resolve(args).root
    if args.undo:
        if args.compact_window or args.otel:
            raise CairnError("--undo takes no --compact-window or --otel (it removes what cairn set)")
        plan = install.plan_undo(args.scope, root)
    else:
        plan = install.plan_install(
            args.scope, root, window=install.compact_window(args.compact_window), otel=args.otel, dry_run=args.dry_run
        )
    written = [] if args.dry_run else install.apply(plan, undo=args.undo)
    if args.json:
        print_json({**plan.as_json(), "dry_run": args.dry_run, "undo": args.undo, "written": [str(p) for p in written]})
        return 0
    verb = "would change" if args.dry_run else ("restored" if args.undo else "updated")
    for ch in plan.changes:
        if not ch.changed:
            print(f"unchanged: {ch.path}")
            continue
        print(f"{verb}: {ch.path}" + (" (removed)" if ch.after is None else ""))
        if args.dry_run:
            print(ch.diff())
    for note in plan.notes:
        print(note)
    if not args.undo and not args.dry_run:
        print("Restart Claude Code (or run /hooks) to load the hooks; `cairn doctor` checks the wiring.")
    return 0
