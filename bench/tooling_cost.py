"""What the tooling channel (search/tooling.py) and the file-list triggers (schema v5) cost.

Usage: python bench/tooling_cost.py INDEX_DB [SESSIONS_JSONL ...]

- words: `asked_tools` over the prompts of the given session cases (`../shared/bench/sessions/*.jsonl`,
  their "query" field), p50 / p95 / max per prompt, after its one-time compile (also printed);
- files: `_files_of`, the narrow LIKE query of each table row, on the index INDEX_DB (read-only), and
  what a regex over every path (the first version) cost on the same index;
- triggers: 100,000 inserts into an in-memory `files` table with and without the v5 trigger, CPU.
"""

from __future__ import annotations

import json
import re
import sqlite3
import statistics
import sys
import time

import benchlib

from cairn.search import tooling


def _ms(t: float) -> float:
    return round((time.perf_counter() - t) * 1000, 3)


def words(paths: list[str]) -> None:
    prompts = [json.loads(line).get("query") or "" for p in paths for line in open(p, encoding="utf-8")]
    t = time.perf_counter()
    tooling.asked_tools("compile the words once")
    print(f"words: first call (compiles the table) {_ms(t)} ms")
    times = []
    for text in prompts:
        t = time.perf_counter()
        tooling.asked_tools(text[:20_000])
        times.append(_ms(t))
    if times:
        times.sort()
        print(
            f"words: {len(times)} prompts, p50 {statistics.median(times)} ms, "
            f"p95 {times[int(0.95 * (len(times) - 1))]} ms, max {times[-1]} ms"
        )


def files(db: str) -> None:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    n = con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    per_row = []
    for row in range(len(tooling._TOOLS)):
        t = time.perf_counter()
        tooling._files_of(con, row)
        per_row.append((_ms(t), tooling._TOOLS[row][3]))
    costs = sorted(ms for ms, _ in per_row)
    print(
        f"files: {n} indexed; one LIKE query per tool: p50 {statistics.median(costs)} ms, max {costs[-1]} ms "
        f"({max(per_row)[1][:40]}...), all {len(per_row)} rows {round(sum(costs), 1)} ms"
    )
    every = re.compile("|".join(f"(?:{f})" for _, f, _, _ in tooling._TOOLS if "/" not in f), re.I)
    t = time.perf_counter()
    kept = [p for _, p in con.execute("SELECT id, path FROM files") if every.fullmatch(p.rsplit("/", 1)[-1])]
    print(f"files: a regex over every path instead (the first version): {_ms(t)} ms, {len(kept)} files")
    con.close()


def triggers(n: int = 100_000) -> None:
    for with_trigger in (False, True):
        con = sqlite3.connect(":memory:")
        con.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
        con.execute("INSERT INTO meta VALUES('paths_version', '0')")
        con.execute(
            "CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, stem TEXT, kind TEXT, "
            "lang TEXT, role TEXT)"
        )
        if with_trigger:
            con.execute(
                "CREATE TRIGGER files_added AFTER INSERT ON files BEGIN UPDATE meta SET value = "
                "CAST(value AS INTEGER) + 1 WHERE key = 'paths_version'; END"
            )
        t = time.process_time()
        with con:
            con.executemany(
                "INSERT INTO files(path, stem, kind, lang, role) VALUES(?,?,?,?,?)",
                ((f"src/a/b/file{i}.go", "file", "code", "go", None) for i in range(n)),
            )
        print(
            f"triggers: {n} inserts {'with' if with_trigger else 'without'} the v5 trigger: "
            f"{round(time.process_time() - t, 3)} CPU-s"
        )
        con.close()


if __name__ == "__main__":
    benchlib.usage(__doc__, 1)
    words(sys.argv[2:])
    files(sys.argv[1])
    triggers()
