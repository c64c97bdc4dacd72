"""`cairn connect AGENT`: wire cairn into Codex, Gemini CLI, Cursor, VS Code, Windsurf, Cline, ...

Edits only what is safe to edit (backup first, idempotent, `--undo`), prints the rest for the
user to paste; `--list` says which is which for every agent.
"""

from __future__ import annotations

import argparse

from cairn.cli.common import add_json, add_root, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "connect",
        help="register cairn's MCP server (and usage notes, hooks) with another coding agent",
        description="Register `cairn serve` in AGENT's MCP config, write cairn's usage block into the "
        "instruction file it reads (between <!-- cairn:agent:start/end --> markers), and enable hooks where "
        "the agent has them. Files are backed up under CAIRN_HOME/connect/ first; re-running changes nothing; "
        "--undo, run in the same project, restores them byte for byte. Formats that are risky to edit (YAML, "
        "JSON with comments, unverified layouts) are printed for you to paste.",
    )
    p.add_argument(
        "agent",
        nargs="?",
        help="codex, gemini, cursor, vscode, windsurf, cline, opencode, continue, goose, zed or claude-desktop",
    )
    p.add_argument("--list", action="store_true", help="show every agent and what is automatic for it")
    p.add_argument("--dry-run", action="store_true", help="print what would change, write nothing")
    p.add_argument(
        "--undo",
        action="store_true",
        help="restore the files cairn changed for AGENT in this project (and AGENT's shared files)",
    )
    add_root(p)
    add_json(p)
    p.set_defaults(func=cmd_connect)


def cmd_connect(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError

    if args.list:
        return _list(args)
    if not args.agent:
        raise CairnError("name an agent (see `cairn connect --list`)")
    from cairn.agents.connectors.apply import apply, undo
    from cairn.agents.connectors.plan import agent_named, plan
    from cairn.cli.common import resolve, resolve_root

    agent = agent_named(args.agent)
    if args.undo:
        if args.dry_run:
            raise CairnError("--undo and --dry-run do not combine")
        # outside any project only the agent's shared files (in the home folder) can be undone
        root = resolve(args, need_root=False).root
        lines = undo(agent, root)
        if args.json:
            print_json({"agent": agent.name, "project": str(root) if root else None, "undo": lines})
        else:
            print("\n".join(lines))
        return 0
    project, root = resolve_root(args)
    steps = plan(agent, root)
    done = [] if args.dry_run else apply(agent, steps, root)
    if args.json:
        print_json(
            {
                "agent": agent.name,
                "project": str(project.root),
                "dry_run": args.dry_run,
                "done": done,
                "steps": [
                    {
                        "role": s.target.role,
                        "format": s.target.fmt,
                        "path": str(s.path),
                        "action": s.action,
                        "reason": s.reason,
                        **({"paste": s.text} if s.action == "print" or args.dry_run else {}),
                    }
                    for s in steps
                ],
            }
        )
        return 0
    print(f"{agent.title}: project {project.root}")
    for s in steps:
        if s.action == "same":
            print(f"  {s.target.role}: unchanged {s.path}")
        elif s.action == "write":
            verb = "would write" if args.dry_run else "wrote"
            print(f"  {s.target.role}: {verb} {s.path}" + (f"  ({s.reason})" if s.reason else ""))
            if args.dry_run:
                print(_indent(s.text))
        else:
            print(f"  {s.target.role}: paste into {s.path} yourself ({s.reason}):")
            print(_indent(s.text))
    if agent.notes:
        print(f"  note: {agent.notes}")
    if done and not args.dry_run:
        print(f"  undo with: cairn connect {agent.name} --undo (in this project)")
    return 0


def _indent(text: str) -> str:
    return "\n".join("      " + line for line in text.rstrip("\n").splitlines())


def _list(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cairn.agents.connectors.agents import AGENTS

    rows = []
    for agent in AGENTS.values():
        row = {"agent": agent.name, "title": agent.title}
        for role in ("mcp", "instructions", "hooks"):
            target = next((t for t in agent.targets if t.role == role), None)
            if target is None:
                row[role] = "-"
            else:
                where = target.path(Path("~"), Path("<project>"))
                row[role] = f"{'writes' if target.auto else 'prints'} {where}"
        rows.append(row)
    if args.json:
        print_json({"agents": rows})
        return 0
    for row in rows:
        print(f"{row['agent']:<15} {row['title']}")
        for role in ("mcp", "instructions", "hooks"):
            print(f"  {role:<13} {row[role]}")
    print("writes = automatic (backup, idempotent, --undo); prints = shown for you to paste")
    return 0
