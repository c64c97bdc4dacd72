#!/usr/bin/env python3
"""Session replay, in-process: real prompts searched with the session so far, with ablations.

The same cases, session reconstruction and metrics as `../shared/bench/run_eval.py
--session-replay` (its Session class writes the transcript; its `score` scores): each prompt of
`../shared/bench/sessions/*.jsonl` is searched on the tree at its snapshot with a Claude Code
transcript of the session before it, read by cairn's own reader (sessions/context.py) and passed
to `search_code(session=...)` exactly as `cairn search --transcript` does, without a process per
query. files@5 counts every gold file; novel@5 only the gold files the session had not touched,
with touched files removed from the ranking; macro = mean of the repositories.

Variants are JSON objects of Ranking fields (search/ranking.py: "fusion.recent": 0,
"session.near_graph": 0, ...) passed to search_code as its ranking; "session": false searches each prompt alone
(the transcript is not given); "history": true gives the search the git
history the harness's `--git-history` would give (mined from the bare mirror at the snapshot, so
no tree needs a .git). Indexes persist under --homes (one CAIRN_HOME per snapshot), so variants
after the first one cost seconds.

Usage: python bench/session_replay.py [--homes DIR] [--jobs 2] [--cases FILE...] '{}' '{"fusion.recent": 0}'
(BENCH_MIRRORS and BENCH_CACHE as for the shared harness.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

import benchlib

SHARED = benchlib.SHARED_BENCH  # the harness: run_eval.py (Session, score, materialize) and sessions/
DUMP = bool(os.environ.get("REPLAY_DUMP"))  # set by --dump: each case's rows are kept for a look by hand


def _ranking(variant: dict):
    """The shipped Ranking with the variant's fields replaced (an unknown field stops the run)."""
    from cairn.search.ranking import DEFAULT_RANKING, override

    try:
        return override(DEFAULT_RANKING, {k: v for k, v in variant.items() if k not in ("history", "session")})
    except KeyError as e:
        sys.exit(str(e))


def _mine_from_mirror(con, run_eval, repo: str, sha: str, root: Path) -> None:
    """Fill the index's history tables as if the tree were a clone whose HEAD is `sha`."""
    from cairn.codemap import history
    from cairn.codemap.index_meta import IndexMeta

    git_dir = run_eval.git_dir_for(repo)

    def git(_root, *args):
        args = [sha if a == "HEAD" else a for a in args]
        r = subprocess.run(["git", "--git-dir", git_dir, "-c", "core.quotepath=off", *args], capture_output=True)
        return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None

    history._git, history.head_commit = git, (lambda _root: sha)
    history._is_ancestor = lambda _root, _sha: False
    if IndexMeta.load(con, "history_head").history_head != sha:
        history.update_history(con, root)


def run_group(job: tuple) -> list[dict]:
    repo, sha, cases, sessions, variant, homes = job
    benchlib.on_path(SHARED)
    import run_eval

    os.environ["CAIRN_HOME"] = str(Path(homes) / f"{repo.replace('/', '+')}@{sha}")
    ranking = _ranking(variant)
    from cairn.agents.tracker import with_tracker_items
    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root
    from cairn.search.engine import search_code
    from cairn.sessions.context import read_session

    root, files = run_eval.materialize(repo, sha, False)
    present = set(files)
    project = project_for_root(root)
    index_project(project, workers=1)
    con = open_index(project)
    use_history = bool(variant.get("history"))
    if use_history:
        _mine_from_mirror(con, run_eval, repo, sha, root)
    transcript = Path(os.environ["CAIRN_HOME"]) / "replay.jsonl"
    rows = []
    for case, sess in zip(cases, sessions, strict=True):
        ctx = None
        if sess is not None:
            sess.steps = [(p, [f for f in fs if f in present], e) for p, fs, e in sess.steps]
            sess.files = [f for f in sess.files if f in present]
            if (sess.files or sess.prompts) and variant.get("session", True):
                transcript.write_text(sess.transcript(root))
                ctx = read_session(transcript)
        t = time.perf_counter()
        query, item_terms = with_tracker_items(project, case["query"])  # as `cairn search` does
        hits, _ = search_code(
            con,
            query,
            root=root,
            terms=item_terms or None,
            limit=10,
            session=ctx,
            use_history=use_history,
            ranking=ranking,
        )
        ms = (time.perf_counter() - t) * 1000
        ranked = [h.path for h in hits]
        row = {"repo": repo, "ms": ms, **run_eval.score(case["gold"], ranked)}
        seen = set(sess.files) if sess is not None else set()
        novel = [g for g in case["gold"] if g not in seen]
        if novel:
            row["novel@5"] = run_eval.score(novel, [r for r in ranked if r not in seen])["files@5"]
        row["first"] = not seen
        if DUMP:
            row.update(
                query=case["query"],
                gold=case["gold"],
                ranked=ranked,
                touched=list(sess.files) if sess else [],
                session=case.get("session"),
                prompt_index=case.get("prompt_index"),
                snapshot=sha,
            )
        rows.append(row)
    con.close()
    return rows


def measure(case_files: list[Path], variant: dict, homes: str, jobs: int) -> dict:
    benchlib.on_path(SHARED)
    import run_eval

    groups = []
    for cf in case_files:
        cases = [json.loads(x) for x in cf.read_text().splitlines() if x.strip()]
        contexts = run_eval.session_contexts(cases)
        by = defaultdict(list)
        for c in cases:
            by[(c["repo"], c["snapshot"])].append(c)
        for (repo, sha), cs in by.items():
            groups.append((repo, sha, cs, [contexts.get(id(c)) for c in cs], variant, homes))
    with Pool(jobs) as pool:
        rows = [r for rs in pool.imap_unordered(run_group, groups) for r in rs]
    per_repo = {}
    for repo in sorted({r["repo"] for r in rows}):
        rs = [r for r in rows if r["repo"] == repo]
        nov = [r["novel@5"] for r in rs if "novel@5" in r]
        later = [r for r in rs if not r["first"]]
        per_repo[repo] = {
            "cases": len(rs),
            "files@5": _mean(r["files@5"] for r in rs),
            "novel@5": _mean(nov),
            "hit@1": _mean(r["hit@1"] for r in rs),
            "files@5 later": _mean(r["files@5"] for r in later),
        }
    macro = {k: _mean(v[k] for v in per_repo.values()) for k in ("files@5", "novel@5", "hit@1", "files@5 later")}
    ms = sorted(r["ms"] for r in rows)
    return {"per_repo": per_repo, "macro": macro, "p50_ms": ms[len(ms) // 2], "cases": len(rows), "rows": rows}


def _mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="*", default=["{}"], help="JSON objects of overrides ('{}' = as shipped)")
    ap.add_argument("--cases", nargs="+", type=Path, default=sorted((SHARED / "sessions").glob("*.jsonl")))
    ap.add_argument("--homes", default=str(Path.home() / ".cache" / "cairn-bench" / "replay-homes"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--dump", type=Path, help="write every case (query, gold, ranking, files touched) as JSONL here")
    args = ap.parse_args()
    if args.dump:
        os.environ["REPLAY_DUMP"] = "1"
        global DUMP
        DUMP = True
    for text in args.variants:
        variant = json.loads(text)
        res = measure(args.cases, variant, args.homes, args.jobs)
        print(f"\n### {text}  ({res['cases']} cases, search p50 {res['p50_ms']:.0f} ms in-process)")
        print("| repository | cases | files@5 | novel@5 | hit@1 | files@5 (prompts after the first) |")
        print("|---|---:|---:|---:|---:|---:|")
        for repo, v in res["per_repo"].items():
            print(
                f"| {repo} | {v['cases']} | {v['files@5']:.3f} | {v['novel@5']:.3f} | {v['hit@1']:.3f} | "
                f"{v['files@5 later']:.3f} |"
            )
        if args.dump:
            with args.dump.open("a") as fh:
                for r in res["rows"]:
                    fh.write(json.dumps({"variant": text, **r}) + "\n")
        m = res["macro"]
        print(
            f"| **macro** | | **{m['files@5']:.3f}** | **{m['novel@5']:.3f}** | {m['hit@1']:.3f} | "
            f"{m['files@5 later']:.3f} |"
        )


if __name__ == "__main__":
    main()
