"""`cairn hook EVENT`: run one Claude Code hook (JSON on stdin, answer on stdout).

`cairn.cli.main` dispatches `cairn hook ...` before building this parser (the fast path: the
hook runs on every prompt and tool call); this module exists so the command is listed in
`cairn --help` and `cairn hook --help` explains itself.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hook",
        help="run a Claude Code hook (reads the hook JSON on stdin)",
        description="Run the handler of one Claude Code hook event. The event comes from EVENT or from "
        "`hook_event_name` on stdin. Always exits 0 (a read-guard deny exits 2 by design); "
        "errors go to CAIRN_HOME/logs/hooks.log. Registered by `cairn install claude` or the plugin.",
    )
    p.add_argument(
        "event",
        nargs="?",
        metavar="EVENT",
        help="SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, PreCompact, SessionEnd",
    )
    p.add_argument("--inline", action="store_true", help="do deferred work now instead of in the background")
    p.set_defaults(func=cmd_hook)


def cmd_hook(args: argparse.Namespace) -> int:
    from cairn.agents.hooks.runner import main

    return main([a for a in (args.event, "--inline" if args.inline else None) if a])
