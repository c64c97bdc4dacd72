"""A workspace of repositories: search speed from a warm process, and what the merge costs in quality.

Puts every folder under --trees into a workspace (CAIRN_HOME=--home, each folder indexed there
first: `cairn index --root DIR`), then, in this process with indexes kept open as the warm
servers keep them (search/index_cache.keep_open), runs the requests of the given query sets:

- speed: a warm-up round, then --rounds timed rounds of every request as a workspace search
  (workspace/fanout.search, home = the set's repository): wall and CPU milliseconds per request,
  p50 / p90, with the load average (the machine is shared);
- quality: for each request, whether its gold files are in the top --k of its own repository
  searched alone (search/service.ranked) and of the workspace merge (labelled `member:path`),
  the home being the request's repository, and being another member (--away).

    python bench/workspace_speed.py --trees /work/runs/workspace40/trees --home /work/runs/workspace40/home \\
        --set chi=/work/shared/bench/semble/go-chi+chi.jsonl --set click=/work/shared/bench/semble/pallets+click.jsonl \\
        --set httpx=/work/shared/bench/cases/encode+httpx.jsonl --away cc-backend
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

WARM_UP = ("error handling and retries", "configuration file parsing", "command line flags", "tests for the parser")


def _load(spec: str) -> tuple[str, list[dict]]:
    name, _, path = spec.partition("=")
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return name, rows


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trees", required=True, help="a folder whose sub-folders are the workspace's repositories")
    ap.add_argument("--home", required=True, help="CAIRN_HOME to use (indexes built there)")
    ap.add_argument("--set", action="append", default=[], help="MEMBER=FILE.jsonl: requests (query, gold) of a member")
    ap.add_argument("--away", default="", help="also search each set from this member (another home)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    os.environ["CAIRN_HOME"] = str(Path(args.home).resolve())
    os.environ["CAIRN_WARM"] = "0"

    from cairn.project import project_for_root
    from cairn.search.index_cache import keep_open
    from cairn.workspace import fanout
    from cairn.workspace.members import load
    from cairn.workspace.registry import write_entries

    roots = sorted(p.resolve() for p in Path(args.trees).iterdir() if p.is_dir())
    write_entries(roots)
    keep_open(True)
    sets = [_load(s) for s in args.set]
    files = 0
    for r in roots:
        import sqlite3

        con = sqlite3.connect(f"file:{project_for_root(r).index_path()}?mode=ro", uri=True)
        files += con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        con.close()
    print(f"workspace: {len(roots)} members, {files} indexed files")

    def ws_for(name: str):  # noqa: ANN202
        root = next(r for r in roots if r.name == name)
        return load(project_for_root(root))

    homes = {name: ws_for(name) for name, _ in sets}
    if args.away:
        homes["@away"] = ws_for(args.away)
    for name in homes:  # warm-up on other words: every member's index opened and its file-list facts read
        for text in WARM_UP:
            fanout.search(homes[name], text, limit=args.k, refresh=False)
    walls: list[float] = []
    cpus: list[float] = []
    for _round in range(args.rounds):  # the first round meets each request for the first time
        for name, rows in sets:
            for row in rows:
                w, c = time.perf_counter(), time.process_time()
                fanout.search(homes[name], row["query"], limit=args.k, refresh=False)
                walls.append((time.perf_counter() - w) * 1000)
                cpus.append((time.process_time() - c) * 1000)
    load1 = os.getloadavg()
    print(
        f"speed: {len(walls)} workspace searches: wall p50 {_pct(walls, 0.5):.0f} ms, p90 {_pct(walls, 0.9):.0f} ms; "
        f"CPU p50 {_pct(cpus, 0.5):.0f} ms, mean {statistics.mean(cpus):.0f} ms; load average {load1[0]:.2f} {load1[1]:.2f}"
    )
    for merge in ("selected", "rrf"):
        fanout.MERGE = merge
        print(f"merge {merge}:")
        _quality(args, sets, roots, homes)
    sys.stdout.flush()
    return 0


def _quality(args: argparse.Namespace, sets: list, roots: list, homes: dict) -> None:
    from cairn.project import project_for_root
    from cairn.search.service import ranked
    from cairn.workspace import fanout

    for name, rows in sets:
        project = project_for_root(next(r for r in roots if r.name == name))
        alone = home_ws = away = 0
        for row in rows:
            gold = set(row["gold"])
            hits, _ = ranked(project, row["query"], limit=args.k, refresh=False)
            alone += bool(gold & {h.path for h in hits[: args.k]})
            want = {f"{name}:{g}" for g in gold}
            ans, _ = fanout.search(homes[name], row["query"], limit=args.k, refresh=False)
            home_ws += bool(want & {r["path"] for r in ans.results})
            if args.away:
                ans, _ = fanout.search(homes["@away"], row["query"], limit=args.k, refresh=False)
                away += bool(want & {r["path"] for r in ans.results})
        n = len(rows)
        line = f"quality {name} ({n} requests): gold in top {args.k}: alone {alone / n:.3f}, workspace from {name} {home_ws / n:.3f}"
        print(line + (f", from {args.away} {away / n:.3f}" if args.away else ""))


if __name__ == "__main__":
    raise SystemExit(main())
