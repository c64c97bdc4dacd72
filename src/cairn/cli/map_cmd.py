"""`cairn map [MODULE]`: print the level-0 overview or one module's page."""

from __future__ import annotations

import argparse

from cairn.cli.common import add_json, add_root, print_json, resolve


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "map",
        help="print the project map (level 0) or one module's page (level 1)",
        description="Level 0: a ~500-token overview (modules, central files, entry points). "
        "With MODULE: that module's files, key symbols and links. Refreshes a stale index first; "
        "in a project with .cairn/ the maps are also written there.",
    )
    p.add_argument("module", nargs="?", help="a module name, e.g. src/cairn/codemap (or a unique suffix)")
    p.add_argument("--budget", type=int, default=500, help="token budget of the level-0 map (default 500)")
    add_root(p)
    add_json(p)
    p.set_defaults(func=cmd_map)


def cmd_map(args: argparse.Namespace) -> int:
    from cairn.codemap.index_db import repairing
    from cairn.codemap.indexer import index_project, open_index
    from cairn.codemap.maps import find_module, render_level0, render_level1

    project = resolve(args)

    def render(_again: bool) -> tuple[str | None, str]:
        index_project(project)  # refreshes the index and, in an opted-in project, the maps in .cairn/
        con = open_index(project)
        try:
            if args.module:
                module = find_module(con, args.module)
                return module, render_level1(con, project, module)
            return None, render_level0(con, project, budget=max(100, args.budget))
        finally:
            con.close()

    module, text = repairing(project, render)
    if args.json:
        print_json({"project": project.id, "module": module, "markdown": text})
    else:
        print(text, end="")
    return 0
