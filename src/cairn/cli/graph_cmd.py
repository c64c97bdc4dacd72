"""`cairn graph --html FILE`: the project's graph as one interactive page that opens offline."""

from __future__ import annotations

import argparse

from cairn.cli.common import add_json, add_root, print_json, resolve


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "graph",
        help="write the project's graph as one self-contained interactive HTML page",
        description="Files grouped by module and sized by PageRank; import, reference, cites, link and "
        "changes-with edges; knowledge notes coloured by status (live, stale, superseded, done). Search box, "
        "filters by kind and module, focus on one file's neighbourhood; clicking a node shows what "
        "`cairn explain` says about it. Big repositories open at module level. Nothing is loaded from the network.",
        epilog="example:\n  cairn graph --html graph.html && xdg-open graph.html",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--html", metavar="FILE", required=True, help="where to write the page")
    p.add_argument("--no-refresh", action="store_true", help="draw the index as it is (skip the refresh)")
    add_root(p)
    add_json(p)
    p.set_defaults(func=cmd_graph)


def cmd_graph(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cairn.codemap.index_db import repairing
    from cairn.search.graph_page import write_page

    project = resolve(args)
    out = Path(args.html).expanduser()
    info = repairing(project, lambda again: write_page(project, out, refresh=again or not args.no_refresh))
    if args.json:
        print_json(info)
    else:
        edges = ", ".join(f"{n} {k}" for k, n in info["edges"].items() if n)
        print(
            f"wrote {info['html']}: {info['files']} files in {info['modules']} modules, {info['notes']} notes, "
            f"edges: {edges or 'none'}; opens at {'module' if info['starts_at'] == 'modules' else 'file'} level"
        )
    return 0
