"""`cairn map [MODULE]`: print the level-0 overview or one module's page."""

from __future__ import annotations

import argparse

from cairn.cli.common import add_json, add_root, add_workspace, print_json, resolve, workspace_for


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
    add_workspace(p)
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
    ws = None if args.module else workspace_for(args, project)
    extra = None
    if ws is not None:  # in the user's workspace: its members and the imports between them, under the map
        from cairn.workspace.overview import overview
        from cairn.workspace.overview import render as render_ws

        extra = overview(ws)
        text += render_ws(extra, max(60, args.budget // 3))
    if args.json:
        print_json(
            {"project": project.id, "module": module, "markdown": text, **({"workspace": extra} if extra else {})}
        )
    else:
        print(text, end="")
    return 0
