#!/usr/bin/env python3
"""Ablations of the search method on the shared case sets: change one thing, re-measure, in-process.

Each VARIANT is a JSON object: fields of the search's Ranking (src/cairn/search/ranking.py) by
dotted name, applied with `ranking.override` (dataclasses.replace) and passed to search_code:
"fusion.name": 0, "fusion.rrf_k": 30, "graph.hubs_pass_rank": true, "roles.in_channels": false,
"roles.code_intent": {"test": 1.0}, "names.min_score": 0, "text.keep_tf_only": false,
"fusion.semantic": 0 (the semantic channel needs `[index] semantic = true` in --cache's
home/config.toml)... An unknown name stops the run. Besides the ranking: "chatty" (wrap queries
as `eval run --conversational` does), "text_defs": false (index files without a grammar as plain
text, as before declaration lines were read) and "no_grammars": [languages] (index those
languages as if they had no grammar); variants that change the index get their own index folder.

--set cases: the commit-subject cases (files@5, hit@1, MRR@10, mean of repositories).
--set semble: the semble set (NDCG@10 as semble defines it: binary gain, ideal over min(10, targets),
mean of per-repository means; also per query category and per language).

Trees: `--trees DIR` reuses trees written by the shared harness (DIR/{owner}+{name}@{sha}); others
are materialized with `git archive` into --cache.

Usage: python bench/ablation.py --set semble --mirrors '/work/.mirror/{owner}+{name}/repo' --cache /tmp/cairn-eval \
           [--trees ~/.cache/cairn-bench/trees] '{}' '{"fusion.defines": 0}' '{"text_defs": false}'
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections import defaultdict
from pathlib import Path

import benchlib

SHARED = benchlib.SHARED_BENCH


def ndcg10(ranked: list[str], targets: list[dict]) -> float:
    """semble's NDCG@10 for file lists (same definition as ../shared/bench/ndcg.py)."""
    seen: list[str] = []
    for r in ranked:
        if r not in seen:
            seen.append(r)
    seen = seen[:10]
    rel = [0] * 10
    for t in targets:
        if t["path"] in seen:
            rel[seen.index(t["path"])] = 1
    idcg = sum(1 / math.log2(i + 2) for i in range(min(10, len(targets))))
    return sum(x / math.log2(i + 2) for i, x in enumerate(rel)) / idcg if idcg else 0.0


def _mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def variant(kw: dict):
    """The shipped Ranking with the variant's fields replaced (dataclasses.replace, via ranking.override)."""
    from cairn.search.ranking import DEFAULT_RANKING, override

    try:
        return override(DEFAULT_RANKING, kw)
    except KeyError as e:
        raise SystemExit(f"unknown ranking field: {e.args[0]}") from None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--set", choices=("cases", "semble"), default="cases")
    ap.add_argument("--mirrors", required=True, help="bare git dir pattern with {owner} and {name}")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--shared", type=Path, default=SHARED, help="the shared bench folder (default ../shared/bench)")
    ap.add_argument("--trees", default="", help="trees written by the shared harness ({owner}+{name}@{sha})")
    a = ap.parse_args()
    cache = Path(a.cache)
    from cairn.search.eval.metrics import aggregate, case_metrics
    from cairn.search.eval.run import chatty, materialize

    files = sorted((a.shared / a.set).glob("*.jsonl"))
    cases = {f.stem: [json.loads(x) for x in f.read_text().splitlines() if x.strip()] for f in files}
    for spec in a.variants:
        kw = json.loads(spec)
        conv = kw.pop("chatty", False)
        text_defs = kw.pop("text_defs", True)
        no_grammars = frozenset(kw.pop("no_grammars", ()))
        home = "home" + ("" if text_defs else "-no-text-defs") + "".join(f"-{g}" for g in sorted(no_grammars))
        os.environ["CAIRN_HOME"] = str(cache / home)
        from cairn.codemap import extract, languages
        from cairn.codemap.index_db import open_index
        from cairn.codemap.indexer import index_project
        from cairn.project import project_for_root
        from cairn.search import engine

        real_is_program, real_code = extract.is_program, languages.CODE_LANGUAGES
        extract.is_program = real_is_program if text_defs else (lambda lang, head: False)
        languages.CODE_LANGUAGES = real_code - no_grammars
        ranking = variant(kw)
        cons: dict = {}
        per_repo, per_cat, lang_of = {}, defaultdict(dict), {}
        for repo, cs in cases.items():
            owner, name = repo.split("+", 1)
            rows, by_cat = [], defaultdict(list)
            for i, c in enumerate(cs):
                if c["snapshot"] not in cons:
                    tree = Path(a.trees) / f"{repo}@{c['snapshot']}" if a.trees else None
                    if tree is None or not tree.is_dir():
                        tree = materialize(
                            Path(a.mirrors.format(owner=owner, name=name)), c["snapshot"], cache / "trees"
                        )
                    p = project_for_root(tree)
                    index_project(p)
                    cons[c["snapshot"]] = (open_index(p), tree)
                con, tree = cons[c["snapshot"]]
                q = chatty(c["query"], i) if conv else c["query"]
                hits, _ = engine.search_code(con, q, root=tree, limit=10, kind="auto", ranking=ranking)
                top = [h.path for h in hits]
                if a.set == "semble":
                    score = ndcg10(top, c["targets"])
                    rows.append(score)
                    by_cat[c["category"]].append(score)
                    lang_of[repo] = c["language"]
                else:
                    rows.append(case_metrics(top, c["gold"]))
            if a.set == "semble":
                per_repo[repo] = _mean(rows)
                for cat, xs in by_cat.items():
                    per_cat[cat][repo] = _mean(xs)
            else:
                per_repo[name] = aggregate(rows)
        for con, _ in cons.values():
            con.close()
        extract.is_program, languages.CODE_LANGUAGES = real_is_program, real_code
        if a.set == "semble":
            langs = defaultdict(list)
            for repo, s in per_repo.items():
                langs[lang_of[repo]].append(s)
            out = {"ndcg@10": round(_mean(per_repo.values()), 3)}
            out.update({cat: round(_mean(reps.values()), 3) for cat, reps in sorted(per_cat.items())})
            out["languages"] = {lang: round(_mean(v), 3) for lang, v in sorted(langs.items())}
            print(spec, json.dumps(out), flush=True)
        else:
            mean = {k: round(_mean(r[k] for r in per_repo.values()), 3) for k in ("files@5", "hit@1", "mrr@10")}
            print(spec, mean, {n: (r["files@5"], r["hit@1"]) for n, r in per_repo.items()}, flush=True)


if __name__ == "__main__":
    main()
