"""`cairn doctor`: is cairn wired into Claude Code and alive? (see agents/doctor.py)"""

from __future__ import annotations

import argparse

from cairn.cli.common import add_json, add_root, print_json

MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="check hooks, MCP registration, index freshness, hook errors and timings",
        description="Hooks registered and pointing to a working interpreter, MCP server registered, "
        "index fresh, recent hook errors, how long each hook took recently, and the "
        "knowledge graph's own checks. Exit 1 when a check fails.",
    )
    add_root(p)
    add_json(p)
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    from cairn.agents.doctor import run_doctor
    from cairn.errors import CairnError
    from cairn.project import resolve_project

    try:
        project = resolve_project(root=args.root)
    except CairnError:
        if args.root:
            raise
        project = None
    checks = run_doctor(project)
    failed = any(c.status == "fail" for c in checks)
    if args.json:
        print_json({"ok": not failed, "project": getattr(project, "id", None), "checks": [c.as_json() for c in checks]})
    else:
        for c in checks:
            print(f"[{MARK[c.status]}] {c.name}: {c.detail}")
    return 1 if failed else 0
