"""`cairn remember`, `cairn read`, `cairn memory-md`, `cairn memory list|doctor|agents`: the knowledge graph.

Library code is imported inside the handlers so `cairn --help` stays cheap.
"""

from __future__ import annotations

import argparse
import json
import sys

from cairn.cli.common import add_json, add_root, print_json, resolve

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.memory.facts import Fact

NODE_TYPES = ("decision", "bug", "gotcha", "concept", "howto", "preference", "task", "note")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "remember",
        help="record a decision, bug, gotcha, concept... in the project's knowledge graph",
        description="Write one fact as a markdown node in .cairn/knowledge/ (or the personal vault). A fact "
        "that duplicates a live node of the same type merges into it; --supersedes marks the old node "
        "superseded. Without TITLE and with --json, reads one JSON object or a list from stdin: "
        '{"type", "title", "body", "files": [...], "symbols": [...], "links": [{"rel", "target"}], '
        '"supersedes": "<id or title>", "tags": [...]}.',
    )
    p.add_argument("title", nargs="?", help="the fact's title (omit with --json to read facts from stdin)")
    p.add_argument("--type", "-t", default="note", choices=NODE_TYPES, help="node type (default note)")
    p.add_argument("--body", "-b", default="", help="the fact itself, markdown ('-' reads it from stdin)")
    p.add_argument(
        "--file",
        dest="files",
        action="append",
        default=[],
        metavar="PATH",
        help="a file this is about (repeatable); its content hash is kept to detect staleness",
    )
    p.add_argument(
        "--symbol",
        dest="symbols",
        action="append",
        default=[],
        metavar="NAME",
        help="a symbol this is about (repeatable)",
    )
    p.add_argument(
        "--link",
        dest="links",
        action="append",
        default=[],
        metavar="REL:TARGET",
        help="typed link to another node by id or title, e.g. caused-by:'Checkout retry' (repeatable)",
    )
    p.add_argument("--supersedes", metavar="ID|TITLE", help="the node this one replaces (kept, marked superseded)")
    p.add_argument(
        "--tag",
        dest="tags",
        action="append",
        default=[],
        metavar="TAG",
        help="a tag (repeatable); `pinned` puts the node first in memory-md",
    )
    p.add_argument("--personal", action="store_true", help="write to the personal vault (applies to every project)")
    add_root(p)
    add_json(p)
    p.set_defaults(func=cmd_remember)

    p = sub.add_parser(
        "read",
        help="print one knowledge node with its links resolved",
        description="Print a node by id or title: status, what superseded it, cited files "
        "marked (changed since this note: PATH) when their content changed, body, links.",
    )
    p.add_argument("ref", metavar="ID", help="node id, title or unique id prefix")
    add_root(p)
    add_json(p)
    p.set_defaults(func=cmd_read)

    p = sub.add_parser(
        "memory-md",
        help="write the top knowledge into CLAUDE.md / MEMORY.md (marked block)",
        description="Write a byte-budgeted block between <!-- cairn:memory:start --> and "
        "<!-- cairn:memory:end -->: pinned then highest-value live nodes, one line each. "
        "Re-running replaces only that block; the file is backed up before the first edit.",
    )
    p.add_argument(
        "--file",
        metavar="PATH",
        help="target file inside the project: an agent instruction file "
        "(CLAUDE.md, AGENTS.md, MEMORY.md, GEMINI.md, ...; default: CLAUDE.md, or MEMORY.md if only "
        "that exists)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write the --file given whatever its name; it must still be inside the project",
    )
    p.add_argument("--bytes", type=int, default=6000, metavar="N", help="byte budget of the block (default 6000)")
    p.add_argument("--lines", type=int, default=60, metavar="N", help="line budget of the block (default 60)")
    add_root(p)
    add_json(p)
    p.set_defaults(func=cmd_memory_md)

    memory = sub.add_parser(
        "memory",
        help="list or check the knowledge graph",
        description="`cairn memory list` lists nodes; `cairn memory doctor` reports stale and "
        "orphaned nodes, broken links and malformed files.",
    )
    msub = memory.add_subparsers(dest="memory_command", metavar="SUBCOMMAND")
    lp = msub.add_parser("list", help="list knowledge nodes")
    lp.add_argument("--type", choices=NODE_TYPES, help="only this type")
    lp.add_argument("--status", help="only this status (active, superseded, done, accepted, ...)")
    lp.add_argument("--origin", choices=("project", "adr", "personal", "agent"), help="only this origin")
    add_root(lp)
    add_json(lp)
    lp.set_defaults(func=cmd_memory_list)
    dp = msub.add_parser("doctor", help="stale, orphaned, broken or malformed knowledge")
    add_root(dp)
    add_json(dp)
    dp.set_defaults(func=cmd_memory_doctor)
    ap = msub.add_parser(
        "agents",
        help="the agents' own memories: import them, write cairn's decisions for Codex, undo",
        description="Claude Code keeps an auto memory per repository, Codex one memory folder per user. "
        "`--import claude,codex` copies this project's memories (redacted, read-only, origin `agent`, "
        "never into the repository; ones a project note already holds are left out) so search finds them; "
        "`--export codex` writes the live decisions and gotchas as one Codex ad-hoc note (Claude Code reads "
        "them from the CLAUDE.md block of `cairn memory-md`); `--undo` removes both. Without a flag: what "
        "would be read.",
    )
    ap.add_argument("--import", dest="import_agents", metavar="AGENTS", help="claude, codex or claude,codex")
    ap.add_argument("--export", choices=("codex",), help="write cairn's live decisions and gotchas for this agent")
    ap.add_argument("--undo", action="store_true", help="remove the imported memories and cairn's Codex note")
    add_root(ap)
    add_json(ap)
    ap.set_defaults(func=cmd_memory_agents)
    memory.set_defaults(func=lambda args: (memory.print_help(), 0)[1])


def _read_stdin_json():
    from cairn.errors import CairnError

    raw = sys.stdin.read()
    if not raw.strip():
        raise CairnError("--json without TITLE reads facts from stdin, but stdin is empty")
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CairnError(f"stdin is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None


def _facts(args: argparse.Namespace) -> list[Fact]:
    from cairn.errors import CairnError
    from cairn.memory.facts import Fact, facts_from_json, parse_link

    if args.title is None:
        if not args.json:
            raise CairnError(
                'give a TITLE (cairn remember "TITLE" --type gotcha --body ...) or pass --json and the facts on stdin'
            )
        facts = facts_from_json(_read_stdin_json())
    else:
        body = sys.stdin.read() if args.body == "-" else args.body
        facts = [
            Fact(
                title=args.title,
                type=args.type,
                body=body,
                files=args.files,
                symbols=args.symbols,
                links=[parse_link(s) for s in args.links],
                supersedes=args.supersedes,
                tags=args.tags,
            )
        ]
    if args.personal:
        for fact in facts:
            fact.personal = True
    return facts


def cmd_remember(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cairn.memory.knowledge import remember_facts

    facts = _facts(args)
    project = resolve(args, need_root=not all(f.personal for f in facts))
    results = remember_facts(project, facts, cwd=Path.cwd())
    if args.json:
        print_json({"results": [r.to_dict() for r in results]})
    else:
        for r in results:
            extra = f" (replaces {r.superseded})" if r.superseded else ""
            print(f"{r.action} {r.id}{extra}  {r.path}")
            for note in r.notes:
                print(f"  note: {note}")
    return 0


def cmd_read(args: argparse.Namespace) -> int:
    from cairn.memory import load_knowledge
    from cairn.memory.node_view import node_view

    project = resolve(args, need_root=False)
    view = node_view(project, load_knowledge(project), args.ref)
    if args.json:
        print_json(view.to_dict())
    else:
        sys.stdout.write(view.text())
    return 0


def cmd_memory_md(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError
    from cairn.memory import load_knowledge
    from cairn.memory.knowledge import node_stale_files
    from cairn.memory.memory_md import write_memory_md

    if args.bytes < 200 or args.lines < 8:
        raise CairnError("--bytes must be >= 200 and --lines >= 8")
    project = resolve(args)
    nodes = load_knowledge(project, personal=False)
    stale_ids = set(node_stale_files(project, [n for n in nodes if n.is_live]))
    if args.force and not args.file:
        raise CairnError("--force needs an explicit --file PATH")
    res = write_memory_md(
        project, nodes, args.file, max_bytes=args.bytes, max_lines=args.lines, stale_ids=stale_ids, force=args.force
    )
    if args.json:
        print_json(res.to_dict())
    else:
        state = "updated" if res.changed else "unchanged"
        print(f"{state} {res.path}: {res.shown} of {res.total} live nodes, {res.bytes} bytes")
        if res.backup:
            print(f"  backup of the previous file: {res.backup}")
    return 0


def cmd_memory_list(args: argparse.Namespace) -> int:
    from cairn.memory import load_knowledge_with_problems, node_summary

    project = resolve(args, need_root=False)
    kn = load_knowledge_with_problems(project)
    nodes = [
        n
        for n in kn.nodes
        if (not args.type or n.type == args.type)
        and (not args.status or args.status in (n.status, n.state))
        and (not args.origin or n.origin == args.origin)
    ]
    nodes.sort(
        key=lambda n: (
            ("project", "adr", "personal", "agent").index(n.origin),
            n.state != "active",
            n.type,
            n.title.lower(),
        )
    )
    if args.json:
        print_json({"nodes": [node_summary(n) for n in nodes], "problems": [p.to_dict() for p in kn.problems]})
        return 0
    for n in nodes:
        sup = f" -> {n.superseded_by}" if n.superseded_by else ""
        print(f"{n.id}  [{n.type}/{n.status}{sup}]  {n.title}  ({n.path})")
    for p in kn.problems:
        print(f"malformed: {p}", file=sys.stderr)
    if not nodes:
        print("no knowledge nodes" + (" match" if (args.type or args.status or args.origin) else " yet"))
    return 0


def cmd_memory_doctor(args: argparse.Namespace) -> int:
    from cairn.memory import load_knowledge_with_problems
    from cairn.memory.doctor import diagnose
    from cairn.memory.knowledge import symbol_range_for

    project = resolve(args, need_root=False)
    kn = load_knowledge_with_problems(project)
    report = diagnose(kn.nodes, kn.problems, project.root, symbol_range_for(project, kn.nodes), kn.notes)
    from cairn.memory.committed import tracked_generated, untrack_hint

    tracked = tracked_generated(project.root) if project.root is not None else []
    if args.json:
        print_json({**report.to_dict(), "tracked_generated": tracked})
        return 0 if report.ok else 1
    lines = report.lines() + ([untrack_hint(tracked)] if tracked else [])
    for line in lines:
        print(line)
    if not lines:
        print(f"memory ok: {report.nodes} nodes, nothing stale, orphaned, broken or malformed")
    return 0 if report.ok else 1  # problems: exit 1, so a script or CI step can act on them


def cmd_memory_agents(args: argparse.Namespace) -> int:
    from cairn.agents import native_memory as nm
    from cairn.cli.common import resolve_root
    from cairn.errors import CairnError

    project, root = resolve_root(args)
    agents = [a.strip() for a in (args.import_agents or "").split(",") if a.strip()]
    unknown = [a for a in agents if a not in nm.AGENTS]
    if unknown:
        raise CairnError(f"unknown agent {unknown[0]!r}: --import takes {', '.join(nm.AGENTS)} (comma-separated)")
    if args.undo:
        report = nm.undo(project)
    elif agents or args.export:
        report = nm.import_memories(project, agents) if agents else nm.Report()
        if args.export:
            report.exported = nm.export_codex(project).exported
    else:
        report = nm.Report()
        report.imported = {"claude": len(nm.claude_memories(root, report)),
                           "codex": len(nm.codex_task_groups(root, report))}  # fmt: skip
    if args.json:
        print_json(report.as_json())
        return 0
    done = "would import" if not (agents or args.export or args.undo) else "imported"
    if not args.undo:
        counts = ", ".join(f"{n} from {a}" for a, n in report.imported.items()) or "nothing"
        print(f"{done}: {counts}" + (f" ({report.duplicates} already in project notes)" if report.duplicates else ""))
        for src in report.sources:
            print(f"  read {src}")
    for line in report.skipped:
        print(f"  skipped {line}")
    if report.exported:
        print(f"codex note: {report.exported}")
    if report.removed:
        print(f"removed {report.removed} file(s)")
    return 0
