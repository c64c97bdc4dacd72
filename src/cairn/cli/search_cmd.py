"""`cairn search "QUERY"`: the few places that matter for a request, each with its reasons."""

from __future__ import annotations

import argparse

from cairn.cli.common import add_json, add_root, add_workspace, print_json, resolve, workspace_for

TYPE_CHECKING = False  # not typing's: importing typing costs every search ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from cairn.project import Project
    from cairn.search.service import Answer

    T = TypeVar("T")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "search",
        help="find the files and definitions a request is about, within a token budget",
        description="Hybrid search: BM25 over code and docs (code-aware tokens), exact symbol and file "
        "names, and a Personalized PageRank walk over the import graph, fused by Reciprocal Rank Fusion. "
        "The index is refreshed incrementally first.",
        epilog='examples:\n  cairn search "why is the coupon applied twice in checkout"\n'
        '  cairn search "retry failed webhooks" --terms backoff,retry_policy --budget 800\n'
        '  cairn search "applyCoupon" --json --limit 5\n'
        '  cairn search "why did we pick Postgres over Mongo?"',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("query", help="the request in plain words (names of files or symbols help)")
    p.add_argument("--limit", "-k", type=int, default=10, help="most results to return (default 10)")
    p.add_argument(
        "--budget",
        "-b",
        type=int,
        default=None,
        help="token budget of the answer: results are packed until it is spent",
    )
    p.add_argument(
        "--terms",
        default="",
        help="comma-separated related words you expect in the code (they count, but less than the request's own words)",
    )
    p.add_argument(
        "--kind",
        choices=("auto", "code", "knowledge", "all"),
        default="auto",
        help="auto (default: decision records first for why-questions, code first otherwise), code, "
        "knowledge (decisions, bugs, gotchas, concepts, personal notes) or all (interleaved)",
    )
    p.add_argument("--no-refresh", action="store_true", help="search the index as it is (skip the refresh)")
    p.add_argument(
        "--transcript",
        metavar="FILE",
        help="the session so far (a Claude Code transcript, a Codex CLI rollout or a Gemini CLI chat, "
        "JSONL): files it read or edited, earlier prompts and their git co-change steer the ranking; "
        "results it already read are marked seen",
    )
    add_root(p)
    add_workspace(p)
    add_json(p)
    p.set_defaults(func=cmd_search)


def cmd_search(args: argparse.Namespace) -> int:
    import sys

    from cairn.errors import CairnError
    from cairn.search.service import search, session_context

    terms = [t.strip() for t in args.terms.split(",") if t.strip()]
    if not args.query.strip() and not terms:
        raise CairnError('empty query: say what to look for, e.g. cairn search "where are coupons applied"')
    project = resolve(args, need_root=args.kind != "knowledge")  # the personal vault needs no project
    session = None
    if args.transcript:
        session = session_context(project, _readable(args.transcript))
    from cairn.agents.tracker import with_tracker_items

    query, item_terms = with_tracker_items(project, args.query)
    terms += item_terms
    ws = workspace_for(args, project) if project.root is not None else None
    asked = {"terms": terms, "limit": args.limit, "budget": args.budget, "kind": args.kind, "session": session}

    def run(again: bool) -> Answer:
        refresh = again or not args.no_refresh
        if ws is None:
            return search(project, query, refresh=refresh, **asked)
        from cairn.workspace.fanout import search as across  # the project is in the user's workspace

        answer, notes = across(ws, query, refresh=refresh, **asked)
        for line in notes:
            print(f"cairn: {line}", file=sys.stderr)
        return answer

    answer = repairing_search(project, run)
    if args.json:
        print_json(answer.as_json())
    elif not answer.results:
        print("no match: try other words, a file or symbol name, or --terms with related words")
    else:
        print(answer.text)
    return 0


def repairing_search(project: Project, fn: Callable[[bool], T]) -> T:
    """`fn(again)` through index_db.repairing when there is a code index to repair."""
    if project.root is None:
        return fn(False)
    from cairn.codemap.index_db import repairing

    return repairing(project, fn)


def _readable(path: str) -> str:
    """The transcript path, or one clear error when it cannot be read."""
    import os

    from cairn.errors import CairnError

    p = os.path.expanduser(path)
    if not os.path.isfile(p):
        raise CairnError(f"{path}: no such transcript file (--transcript wants a session's .jsonl)")
    if not os.access(p, os.R_OK):
        raise CairnError(f"{path}: transcript not readable")
    return p
