"""Run cases against cairn's search and against a flat BM25 baseline, on the tree before each change.

Trees are materialized once per snapshot with `git archive` into a cache folder and indexed with a
CAIRN_HOME inside that cache, so an evaluation never touches the user's own indexes. The baseline
is BM25 over whole files (SQLite FTS5, unicode61 + porter, query words OR-ed, stopwords dropped):
what "just grep it with BM25" gives, the bar a ranking change must beat.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import tarfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from cairn.errors import CairnError
from cairn.search.eval.metrics import aggregate, case_metrics
from cairn.text.tokens import fts_or_query, query_terms


def materialize(git_dir: Path, sha: str, dest: Path) -> Path:
    """Extract the tree of `sha` into dest/<sha> once (a `.complete` marker makes it resumable)."""
    tree = dest / sha
    if (tree / ".cairn-eval-complete").exists():
        return tree
    tree.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        ["git", f"--git-dir={git_dir}", "archive", "--format=tar", sha], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            tar.extractall(tree, filter="data")
    finally:
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if proc.wait() != 0:
            raise CairnError(f"git archive {sha[:12]} failed: {err.strip()[:200]}")
    (tree / ".cairn-eval-complete").write_text("")
    return tree


def prune_cache(cache: Path) -> tuple[int, int]:
    """Delete what `run_cases` keeps under `cache` (its `trees/` and the indexes in `home/`, nothing
    else there); (trees removed, bytes freed)."""
    import shutil

    trees = [p for p in (cache / "trees").iterdir() if p.is_dir()] if (cache / "trees").is_dir() else []
    freed = 0
    for top in [cache / "trees", cache / "home"]:
        if top.is_dir() and not top.is_symlink():
            freed += sum(f.stat().st_size for f in top.rglob("*") if f.is_file() and not f.is_symlink())
            shutil.rmtree(top)
    return len(trees), freed


def _git_dir(repo: Path) -> Path:
    out = subprocess.run(["git", "-C", str(repo), "rev-parse", "--absolute-git-dir"], capture_output=True, text=True)
    if out.returncode != 0:
        raise CairnError(f"{repo}: not a git repository")
    return Path(out.stdout.strip())


class FlatBM25:
    """BM25 over whole files of a tree, in memory: the baseline."""

    def __init__(self, root: Path, paths: list[str]):
        self.con = sqlite3.connect(":memory:")
        self.con.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
        self.paths = paths
        for i, p in enumerate(paths):
            try:
                text = (root / p).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self.con.execute("INSERT INTO f(rowid, body) VALUES(?, ?)", (i, p.replace("/", " ") + "\n" + text))

    def search(self, query: str, limit: int = 10) -> list[str]:
        expr = fts_or_query(query_terms(query))
        if not expr:
            return []
        rows = self.con.execute("SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?", (expr, limit))
        return [self.paths[r[0]] for r in rows]


# Conversational wrappers: real requests to an agent are long and full of common words. Wrapping
# each commit subject in one of these (chosen by the case's position, so runs are repeatable)
# measures how much a ranking is pulled off course by chatter around the same need.
CHATTY = [
    "ok so now can you please take a look at this, we need to {q}, I think it is somewhere in the code but "
    "I am not sure where, thanks",
    "hey, next thing on the list: {q}. can you find where that happens and tell me what you would change?",
    "so the user reported something again and I want to fix it properly this time: {q}. where should we start?",
    "before we do anything else, let's {q} -- look at the current implementation first and check how it works",
]


def chatty(query: str, i: int) -> str:
    """The request wrapped in everyday conversational filler (deterministic per case index)."""
    return CHATTY[i % len(CHATTY)].format(q=query[0].lower() + query[1:] if query else query)


def run_cases(
    cases: list[dict],
    repo: Path,
    cache: Path,
    *,
    baseline: bool = True,
    conversational: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Metrics per system (and per case) for cases of one repository (optionally wrapped in chatter)."""
    from cairn.codemap.indexer import index_project, open_index
    from cairn.project import project_for_root
    from cairn.search.engine import search_code

    git_dir = _git_dir(repo)
    by_snapshot: dict[str, list[dict]] = defaultdict(list)
    for c in cases:
        by_snapshot[c["snapshot"]].append(c)
    old_home = os.environ.get("CAIRN_HOME")
    os.environ["CAIRN_HOME"] = str(cache / "home")
    rows: dict[str, list[dict]] = defaultdict(list)
    latency: dict[str, list[float]] = defaultdict(list)
    per_case: list[dict] = []
    index_seconds: list[float] = []
    try:
        for sha, group in by_snapshot.items():
            tree = materialize(git_dir, sha, cache / "trees")
            project = project_for_root(tree)
            t0 = time.perf_counter()
            index_project(project)
            index_seconds.append(time.perf_counter() - t0)
            con = open_index(project)
            flat = None
            if baseline:
                paths = [r[0] for r in con.execute("SELECT path FROM files ORDER BY path")]
                flat = FlatBM25(tree, paths)
            for c in group:
                query = chatty(c["query"], len(per_case)) if conversational else c["query"]
                t1 = time.perf_counter()
                hits, _ = search_code(con, query, root=tree, limit=10)
                latency["cairn"].append(time.perf_counter() - t1)
                got = [h.path for h in hits]
                m = case_metrics(got, c["gold"])
                rows["cairn"].append(m)
                entry = {"commit": c["commit"], "query": query, "gold": c["gold"], "cairn": got[:5], **m}
                if flat is not None:
                    t1 = time.perf_counter()
                    fgot = flat.search(query)
                    latency["bm25-files"].append(time.perf_counter() - t1)
                    rows["bm25-files"].append(case_metrics(fgot, c["gold"]))
                    entry["bm25-files"] = fgot[:5]
                per_case.append(entry)
                if progress:
                    progress(c["query"])
            con.close()
    finally:
        if old_home is None:
            os.environ.pop("CAIRN_HOME", None)
        else:
            os.environ["CAIRN_HOME"] = old_home
    systems = {
        name: {**aggregate(r), "ms/query": round(1000 * sum(latency[name]) / max(len(latency[name]), 1), 1)}
        for name, r in rows.items()
    }
    return {
        "cases": len(per_case),
        "snapshots": len(by_snapshot),
        "index_seconds": round(sum(index_seconds) / max(len(index_seconds), 1), 2),
        "systems": systems,
        "per_case": per_case,
    }
