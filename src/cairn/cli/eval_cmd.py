"""`cairn eval cases` / `cairn eval run`: judge search on the user's own code and history."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from cairn.cli.common import add_json, add_root, print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="measure search on cases mined from git history",
        description="Mine cases from the repository's history (commit subject -> files it "
        "modified) and measure cairn's search against them, beside a flat BM25 baseline.",
    )
    esub = p.add_subparsers(dest="action", metavar="ACTION")
    c = esub.add_parser("cases", help="mine cases from recent commits into a JSONL file")
    add_root(c)
    c.add_argument("--out", required=True, help="where to write the cases (JSONL)")
    c.add_argument("--limit", type=int, default=40, help="cases to mine (default 40)")
    c.add_argument("--scan", type=int, default=400, help="newest commits to examine (default 400)")
    add_json(c)
    c.set_defaults(func=cmd_cases)
    r = esub.add_parser("run", help="run cases: files@5, files@10, hit@1, MRR, latency vs flat BM25")
    r.add_argument("--cases", required=True, nargs="+", help="JSONL case files (cairn eval cases, or shared bench)")
    r.add_argument("--repo", help="the git repository the cases come from (default: --root / current project)")
    add_root(r)
    r.add_argument("--cache", help="where trees and their indexes are kept (default: CAIRN_HOME/eval)")
    r.add_argument("--no-baseline", action="store_true", help="skip the flat BM25 baseline")
    r.add_argument(
        "--conversational",
        action="store_true",
        help="wrap each query in everyday chatter, as real requests to an agent are",
    )
    r.add_argument("-v", "--verbose", action="store_true", help="print each case's top results")
    add_json(r)
    r.set_defaults(func=cmd_run)
    pr = esub.add_parser(
        "prune",
        help="delete the trees and indexes `eval run` materialized",
        description="`cairn eval run` extracts the tree before each case's commit and indexes "
        "it, under --cache (default CAIRN_HOME/eval), and keeps them for the next run. This "
        "deletes them (the next run extracts again).",
    )
    pr.add_argument("--cache", help="the cache `eval run` used (default: CAIRN_HOME/eval)")
    add_json(pr)
    pr.set_defaults(func=cmd_prune)
    s = esub.add_parser(
        "sessions",
        help="replay your archived sessions prompt by prompt: files@5, novel@5",
        description="Replay this project's archived agent sessions (cairn sessions ingest) prompt "
        "by prompt, each with the session so far, and measure whether cairn finds the files the "
        "agent then read or edited: files@5, and novel@5 (only files the session had not touched "
        "yet). Flat BM25 and a session-recency baseline are shown beside it. Searches the index "
        "as it is now.",
    )
    add_root(s)
    s.add_argument("--max-sessions", type=int, default=200, help="newest sessions to replay (default 200)")
    s.add_argument(
        "--no-history",
        action="store_true",
        help="do not replay cairn again with each session's past (the sessions before it)",
    )
    add_json(s)
    s.set_defaults(func=cmd_sessions)


def _repo_arg(args: argparse.Namespace) -> Path:
    from cairn.cli.common import resolve_root

    if getattr(args, "repo", None):
        return Path(args.repo).expanduser().resolve()
    return resolve_root(args)[1]


def cmd_cases(args: argparse.Namespace) -> int:
    from cairn.search.eval.cases import case_dicts, mine_cases
    from cairn.util.atomic import atomic_write_text

    repo = _repo_arg(args)
    skipped: Counter = Counter()
    cases = case_dicts(mine_cases(repo, limit=args.limit, scan_commits=args.scan, skipped=skipped))
    from cairn.redact import redact

    atomic_write_text(Path(args.out), redact("".join(json.dumps(c) + "\n" for c in cases)))  # commit messages too
    examined = skipped.pop("examined", 0)
    if args.json:
        print_json({"cases": len(cases), "out": args.out, "commits_examined": examined, "skipped": dict(skipped)})
        return 0
    print(f"wrote {len(cases)} cases to {args.out} ({examined} commits examined)")
    if len(cases) < args.limit and skipped:
        print("commits without a case: " + "; ".join(f"{n} {why}" for why, n in skipped.most_common()))
    if not cases:
        print(
            "a case is a commit whose subject describes a change to 1-4 existing source files; "
            "try --scan with more commits, or a repository with more history"
        )
    return 0


def cmd_prune(args: argparse.Namespace) -> int:
    from cairn.home import cairn_home
    from cairn.search.eval.run import prune_cache

    cache = Path(args.cache).expanduser() if args.cache else cairn_home() / "eval"
    trees, freed = prune_cache(cache)
    if args.json:
        print_json({"cache": str(cache), "trees": trees, "bytes": freed})
    else:
        print(f"removed {trees} evaluation trees and their indexes from {cache} ({freed / 1e6:.1f} MB)")
    return 0


def _load_cases(paths: list[str]) -> list[dict]:
    from cairn.errors import CairnError

    cases = []
    for p in paths:
        try:
            lines = Path(p).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise CairnError(f"cannot read cases {p}: {exc.strerror}") from None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                c = json.loads(line)
                c["snapshot"] = c.get("snapshot") or c["commit"] + "^"
                c["query"], c["gold"] = str(c["query"]), list(c["gold"])
            except (ValueError, KeyError, TypeError):
                raise CairnError(f"{p}:{n}: not a case (needs query, gold, commit or snapshot)") from None
            cases.append(c)
    return cases


def cmd_run(args: argparse.Namespace) -> int:
    from cairn.home import cairn_home
    from cairn.search.eval.run import run_cases

    cases = _load_cases(args.cases)
    repo = _repo_arg(args)
    cache = Path(args.cache).expanduser() if args.cache else cairn_home() / "eval"
    done = [0]

    def tick(_q: str) -> None:
        done[0] += 1
        if not args.json and sys.stderr.isatty():
            print(f"\r{done[0]}/{len(cases)} cases", end="", file=sys.stderr)

    report = run_cases(
        cases, repo, cache, baseline=not args.no_baseline, conversational=args.conversational, progress=tick
    )
    if args.json:
        print_json(report)
        return 0
    if sys.stderr.isatty():
        print(file=sys.stderr)
    if args.verbose:
        for c in report["per_case"]:
            print(f"- {c['query']}\n  gold: {c['gold']}\n  cairn: {c['cairn']}")
    print(f"{report['cases']} cases on {report['snapshots']} snapshots, index {report['index_seconds']}s per snapshot")
    print(f"{'system':<12} {'files@5':>8} {'files@10':>9} {'hit@1':>6} {'MRR@10':>7} {'ms/query':>9}")
    for name, m in report["systems"].items():
        print(
            f"{name:<12} {m['files@5']:>8.3f} {m['files@10']:>9.3f} {m['hit@1']:>6.3f} {m['mrr@10']:>7.3f} "
            f"{m['ms/query']:>9.1f}"
        )
    return 0


def cmd_sessions(args: argparse.Namespace) -> int:
    import tempfile

    from cairn.cli.common import resolve_root
    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.errors import CairnError
    from cairn.search.eval.sessions import WITH_HISTORY, History, archived_cases, replay
    from cairn.sessions.archive_schema import archive_path
    from cairn.store.db import connect

    project, root = resolve_root(args)
    if not archive_path().exists():
        raise CairnError("no session archive yet: run `cairn sessions ingest` (or use the Claude Code hooks) first")
    archive = connect(archive_path(), readonly=True)

    def to_repo(path: str) -> str | None:
        from cairn.agents.hooks.context import relpath

        return relpath(root, path)

    with tempfile.TemporaryDirectory(prefix="cairn-eval-history-") as scratch:
        history = None if args.no_history else History(Path(scratch), to_repo)
        try:
            try:
                cases = archived_cases(
                    archive, project.id, to_repo, max_sessions=max(1, args.max_sessions), history=history
                )
            finally:
                archive.close()
            if not cases:
                raise CairnError(
                    f"no replayable prompts for {project.name}: the archive holds no session of this "
                    "project with a prompt followed by a file read or edit"
                )
            index_project(project)
            con = open_index(project)
            try:
                report = replay(con, root, cases, history=history)
            finally:
                con.close()
        finally:
            if history is not None:
                history.close()
    gain = _history_gain(report)
    if args.json:
        print_json({"project": project.name, "cases": len(cases), "systems": report, "history_gain": gain})
        return 0
    print(
        f"{project.name}: {len(cases)} prompts from {len({c.session_id for c in cases})} sessions "
        "(searched on the index as it is now)"
    )
    print(f"{'system':<16} {'files@5':>8} {'novel@5':>8}")
    for name, m in report.items():
        nov = "-" if m["novel@5"] is None else f"{m['novel@5']:.3f}"
        print(f"{name:<16} {m['files@5']:>8.3f} {nov:>8}")
    if gain is not None:
        print(
            f"the gain history brings ({WITH_HISTORY}: each session with the sessions before it): "
            f"files@5 {gain['files@5']:+.3f}, novel@5 "
            + ("-" if gain["novel@5"] is None else f"{gain['novel@5']:+.3f}")
        )
    return 0


def _history_gain(report: dict) -> dict | None:
    """cairn with its past minus cairn alone, on the same prompts (None without the history row)."""
    from cairn.search.eval.sessions import WITH_HISTORY

    if WITH_HISTORY not in report:
        return None
    a, b = report["cairn"], report[WITH_HISTORY]
    novel = None if a["novel@5"] is None or b["novel@5"] is None else round(b["novel@5"] - a["novel@5"], 3)
    return {"files@5": round(b["files@5"] - a["files@5"], 3), "novel@5": novel}
