#!/usr/bin/env python3
"""Ablations of the search method on the shared case sets: change one thing, re-measure, in-process.

Each VARIANT is a JSON object of overrides: module constants of cairn.search.engine (W_TEXT, W_NAME,
W_CHUNK, W_PATH, W_PATH_CHANGE, W_DEFINES, CHUNK_SPREAD, ROLES_IN_CHANNELS, W_GRAPH_CLEAR...), roles
(CODE_INTENT, DOC_INTENT), query (SYM_*, KEY_*, _COUNTED), names (MIN_SCORE, NAMED_FILE...), paths
(STEM_PART, PARTIAL...), text (KEEP_TF_ONLY, FILE_COLUMNS), chunks, graph_walk (EPS, MAX_NEIGHBOURS),
semantic (FILE_SHARE, DEPTH; W_SEMANTIC is engine's: the channel needs `[index] semantic = true` in
--cache's home/config.toml, W_SEMANTIC 0 is then the channel off),
plus "rrf_k", "hubs_pass_rank", "chatty" (wrap queries as `eval run --conversational` does),
"text_defs": false (index files without a grammar as plain text, as before declaration lines were
read) and "no_grammars": [languages] (index those languages as if they had no grammar); variants
that change the index get their own index folder.

--set cases: the commit-subject cases (files@5, hit@1, MRR@10, mean of repositories).
--set semble: the semble set (NDCG@10 as semble defines it: binary gain, ideal over min(10, targets),
mean of per-repository means; also per query category and per language).

Trees: `--trees DIR` reuses trees written by the shared harness (DIR/{owner}+{name}@{sha}); others
are materialized with `git archive` into --cache.

Usage: python bench/ablation.py --set semble --mirrors '/work/.mirror/{owner}+{name}/repo' --cache /tmp/cairn-eval \
           [--trees ~/.cache/cairn-bench/trees] '{}' '{"W_DEFINES": 0}' '{"text_defs": false}'
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


def _patch(kw: dict) -> list:
    from cairn.codemap import textdefs
    from cairn.search import chunks, engine, graph_walk, names, paths, phrases, query, roles, semantic, text

    mods = (engine, roles, query, names, paths, text, chunks, graph_walk, textdefs, semantic, phrases)
    saved = []
    for key, val in kw.items():
        mod = next((m for m in mods if hasattr(m, key)), None)
        if mod is None:
            raise SystemExit(f"unknown constant {key}")
        saved.append((mod, key, getattr(mod, key)))
        setattr(mod, key, val)
    return saved


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--set", choices=("cases", "semble"), default="cases")
    ap.add_argument("--mirrors", required=True, help="bare git dir pattern with {owner} and {name}")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--trees", default="", help="trees written by the shared harness ({owner}+{name}@{sha})")
    a = ap.parse_args()
    cache = Path(a.cache)
    from cairn.search.eval.metrics import aggregate, case_metrics
    from cairn.search.eval.run import chatty, materialize

    files = sorted((SHARED / a.set).glob("*.jsonl"))
    cases = {f.stem: [json.loads(x) for x in f.read_text().splitlines() if x.strip()] for f in files}
    for spec in a.variants:
        kw = json.loads(spec)
        rrf_k, hubs, conv = kw.pop("rrf_k", 60), kw.pop("hubs_pass_rank", False), kw.pop("chatty", False)
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
        saved = _patch(kw)
        cons: dict = {}
        per_repo, per_cat, lang_of = {}, defaultdict(dict), {}
        for repo, cs in cases.items():
            owner, name = repo.split("+", 1)
            rows, by_cat = [], defaultdict(list)
            for i, c in enumerate(cs):
                if c["snapshot"] not in cons:
                    tree = Path(a.trees) / f"{repo}@{c['snapshot']}" if a.trees else None
                    if tree is None or not tree.is_dir():
                        tree = materialize(Path(a.mirrors.format(owner=owner, name=name)), c["snapshot"],
                                           cache / "trees")
                    p = project_for_root(tree)
                    index_project(p)
                    cons[c["snapshot"]] = (open_index(p), tree)
                con, tree = cons[c["snapshot"]]
                q = chatty(c["query"], i) if conv else c["query"]
                hits, _ = engine.search_code(con, q, root=tree, limit=10, rrf_k=rrf_k, hubs_pass_rank=hubs,
                                             kind="auto")
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
        for mod, key, val in saved:
            setattr(mod, key, val)
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
