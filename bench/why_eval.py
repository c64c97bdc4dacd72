#!/usr/bin/env python3
"""Do "why did we ..." questions find the decision record ahead of code and docs?

For every decision record cairn finds in a tree (docs/adr, RFC folders, record-shaped files), the
question is "why did we <the record's title, lowercased>?" and the record is the answer. Reported
per tree: hit@1 (the record is the first result of the default kind, `auto`, as a plain
`cairn search "why did we ..."` gives it), MRR@10, how often the record ranks ahead of every code
or doc file, hit@1 when asked "what did we decide about <title>?", hit@1 for flat BM25 over all files, and for pairs
where one record supersedes another, how often the live one ranks first. The last row sums all
trees (micro: every record counts once).
The question reuses the title's words, so this measures ranking among files that share them
(code and docs that mention the topic), not paraphrase.

Usage: python bench/why_eval.py TREE [TREE ...]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import benchlib

benchlib.checkout_src()


def main() -> None:
    benchlib.usage(__doc__, 1)
    os.environ["CAIRN_HOME"] = tempfile.mkdtemp(prefix="cairn-why-")
    from cairn.codemap.indexer import index_project, open_index
    from cairn.project import project_for_root
    from cairn.search.engine import search_code
    from cairn.search.eval.run import FlatBM25

    print(
        "| tree | records | hit@1 | MRR@10 | ahead of all code/docs | hit@1 'what did we decide about ...' | flat BM25 hit@1 "
        "| live before superseded |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    sums = [0, 0, 0.0, 0, 0, 0, 0, 0]
    for arg in sys.argv[1:]:
        tree = Path(arg).resolve()
        project = project_for_root(tree)
        index_project(project)
        con = open_index(project)
        recs = con.execute(
            "SELECT n.id, n.title, n.state, n.superseded_by, f.path FROM nodes n "
            "JOIN files f ON f.id = n.file_id WHERE n.origin = 'adr'"
        ).fetchall()
        if not recs:
            print(f"| {tree.name} | 0 | | | | | | |")
            continue
        flat = FlatBM25(tree, [r[0] for r in con.execute("SELECT path FROM files ORDER BY path")])
        hit = mrr = ahead = flat_hit = all_hit = 0
        for r in recs:
            q = f"why did we {r['title'][0].lower() + r['title'][1:]}?"
            other = f"what did we decide about {r['title'][0].lower() + r['title'][1:]}?"
            both, _ = search_code(con, other, root=tree, limit=10, kind="auto")
            all_hit += [h.path for h in both[:1]] == [r["path"]]
            hits, _ = search_code(con, q, root=tree, limit=10, kind="auto")
            paths = [h.path for h in hits]
            if r["path"] in paths:
                i = paths.index(r["path"])
                mrr += 1 / (i + 1)
                hit += i == 0
                ahead += all(h.kind == "knowledge" for h in hits[:i])
            flat_hit += flat.search(q, 1)[:1] == [r["path"]]
        pairs = ok = 0
        for r in recs:
            if r["state"] == "superseded" and r["superseded_by"]:
                live = con.execute(
                    "SELECT n.title, f.path FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id = ?",
                    (r["superseded_by"],),
                ).fetchone()
                if live is None:
                    continue
                pairs += 1
                hits, _ = search_code(con, f"why did we {r['title'].lower()}?", root=tree, limit=20, kind="knowledge")
                paths = [h.path for h in hits]
                ok += live["path"] in paths and (
                    r["path"] not in paths or paths.index(live["path"]) < paths.index(r["path"])
                )
        n = len(recs)
        print(
            f"| {tree.name} | {n} | {hit / n:.2f} | {mrr / n:.2f} | {ahead / n:.2f} | {all_hit / n:.2f} | "
            f"{flat_hit / n:.2f} | {ok}/{pairs} |"
        )
        for i, v in enumerate((n, hit, mrr, ahead, all_hit, flat_hit, ok, pairs)):
            sums[i] += v
        con.close()
    n, hit, mrr, ahead, all_hit, flat_hit, ok, pairs = sums
    if n:
        print(
            f"| **all trees** | {n} | {hit / n:.2f} | {mrr / n:.2f} | {ahead / n:.2f} | {all_hit / n:.2f} | "
            f"{flat_hit / n:.2f} | {ok}/{pairs} |"
        )


if __name__ == "__main__":
    main()
