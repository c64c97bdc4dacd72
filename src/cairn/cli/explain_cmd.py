"""`cairn explain TARGET` and `cairn path A B`: one file, symbol or note explained; how two depend."""

from __future__ import annotations

import argparse

from cairn.cli.common import add_json, add_root, add_workspace, print_json, resolve, workspace_for

TARGET_HELP = "a file path (or a unique file name), a symbol name (or FILE:SYMBOL), or a knowledge node id"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explain",
        help="what a file, symbol or knowledge node is, who uses it, what it uses, its history",
        description="Everything the index knows about one target: its description and definitions, who uses it "
        "and what it uses (imports, references by name and document links apart, most uses first), the "
        "knowledge citing it (stale or not), its PageRank position, and from git its recent commits and the "
        "files that change with it. Packed to a token budget like search.",
        epilog="examples:\n  cairn explain src/app/billing.py\n  cairn explain charge_card --budget 400\n"
        "  cairn explain app/billing.py:Invoice --json\n  cairn explain cards-are-charged-at-checkout-1a2b3c",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("target", help=TARGET_HELP)
    p.add_argument(
        "--budget",
        "-b",
        type=int,
        default=None,
        help="token budget of the answer (default 1200): long lists lose their tail first",
    )
    p.add_argument("--no-refresh", action="store_true", help="read the index as it is (skip the refresh)")
    add_root(p)
    add_workspace(p)
    add_json(p)
    p.set_defaults(func=cmd_explain)

    q = sub.add_parser(
        "path",
        help="the shortest dependency paths from A to B (imports and references), or why there is none",
        description="Shortest chains of imports and references from A to B, each hop with its direction and the "
        "names it goes through; when there is none, the reason: B depends on A instead, they only meet through "
        "shared neighbours, or they lie in different components.",
        epilog="examples:\n  cairn path src/app/api.py src/app/db.py\n  cairn path checkout charge_card --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    q.add_argument("a", help="where the path starts: " + TARGET_HELP)
    q.add_argument("b", help="where it ends (same forms)")
    q.add_argument("--no-refresh", action="store_true", help="read the index as it is (skip the refresh)")
    add_root(q)
    add_workspace(q)
    add_json(q)
    q.set_defaults(func=cmd_path)


def cmd_explain(args: argparse.Namespace) -> int:
    from cairn.codemap.index_db import repairing
    from cairn.search.explain import DEFAULT_BUDGET
    from cairn.search.service import explain

    project = resolve(args)
    budget = DEFAULT_BUDGET if args.budget is None else args.budget
    ws = workspace_for(args, project)
    if ws is not None:  # in the user's workspace: the target in any member, and the imports between them
        from cairn.workspace.explain import explain as across

        data, text, tokens = repairing(
            project, lambda again: across(ws, args.target, budget=budget, refresh=again or not args.no_refresh)
        )
    else:
        data, text, tokens = repairing(
            project, lambda again: explain(project, args.target, budget=budget, refresh=again or not args.no_refresh)
        )
    if args.json:
        print_json({**data, "tokens": tokens})
    else:
        print(text, end="")
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from cairn.codemap.index_db import repairing
    from cairn.search.service import dependency_path

    project = resolve(args)
    ws = workspace_for(args, project)
    if ws is not None:  # A and B in any members; across two by the imports between them
        from cairn.workspace.explain import path as across

        res, text = repairing(project, lambda _again: across(ws, args.a, args.b))
    else:
        res, text = repairing(
            project, lambda again: dependency_path(project, args.a, args.b, refresh=again or not args.no_refresh)
        )
    if args.json:
        print_json(res)
    else:
        print(text, end="")
    return 0
