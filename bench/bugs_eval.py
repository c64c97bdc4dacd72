#!/usr/bin/env python3
"""Bug reports (bench/bugs/*.jsonl, issue 38): does search put the file the fix changed first?

Each case is a public issue (its title and description as the query), the commit that fixed it,
and its parent (`base`), the tree the report was written against; gold = the non-test files the
fix changed, and the old-side line ranges of its hunks (bench/bugs_mine.py says how they were
mined). Each base tree is written once with `git archive` into --cache and indexed with cairn in
process (CAIRN_HOME = --cache/home, kept). Reported per repository and as the mean of the
repositories (macro), for cairn (each VARIANT: Ranking fields by dotted name, as ablation.py)
and for flat BM25 (`--bm25`: the shared harness's bm25-files, bm25s over path + content):

- Acc@1 / Acc@5: every gold file is in the top 1 / 5 (SWE-bench's file-level localisation);
- fn@5: a changed function is among the first 5 functions the answer lists. The changed
  functions are the innermost definitions of the base index (functions, methods, classes...)
  whose lines hold a hunk; cases whose hunks touch no definition are left out of fn@5. cairn's
  functions are each hit's `symbols` in order; BM25's come from BM25 over every definition's
  lines (path + text), the same definitions as the gold.

`--loo` picks, for each repository, the variant best on the other repositories (macro Acc@5,
then Acc@1; `--loo-by fn@5` for the function-level weights) and reports the held-out repository
under it. `-v` prints each miss's top 3. ms_p50: one
query's wall time in process, the index open and warm (its first run with this variant).

Usage: python bench/bugs_eval.py --cache /work/runs/bugs38 [--mirrors '/work/.mirror/{owner}+{name}/repo'] \\
           [--cases 'bench/bugs/*.jsonl'] [--bm25] [--loo] [-v] '{}' '{"fusion.trace": 0}'
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from pathlib import Path

import benchlib

HERE = Path(__file__).resolve().parent
DEF_KINDS = ("function", "method", "class", "struct", "impl", "interface", "trait", "enum", "type", "macro", "module")


def _gold_functions(con, gold: list[str], hunks: dict[str, list[list[int]]]) -> set[tuple[str, str]]:
    """The innermost definitions of the base index whose lines hold a hunk of the fix."""
    out: set[tuple[str, str]] = set()
    marks = ",".join("?" * len(DEF_KINDS))
    for path in gold:
        rows = con.execute(
            f"SELECT s.name, s.line, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id "
            f"WHERE f.path = ? AND s.kind IN ({marks}) AND s.end_line >= s.line",
            (path, *DEF_KINDS),
        ).fetchall()
        for a, b in hunks.get(path, []):
            inside = [r for r in rows if r[1] <= b and r[2] >= a]
            if inside:
                best = min(inside, key=lambda r: r[2] - r[1])
                out.add((path, best[0]))
    return out


def _row(files: list[str], funcs: list[tuple[str, str]], gold: list[str], gold_fn: set) -> dict:
    return {
        "acc@1": float(all(g in files[:1] for g in gold)),
        "acc@5": float(all(g in files[:5] for g in gold)),
        "fn@5": (float(any(f in gold_fn for f in funcs[:5])) if gold_fn else None),
    }


def _agg(rows: list[dict]) -> dict:
    out = {}
    for k in ("acc@1", "acc@5", "fn@5"):
        xs = [r[k] for r in rows if r[k] is not None]
        out[k] = round(sum(xs) / len(xs), 3) if xs else float("nan")
    out["n"] = len(rows)
    return out


def _macro(per_repo: dict[str, dict]) -> dict:
    return {k: round(sum(v[k] for v in per_repo.values()) / len(per_repo), 3) for k in ("acc@1", "acc@5", "fn@5")} | {
        "n": sum(v["n"] for v in per_repo.values())
    }


class Bm25:
    """Flat BM25 as the shared harness's bm25-files (bm25s, lucene, k1 1.5, b 0.75), over files and
    over definitions."""

    def __init__(self) -> None:
        sys.path.insert(0, str(benchlib.SHARED_BENCH))
        try:
            import bm25s  # noqa: F401
        except ImportError:  # the team's bench venv (/work/runs/benchvenv) holds bm25s==0.3.16
            for sp in glob.glob("/work/runs/benchvenv/lib/python3*/site-packages"):
                sys.path.append(sp)
        import run_eval

        self.tokenize = run_eval.tokenize

    def rank(self, docs: list[str], names: list, query: str, k: int = 10) -> list:
        import bm25s
        import numpy as np

        model = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        model.index([self.tokenize(d) or ["<empty>"] for d in docs], show_progress=False)
        toks = [t for t in self.tokenize(query) if t in model.vocab_dict]
        if not toks:
            return []
        scores = model.get_scores(toks)
        order = np.argsort(-scores, kind="stable")[:k]
        return [names[i] for i in order if scores[i] > 0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="*", default=["{}"])
    ap.add_argument("--cache", required=True, help="trees and the CAIRN_HOME of their indexes (kept)")
    ap.add_argument("--mirrors", default="/work/.mirror/{owner}+{name}/repo")
    ap.add_argument("--cases", default=str(HERE / "bugs" / "*.jsonl"))
    ap.add_argument("--bm25", action="store_true", help="also flat BM25 over files and over definitions")
    ap.add_argument("--loo", action="store_true")
    ap.add_argument("--loo-by", default="acc@5,acc@1", help="what --loo chooses a variant by, in order (fn@5 too)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    cache = Path(a.cache)
    os.environ["CAIRN_HOME"] = str(cache / "home")
    from materialize import materialize

    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root
    from cairn.search.engine import search_code
    from cairn.search.ranking import DEFAULT_RANKING, override

    cases = [json.loads(x) for f in sorted(glob.glob(a.cases)) for x in Path(f).read_text().splitlines() if x.strip()]
    cons: dict[str, tuple] = {}

    def open_case(c: dict):
        if c["base"] not in cons:
            owner, name = c["repo"].split("/")
            tree = cache / "trees" / c["base"]
            if not (tree / ".bugs-complete").exists():  # bench/materialize.py: blobs the snapshot lacks left out
                materialize(a.mirrors.format(owner=owner, name=name), c["base"], tree)
                (tree / ".bugs-complete").write_text(c["base"])
            project = project_for_root(tree)
            index_project(project)
            cons[c["base"]] = (open_index(project), tree)
        return cons[c["base"]]

    gold_fn = {}
    for c in cases:
        con, _ = open_case(c)
        gold_fn[(c["repo"], c["issue"])] = _gold_functions(con, c["gold"], c["hunks"])
    table: dict[str, dict[str, dict]] = {}
    for spec in a.variants:
        ranking = override(DEFAULT_RANKING, json.loads(spec))
        per: dict[str, list[dict]] = {}
        times = []
        for c in cases:
            con, tree = open_case(c)
            started = time.perf_counter()
            hits, _ = search_code(con, c["query"], root=tree, limit=10, ranking=ranking)
            times.append(time.perf_counter() - started)
            files = [h.path for h in hits]
            funcs = [(h.path, s) for h in hits for s in h.symbols]
            gf = gold_fn[(c["repo"], c["issue"])]
            row = _row(files, funcs, c["gold"], gf)
            per.setdefault(c["repo"], []).append(row)
            if a.verbose and not row["acc@1"]:
                print(
                    f"  miss {c['repo']}#{c['issue']} gold {c['gold']}: {files[:3]}  fn {funcs[:3]}  gold fn {sorted(gf)[:3]}"
                )
        table[spec] = {r: _agg(rows) for r, rows in per.items()}
        p50 = round(1000 * sorted(times)[len(times) // 2], 1)
        print(json.dumps({"variant": spec, "macro": _macro(table[spec]), "ms_p50": p50, "per_repo": table[spec]}))
    if a.bm25:
        bm = Bm25()
        per = {}
        for c in cases:
            con, tree = open_case(c)
            paths = [r[0] for r in con.execute("SELECT path FROM files ORDER BY path")]
            docs = []
            for p in paths:
                try:
                    docs.append(p + "\n" + (tree / p).read_text(encoding="utf-8", errors="replace"))
                except OSError:
                    docs.append(p)
            files = bm.rank(docs, paths, c["query"])
            marks = ",".join("?" * len(DEF_KINDS))
            defs = con.execute(
                f"SELECT f.path, s.name, s.line, s.end_line FROM symbols s JOIN files f ON f.id = s.file_id "
                f"WHERE s.kind IN ({marks}) AND s.end_line >= s.line",
                DEF_KINDS,
            ).fetchall()
            texts: dict[str, list[str]] = {}
            ddocs = []
            for path, _name, lo, hi in defs:
                if path not in texts:
                    try:
                        texts[path] = (tree / path).read_text(encoding="utf-8", errors="replace").splitlines()
                    except OSError:
                        texts[path] = []
                ddocs.append(path + "\n" + "\n".join(texts[path][lo - 1 : hi]))
            funcs = bm.rank(ddocs, [(d[0], d[1]) for d in defs], c["query"])
            per.setdefault(c["repo"], []).append(_row(files, funcs, c["gold"], gold_fn[(c["repo"], c["issue"])]))
        agg = {r: _agg(rows) for r, rows in per.items()}
        print(json.dumps({"variant": "bm25-files", "macro": _macro(agg), "per_repo": agg}))
    if a.loo and len(table) > 1:
        held = {}
        for repo in next(iter(table.values())):

            def score(spec: str, repo: str = repo) -> tuple[float, ...]:
                others = {r: v for r, v in table[spec].items() if r != repo}
                m = _macro(others)
                return tuple(m[k] for k in a.loo_by.split(","))

            best = max(table, key=score)
            held[repo] = table[best][repo] | {"variant": best}
        print(json.dumps({"loo": _macro(held), "per_repo": held}))
    for con, _ in cons.values():
        con.close()


if __name__ == "__main__":
    main()
