#!/usr/bin/env python3
"""Decision questions (../shared/bench/decisions): does the search put the design record first?

In process, each tree indexed once into `--home` and reused (`--renodes` rebuilds only what a
change of record detection needs: the graph stage, knowledge nodes included). Each VARIANT is a
JSON object: Ranking fields by dotted name (ranking.override), plus "kind" (auto, knowledge, code,
all; default auto). Prints hit@1 / files@5 / MRR@10 per repository and their mean (macro), and with
`--loo` the leave-one-repository-out choice among the variants: for each repository, the variant
best on the other repositories (macro hit@1, then files@5) and the held-out repository's figures
under it. `-v` prints each miss's top 3. `--extra` adds this checkout's own development repositories
(bench/decisions_extra, other layouts: a design/ folder, a folder per RFC, dated proposals); `--mirrors`
writes a tree the `--trees` folder lacks from its bare git directory (bench/materialize.py).

Usage: python bench/decisions_eval.py --trees T --home H [--cases GLOB ...] [--extra] [--mirrors M] [--loo] [-v]
       '{}' '{"kind": "knowledge"}'
"""

from __future__ import annotations

import argparse
import glob
import json
import os
from pathlib import Path

import benchlib

METRICS = ("hit@1", "files@5", "mrr")
EXTRA = benchlib.BENCH / "decisions_extra"


def _case_rows(hits: list[str], gold: list[str]) -> dict[str, float]:
    first = next((i for i, p in enumerate(hits[:10]) if p in gold), None)
    return {
        "hit@1": float(first == 0),
        "files@5": sum(1 for g in gold if g in hits[:5]) / len(gold),
        "mrr": 1.0 / (first + 1) if first is not None else 0.0,
    }


def _mean(rows: list[dict[str, float]], key: str) -> float:
    return sum(r[key] for r in rows) / len(rows) if rows else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--trees", required=True, help="trees of the shared harness ({owner}+{name}@{sha})")
    ap.add_argument("--home", required=True, help="CAIRN_HOME holding the indexes (kept between runs)")
    ap.add_argument("--cases", action="append", help="case files (glob; repeatable); default: the shared set")
    ap.add_argument("--extra", action="store_true", help="also bench/decisions_extra/*.jsonl")
    ap.add_argument("--mirrors", help="bare git directories ({owner}, {name}) for trees not yet written")
    ap.add_argument("--renodes", action="store_true", help="rebuild the graph stage (record detection changed)")
    ap.add_argument("--loo", action="store_true", help="leave-one-repository-out choice among the variants")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    os.environ["CAIRN_HOME"] = a.home
    from cairn.codemap.index_db import open_index
    from cairn.codemap.index_meta import IndexMeta
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root
    from cairn.search.engine import search_code
    from cairn.search.ranking import DEFAULT_RANKING, override

    globs = a.cases or [str(benchlib.SHARED_BENCH / "decisions" / "*.jsonl")]
    if a.extra:
        globs.append(str(EXTRA / "*.jsonl"))
    cases: dict[str, list[dict]] = {}
    for f in sorted(f for g in globs for f in glob.glob(g)):
        for line in Path(f).read_text().splitlines():
            if line.strip():
                c = json.loads(line)
                cases.setdefault(c["repo"], []).append(c)
    cons = {}
    for repo, cs in cases.items():
        tree = Path(a.trees) / f"{repo.replace('/', '+')}@{cs[0]['snapshot']}"
        if not tree.is_dir() and a.mirrors:
            from materialize import materialize

            owner, name = repo.split("/")
            materialize(a.mirrors.format(owner=owner, name=name), cs[0]["snapshot"], tree)
        project = project_for_root(tree)
        index_project(project)
        con = open_index(project)
        if a.renodes:
            with con:
                IndexMeta.write(con, graph_dirty=True)
            con.close()
            index_project(project)
            con = open_index(project)
        cons[repo] = (con, tree)
    table: dict[str, dict[str, dict[str, float]]] = {}
    for spec in a.variants:
        kw = json.loads(spec)
        kind = kw.pop("kind", "auto")
        ranking = override(DEFAULT_RANKING, kw)
        per_repo = {}
        for repo, cs in cases.items():
            con, tree = cons[repo]
            rows = []
            for c in cs:
                hits, _ = search_code(con, c["query"], root=tree, limit=10, kind=kind, ranking=ranking)
                paths = [h.path for h in hits]
                rows.append(_case_rows(paths, c["gold"]))
                if a.verbose and rows[-1]["hit@1"] < 1:
                    rank = next((i + 1 for i, p in enumerate(paths) if p in c["gold"]), None)
                    print(f"  MISS {repo} [{c.get('kind')}] {c['query']!r} gold={c['gold'][0]} at {rank}")
                    for h in hits[:3]:
                        print(f"      {h.kind[:4]} {h.path}  {'; '.join(h.why[:2])}")
            per_repo[repo] = {m: _mean(rows, m) for m in METRICS}
        table[spec] = per_repo
        macro = {m: sum(r[m] for r in per_repo.values()) / len(per_repo) for m in METRICS}
        print(spec, " ".join(f"{m} {macro[m]:.3f}" for m in METRICS), flush=True)
        for repo, r in per_repo.items():
            print(f"    {repo:36s} " + " ".join(f"{m} {r[m]:.3f}" for m in METRICS), flush=True)
    if a.loo and len(table) > 1:
        print("leave-one-repository-out:")
        held = []
        for repo in cases:

            def dev(spec: str, out: str = repo) -> tuple[float, float]:
                rows = [r for name, r in table[spec].items() if name != out]
                return (sum(r["hit@1"] for r in rows) / len(rows), sum(r["files@5"] for r in rows) / len(rows))

            best = max(table, key=dev)
            held.append(table[best][repo])
            print(
                f"    {repo:36s} chose {best} on the others; held out: "
                + " ".join(f"{m} {table[best][repo][m]:.3f}" for m in METRICS)
            )
        print("    macro of held-out: " + " ".join(f"{m} {sum(r[m] for r in held) / len(held):.3f}" for m in METRICS))
    for con, _ in cons.values():
        con.close()


if __name__ == "__main__":
    main()
