#!/usr/bin/env python3
"""Ablations of the search method on the shared cases: change one constant, re-measure.

Each VARIANT is a JSON object of overrides: module constants of cairn.search.engine (W_TEXT,
W_NAME, W_CHUNK, W_GRAPH_CLEAR, TEST_FACTOR...), graph_walk (EPS, MAX_NEIGHBOURS), text (FILE_COLUMNS) and names
(MIN_SCORE), plus "rrf_k", "hubs_pass_rank" and "chatty" (wrap queries as `eval run
--conversational` does). Trees are materialized with `git archive` into --cache.

Usage: python bench/ablation.py --mirrors '/work/.mirror/{owner}+{name}/repo' --cache /tmp/cairn-eval \
           '{}' '{"hubs_pass_rank": true}' '{"W_GRAPH_CLEAR": 0, "W_GRAPH_VAGUE": 0}'
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

CASES = Path(__file__).resolve().parents[2] / "shared" / "bench" / "cases"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--mirrors", required=True, help="bare git dir pattern with {owner} and {name}")
    ap.add_argument("--cache", required=True)
    a = ap.parse_args()
    cache = Path(a.cache)
    os.environ["CAIRN_HOME"] = str(cache / "home")
    from cairn.codemap.indexer import index_project, open_index
    from cairn.project import project_for_root
    from cairn.search import engine, graph_walk, names, text
    from cairn.search.eval.metrics import aggregate, case_metrics
    from cairn.search.eval.run import chatty, materialize

    cases = {f.stem: [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
             for f in sorted(CASES.glob("*.jsonl"))}
    cons = {}
    for spec in a.variants:
        kw = json.loads(spec)
        rrf_k, hubs, conv = kw.pop("rrf_k", 60), kw.pop("hubs_pass_rank", False), kw.pop("chatty", False)
        saved = []
        for key, val in kw.items():
            mod = next(m for m in (engine, graph_walk, names, text) if hasattr(m, key))
            saved.append((mod, key, getattr(mod, key)))
            setattr(mod, key, val)
        per_repo = {}
        for repo, cs in cases.items():
            owner, name = repo.split("+", 1)
            rows = []
            for i, c in enumerate(cs):
                if c["snapshot"] not in cons:
                    tree = materialize(Path(a.mirrors.format(owner=owner, name=name)), c["snapshot"], cache / "trees")
                    p = project_for_root(tree)
                    index_project(p)
                    cons[c["snapshot"]] = (open_index(p), tree)
                con, tree = cons[c["snapshot"]]
                q = chatty(c["query"], i) if conv else c["query"]
                hits, _ = engine.search_code(con, q, root=tree, limit=10, rrf_k=rrf_k, hubs_pass_rank=hubs)
                rows.append(case_metrics([h.path for h in hits], c["gold"]))
            per_repo[name] = aggregate(rows)
        for mod, key, val in saved:
            setattr(mod, key, val)
        mean = {k: round(sum(r[k] for r in per_repo.values()) / len(per_repo), 3) for k in ("files@5", "hit@1", "mrr@10")}
        print(spec, mean, {n: (r["files@5"], r["hit@1"]) for n, r in per_repo.items()}, flush=True)


if __name__ == "__main__":
    main()
