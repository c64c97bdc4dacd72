#!/usr/bin/env python3
"""Session replay with the project's past, in-process: what the request log and co-access add.

The protocol of `../shared/bench/run_eval.py --session-replay --session-history`, without a process
per query: per snapshot, the cases in the harness's time order (SessionHistory.order); before each
case, the archive of a fresh CAIRN_HOME holds exactly the repository's sessions that ended before
the case's session started (the harness's Session.transcript of each, cwd = the tree, files the
tree lacks dropped), archived with `ingest_paths` as `cairn sessions ingest` does (which also keeps
the history store up to date); each prompt is then searched with the session so far (as
bench/session_replay.py does) once without the past and once per variant with it. Rows (repo,
variant, files@5, novel@5, early, history sessions) go to --dump for tables and leave-one-out
choices (bench/history_loo.py); a summary is printed.

Variants are JSON objects of Ranking fields ('{}' = as shipped); the row "none" is the same code
without history. Indexes persist under --homes (one CAIRN_HOME per snapshot, as session_replay.py).

Usage: python bench/history_replay.py [--homes DIR] [--jobs 2] [--cases FILE...] [--max-groups N]
       [--dump rows.jsonl] '{}' '{"fusion.asked": 2.0}'
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

import benchlib
from session_replay import _ranking

SHARED = benchlib.SHARED_BENCH
KEEP = int(os.environ.get("HISTORY_KEEP", "0"))  # --keep: every row keeps its ranking this deep


def run_group(job: tuple) -> list[dict]:
    repo, sha, cases, contexts, history, variants, homes = job
    benchlib.on_path(SHARED)
    import run_eval

    home = Path(homes) / f"{repo.replace('/', '+')}@{sha}"
    os.environ["CAIRN_HOME"] = str(home)
    from cairn.agents.tracker import with_tracker_items
    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_recorded_cwd, project_for_root
    from cairn.search.engine import search_code
    from cairn.sessions.archive import ingest_paths
    from cairn.sessions.archive_schema import archive_path
    from cairn.sessions.context import read_session
    from cairn.sessions.history_recall import open_past
    from cairn.sessions.history_store import store_path

    rankings = {name: _ranking(v) for name, v in variants.items()}
    root, files = run_eval.materialize(repo, sha, False)
    present = set(files)
    project = project_for_root(root)
    index_project(project, workers=1)
    project_for_recorded_cwd.cache_clear()
    for p in [archive_path(), store_path(project.id)]:  # the past starts empty for every snapshot
        for suffix in ("", "-wal", "-shm"):
            Path(str(p) + suffix).unlink(missing_ok=True)
    shutil.rmtree(home / "history", ignore_errors=True)
    folder = home / "history" / re.sub(r"[^A-Za-z0-9]", "-", str(root))
    folder.mkdir(parents=True)
    archived: set[str] = set()
    con = open_index(project)
    transcript = home / "replay.jsonl"
    rows = []
    for case, sess, earlier, early in zip(cases, contexts, history, [c["_early"] for c in cases], strict=True):
        new = [s for s in earlier if s.sid not in archived]
        if new:
            for s in new:
                s = s.copy().keep(present)
                (folder / f"{s.sid}.jsonl").write_text(s.transcript(root))
            t = time.perf_counter()
            ingest_paths([folder], auto_backup=None)
            ingest_ms = (time.perf_counter() - t) * 1000
            archived |= {s.sid for s in new}
        else:
            ingest_ms = 0.0
        ctx = None
        if sess is not None:
            sess.keep(present)
            if sess.files or sess.prompts:
                transcript.write_text(sess.transcript(root))
                ctx = read_session(transcript)
        query, item_terms = with_tracker_items(project, case["query"])
        seen = set(sess.files) if sess is not None else set()
        novel = [g for g in case["gold"] if g not in seen]
        for name, ranking in rankings.items():
            past = open_past(project.id) if name != "none" else None
            t = time.perf_counter()
            hits, _ = search_code(
                con,
                query,
                root=root,
                terms=item_terms or None,
                limit=10,
                session=ctx,
                use_history=False,
                ranking=ranking,
                past=past,
            )
            ms = (time.perf_counter() - t) * 1000
            ranked = [h.path for h in hits]
            row = {
                "repo": repo,
                "variant": name,
                "ms": ms,
                "ingest_ms": ingest_ms,
                "early": early,
                "history": len(archived),
                "session": case.get("session"),
                "prompt_index": case.get("prompt_index"),
                "first": not seen,
                **run_eval.score(case["gold"], ranked),
            }
            if novel:
                row["novel@5"] = run_eval.score(novel, [r for r in ranked if r not in seen])["files@5"]
            if KEEP:  # the ranking with its scores, for offline fusion trials (history_explore.py)
                wide, _ = search_code(
                    con,
                    query,
                    root=root,
                    terms=item_terms or None,
                    limit=KEEP,
                    session=ctx,
                    use_history=False,
                    ranking=ranking,
                    past=past,
                )
                row.update(
                    query=case["query"],
                    gold=case["gold"],
                    seen=sorted(seen),
                    top10=ranked,
                    wide=[(h.path, round(h.score, 6)) for h in wide],
                )
            if KEEP and past is not None and novel:  # what the past could reach at all: history_ceiling.py
                row["reach"] = reach(past, case["query"], seen, novel, earlier, ranking)
            if past is not None:
                past.close()
            rows.append(row)
    con.close()
    return rows


def reach(past, query: str, seen: set[str], novel: list[str], earlier: list, ranking) -> dict[str, list]:
    """Of the prompt's novel gold files: those any earlier session touched, and each history list's
    rank of them (the request log as the search asks it, co-access from the files in play)."""
    r = ranking.session
    asked = past.asked(
        query,
        min_sim=r.past_min_sim,
        limit=r.past_requests,
        half_life=r.past_half_life,
        power=r.past_power,
        read_share=r.past_read,
    )
    together = past.together(dict.fromkeys(seen, 1.0), per_seed=r.past_per_seed, half_life=r.past_half_life)
    ever = {f for s in earlier for f in s.files}
    out: dict[str, list] = {"ever": [g for g in novel if g in ever]}
    for name, scores in (("asked", {p: a.score for p, a in asked.items()}), ("together", together)):
        order = [p for p in sorted(scores, key=lambda p: (-scores[p], p)) if p not in seen]
        out[name] = [[g, order.index(g)] for g in novel if g in scores and g not in seen]
    return out


def groups_of(case_files: list[Path], variants: dict, homes: str, max_groups: int) -> list[tuple]:
    benchlib.on_path(SHARED)
    import run_eval

    out = []
    for cf in case_files:
        cases = [json.loads(x) for x in cf.read_text().splitlines() if x.strip()]
        contexts = run_eval.session_contexts(cases)
        history = run_eval.SessionHistory(cases)
        by = defaultdict(list)
        for c in cases:
            c["_early"] = history.early(c)
            by[(c["repo"], c["snapshot"])].append(c)
        repo_groups = []
        for (repo, sha), cs in by.items():
            cs = sorted(cs, key=history.order)
            repo_groups.append(
                (repo, sha, cs, [contexts.get(id(c)) for c in cs], [history.earlier(c) for c in cs], variants, homes)
            )
        out += repo_groups[:max_groups] if max_groups else repo_groups
    return out


def summary(rows: list[dict]) -> None:
    by = defaultdict(list)
    for r in rows:
        by[(r["variant"], r["repo"])].append(r)
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    repos = sorted({r["repo"] for r in rows})

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs) if xs else float("nan")

    print("| variant | repository | cases | files@5 | novel@5 | early files@5 / novel@5 | late files@5 / novel@5 |")
    print("|---|---|---:|---:|---:|---|---|")
    for v in variants:
        macro = defaultdict(list)
        for repo in repos:
            rs = by[(v, repo)]
            f5, n5 = mean([r["files@5"] for r in rs]), mean([r["novel@5"] for r in rs if "novel@5" in r])
            parts = []
            for early in (True, False):
                sub = [r for r in rs if r["early"] == early]
                parts.append(
                    f"{mean([r['files@5'] for r in sub]):.3f} / "
                    f"{mean([r['novel@5'] for r in sub if 'novel@5' in r]):.3f}"
                )
            macro["f"].append(f5)
            macro["n"].append(n5)
            print(f"| {v} | {repo.split('/')[-1]} | {len(rs)} | {f5:.3f} | {n5:.3f} | {parts[0]} | {parts[1]} |")
        print(f"| {v} | **macro** | | **{mean(macro['f']):.3f}** | **{mean(macro['n']):.3f}** | | |")
    ms = sorted(r["ms"] for r in rows if r["variant"] != "none")
    if ms:
        print(
            f"\nsearch with the past, in-process: p50 {ms[len(ms) // 2]:.0f} ms, p95 {ms[int(len(ms) * 0.95)]:.0f} ms"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="*", default=["{}"], help="JSON objects of overrides ('{}' = as shipped)")
    ap.add_argument("--cases", nargs="+", type=Path, default=sorted((SHARED / "sessions").glob("*.jsonl")))
    ap.add_argument("--homes", default=str(Path.home() / ".cache" / "cairn-bench" / "replay-homes"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-groups", type=int, default=0, help="snapshots per case file (0 = all)")
    ap.add_argument("--dump", type=Path, help="write every row as JSONL here")
    ap.add_argument(
        "--keep",
        type=int,
        default=0,
        help="every row keeps its ranking this deep, with scores and the case (for offline trials)",
    )
    args = ap.parse_args()
    if args.keep:
        os.environ["HISTORY_KEEP"] = str(args.keep)
        global KEEP
        KEEP = args.keep
    variants = {"none": {}, **{text: json.loads(text) for text in args.variants}}
    for v in variants.values():
        _ranking(v)  # an unknown field stops the run before any work
    groups = groups_of(args.cases, variants, args.homes, args.max_groups)
    t = time.time()
    with Pool(args.jobs) as pool:
        rows = [r for rs in pool.imap_unordered(run_group, groups) for r in rs]
    print(f"{len(groups)} snapshots, {len(rows)} rows, {time.time() - t:.0f} s", file=sys.stderr)
    if args.dump:
        with args.dump.open("w") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
    summary(rows)


if __name__ == "__main__":
    main()
