#!/usr/bin/env python3
"""Same rankings: every development query answered by this checkout and by another cairn source tree.

For refactors of the ranking that must not move a result (issue 36: the weights as one `Ranking`
value). Every query of the development sets in ../shared/bench (the commit-subject cases, the
semble set, the decision questions and the session-replay prompts) is answered twice on the same
index (one CAIRN_HOME): once by a worker process with this checkout's `src` first on PYTHONPATH,
once by one with `--base SRC` first (`git archive main src | tar -x -C /tmp/base` makes it). Each
worker answers its queries in-process through the public entry point `cairn search` uses
(`service.search`, after `with_tracker_items`, with the session of `service.session_context`),
and writes each answer's JSON (`cairn search --json`) and text; the two files are compared line
by line, byte for byte.

A session-replay prompt is searched with the session before it as a Claude Code transcript,
written by the shared harness's `Session.transcript` (run_eval.py --session-replay does the
same); `--sessions-per-repo N` keeps N prompts per repository, taken from the snapshots holding
the most prompts (each snapshot is one more tree to index). Every tree's index gets the git
history of its snapshot, mined from the bare mirror, so the co-change and churn channels run too.

Trees, indexes and transcripts are kept under --cache (index once, reuse).

Usage: python bench/ranking_same.py --base /tmp/base/src --cache /work/runs/ranking [--shared ../shared/bench] \\
           [--mirrors '/work/.mirror/{owner}+{name}/repo'] [--sets cases,semble,decisions,sessions] \\
           [--sessions-per-repo 40]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
OURS = HERE.parent / "src"
SHARED = HERE.parents[1].parent / "shared" / "bench"  # ../shared/bench beside the checkout (--shared)
SETS = ("cases", "semble", "decisions", "sessions")


def _pick_sessions(cases: list[dict], per_repo: int) -> list[dict]:
    """Up to `per_repo` prompts per repository, whole snapshots at a time, most prompts first."""
    by = defaultdict(list)
    for c in cases:
        by[(c["repo"], c["snapshot"])].append(c)
    kept: list[dict] = []
    count: dict[str, int] = defaultdict(int)
    for (repo, _sha), cs in sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if count[repo] >= per_repo:
            continue
        take = cs[: per_repo - count[repo]]
        kept += take
        count[repo] += len(take)
    return kept


def _jobs(args: argparse.Namespace, run_eval) -> list[dict]:
    """One job per (set, repository, snapshot): the tree and the queries to answer on it."""
    jobs = []
    for name in args.sets.split(","):
        for f in sorted((args.shared / name).glob("*.jsonl")):
            cases = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
            contexts = run_eval.session_contexts(cases) if name == "sessions" else {}
            if name == "sessions":
                cases = _pick_sessions(cases, args.sessions_per_repo)
            by = defaultdict(list)
            for c in cases:
                by[(c["repo"], c["snapshot"])].append(c)
            for (repo, sha), cs in by.items():
                jobs.append(
                    {"set": name, "repo": repo, "sha": sha, "cases": cs, "sessions": [contexts.get(id(c)) for c in cs]}
                )
    return jobs


def prepare(args: argparse.Namespace) -> list[dict]:
    """Trees, indexes (with history) and transcripts; the queries as JSON-ready work for the workers."""
    sys.path.insert(0, str(args.shared))
    sys.path.insert(0, str(HERE))
    import run_eval
    from session_replay import _mine_from_mirror  # the history as if the tree were a clone at the snapshot

    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root

    work = []
    indexed: set[tuple[str, str]] = set()
    for job in _jobs(args, run_eval):
        root, files = run_eval.materialize(job["repo"], job["sha"], False)
        present = set(files)
        key = (job["repo"], job["sha"])
        if key not in indexed:
            t = time.time()
            project = project_for_root(root)
            index_project(project, workers=1)
            con = open_index(project)
            _mine_from_mirror(con, run_eval, job["repo"], job["sha"], root)
            con.close()
            indexed.add(key)
            print(
                f"  {job['set']} {job['repo']}@{job['sha'][:10]}: indexed in {time.time() - t:.1f}s",
                file=sys.stderr,
                flush=True,
            )
        for i, (c, sess) in enumerate(zip(job["cases"], job["sessions"], strict=True)):
            transcript = None
            if sess is not None:
                sess.keep(present)
                if sess.files or sess.prompts:
                    transcript = (
                        Path(args.cache) / "transcripts" / f"{job['repo'].replace('/', '+')}@{job['sha']}-{i}.jsonl"
                    )
                    transcript.parent.mkdir(parents=True, exist_ok=True)
                    transcript.write_text(sess.transcript(root))
            work.append(
                {
                    "set": job["set"],
                    "root": str(root),
                    "query": c["query"],
                    "transcript": str(transcript) if transcript else None,
                }
            )
    return work


def worker(work_file: Path, out_file: Path, src: str) -> None:
    """Answer every query of `work_file` with the cairn found first on sys.path (which must be `src`)."""
    import cairn

    if not Path(cairn.__file__).resolve().is_relative_to(Path(src).resolve()):
        sys.exit(f"the worker imported {cairn.__file__}, not the cairn of {src}")
    from cairn.agents.tracker import with_tracker_items
    from cairn.project import project_for_root
    from cairn.search.service import search, session_context

    projects: dict = {}
    with out_file.open("w") as out:
        for line in work_file.read_text().splitlines():
            w = json.loads(line)
            project = projects.get(w["root"]) or projects.setdefault(w["root"], project_for_root(Path(w["root"])))
            session = session_context(project, w["transcript"]) if w["transcript"] else None
            query, terms = with_tracker_items(project, w["query"])
            answer = search(project, query, terms=terms, limit=10, refresh=False, kind="auto", session=session)
            out.write(
                json.dumps({"set": w["set"], "json": json.dumps(answer.as_json(), indent=2), "text": answer.text})
                + "\n"
            )


def _run_worker(src: str, work_file: Path, out_file: Path, home: Path) -> float:
    env = {**os.environ, "PYTHONPATH": src, "CAIRN_HOME": str(home), "CAIRN_WARM": "0"}
    t = time.time()
    subprocess.run(
        [sys.executable, __file__, "--worker", str(work_file), str(out_file), "--src", src], env=env, check=True
    )
    return time.time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", help="the other cairn's src/ folder")
    ap.add_argument("--cache", default="/work/runs/ranking")
    ap.add_argument("--mirrors", default="/work/.mirror/{owner}+{name}/repo")
    ap.add_argument("--shared", type=Path, default=SHARED, help="the shared bench folder (cases, run_eval.py)")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--sessions-per-repo", type=int, default=40)
    ap.add_argument("--worker", nargs=2, type=Path, metavar=("WORK", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--src", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker, args.src)
        return
    if not args.base:
        ap.error("--base SRC is required")
    cache = Path(args.cache)
    home = cache / "home"
    os.environ.update(
        CAIRN_HOME=str(home), CAIRN_WARM="0", BENCH_MIRRORS=args.mirrors, BENCH_CACHE=str(cache / "bench")
    )
    work = prepare(args)
    work_file = cache / "work.jsonl"
    work_file.write_text("".join(json.dumps(w) + "\n" for w in work))
    outs = {}
    for label, src in (("ours", str(OURS)), ("base", args.base)):
        outs[label] = cache / f"answers-{label}.jsonl"
        secs = _run_worker(src, work_file, outs[label], home)
        print(f"  {label}: {len(work)} queries in {secs:.0f}s", file=sys.stderr, flush=True)
    ours = outs["ours"].read_text().splitlines()
    base = outs["base"].read_text().splitlines()
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    first = None
    for w, a, b in zip(work, ours, base, strict=True):
        totals[w["set"]][0] += 1
        if a == b:
            totals[w["set"]][1] += 1
        elif first is None:
            first = (w, json.loads(a), json.loads(b))
    for name, (n, same) in totals.items():
        print(f"{name}: {n} queries compared, {same} identical (JSON and text)")
    if first:
        w, a, b = first
        print(
            f"first difference: {w['query']!r} on {w['root']}\n--- this checkout\n{a['json']}\n{a['text']}"
            f"\n--- base\n{b['json']}\n{b['text']}"
        )
        raise SystemExit(1)


if __name__ == "__main__":
    main()
