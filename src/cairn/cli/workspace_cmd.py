"""`cairn workspace add/remove/list/index`: the repositories search, explain, path and the map answer across."""

from __future__ import annotations

import argparse

from cairn.cli.common import add_json, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "workspace",
        help="a workspace of repositories: search, explain, path and the map answer across them",
        description="The workspace is yours alone: kept in CAIRN_HOME/workspace.toml, never read from a "
        "repository. Run in one of its folders, `cairn search`, `explain`, `path`, `map` and the MCP search "
        "tools answer across all of them, each result labelled by its project (`--no-workspace`: this "
        "project only). Each folder keeps its own index.",
        epilog="examples:\n  cairn workspace add ~/src/api ~/src/billing ~/src/infra\n  cairn workspace list --json\n"
        "  cairn workspace remove ~/src/infra",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    wsub = p.add_subparsers(dest="workspace_command", metavar="ACTION", required=True)
    a = wsub.add_parser("add", help="add folders (each a project: a repository or a folder) and index them")
    a.add_argument("paths", nargs="+", metavar="PATH")
    a.add_argument(
        "--no-index", action="store_true", help="add without indexing (index later: `cairn workspace index`)"
    )
    add_json(a)
    a.set_defaults(func=cmd_add)
    r = wsub.add_parser("remove", help="remove folders (by path or by name) from the workspace; their indexes stay")
    r.add_argument("paths", nargs="+", metavar="PATH")
    add_json(r)
    r.set_defaults(func=cmd_remove)
    s = wsub.add_parser("list", help="the members, their state (ok, missing, unindexed) and the imports between them")
    add_json(s)
    s.set_defaults(func=cmd_list)
    i = wsub.add_parser("index", help="bring every member's index up to date (a sibling is searched as last indexed)")
    add_json(i)
    i.set_defaults(func=cmd_index)


def _index(roots: list, quiet: bool) -> list[str]:
    """Index each folder (incremental); the lines saying what happened."""
    import sys

    from cairn.codemap.indexer import index_project
    from cairn.errors import CairnError
    from cairn.project import project_for_root

    lines = []
    for root in roots:
        try:
            project = project_for_root(root)
            if not quiet:
                print(f"indexing {root} ...", file=sys.stderr, flush=True)
            index_project(project, totals=False)
            lines.append(f"indexed {root}")
        except CairnError as exc:
            lines.append(f"{root}: not indexed: {exc}")
    return lines


def cmd_add(args: argparse.Namespace) -> int:
    from cairn.workspace.registry import add

    added, notes = add(args.paths)
    if not args.no_index:
        notes += _index(added, args.json)
    if args.json:
        print_json({"added": [str(p) for p in added], "notes": notes})
    else:
        for p in added:
            print(f"added {p}")
        for line in notes:
            print(line)
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from cairn.workspace.registry import remove

    gone = remove(args.paths)
    if args.json:
        print_json({"removed": [str(p) for p in gone]})
    else:
        for p in gone:
            print(f"removed {p}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from cairn.project import resolve_project
    from cairn.workspace.members import load
    from cairn.workspace.overview import overview, render
    from cairn.workspace.registry import workspace_file

    try:
        here = resolve_project()
    except Exception:  # noqa: BLE001 (a cwd that is gone: the list needs none)
        here = None
    data = overview(load(here))
    if args.json:
        print_json({"file": str(workspace_file()), **data})
        return 0
    if not data["members"]:
        print("the workspace is empty: `cairn workspace add PATH...`")
        return 0
    print(f"{workspace_file()}:", end="")
    print(render(data, 10_000), end="")
    for line in data["notes"]:
        print(line)
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    from cairn.workspace.registry import read_entries

    entries = read_entries()
    lines = entries.problems + _index([r for r in entries.roots if r.is_dir()], args.json)
    lines += [f"{r}: gone: not indexed (`cairn workspace remove {r}`)" for r in entries.roots if not r.is_dir()]
    if args.json:
        print_json({"lines": lines})
    else:
        print("\n".join(lines))
    return 0
