#!/usr/bin/env python3
"""What turn vectors cost the session archive's ingest: a full ingest and a one-turn tail, off and on.

For each mode (`[index] semantic` off, then on), --repeat times: a copy of the transcript folder
ingested by `cairn sessions ingest` in a fresh CAIRN_HOME (a new process, as a person runs it),
then one user turn appended to a Claude Code session and ingested again by a new process (what
the Stop hook's detached `_ingest` run does after every turn). Wall times, medians printed with
the turns, the vectors stored and the archive's size.

With --scale N, instead: the turns copied N times in one archive (a large one), embedded, then
searched off and on (the vectors read once per process, then cached).

Usage: python bench/archive_vectors_cost.py [--cairn .venv/bin/cairn] [--fixtures tests/fixtures/transcripts]
       python bench/archive_vectors_cost.py --scale 64
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import benchlib

SESSION = "55604662-cf2a-4331-851a-ec234028f8ca"  # tests/fixtures/transcripts/claude-code/short.jsonl
TURN = {
    "type": "user",
    "uuid": "bench-1",
    "timestamp": "2026-02-10T22:00:00Z",
    "sessionId": SESSION,
    "cwd": "/home/marco/projects/spotter",
    "message": {"role": "user", "content": "one more question about the scroll position"},
}


def ingest(cairn: str, folder: Path, home: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    out = subprocess.run(
        [cairn, "sessions", "ingest", str(folder), "--no-backup", "--json"],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "CAIRN_HOME": str(home)},
    ).stdout
    return time.perf_counter() - started, json.loads(out)


def detail(fixtures: str) -> None:
    """In one process: where the `on` ingest's time goes, and search off / on (model loaded)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CAIRN_HOME"] = tmp
        from cairn.codemap import embed
        from cairn.sessions import archive_vectors
        from cairn.sessions.archive import ingest_paths, open_archive
        from cairn.sessions.archive_search import search

        t0 = time.perf_counter()
        ingest_paths([fixtures])
        t1 = time.perf_counter()
        import numpy  # noqa: F401
        import tokenizers  # noqa: F401

        t2 = time.perf_counter()
        embed.load()
        t3 = time.perf_counter()
        con = open_archive()
        n = archive_vectors.refresh(con, True)
        t4 = time.perf_counter()
        archive_vectors.refresh(con, True)
        t5 = time.perf_counter()
        queries = [
            "why did the tests break",
            "how do we keep the scroll position",
            "what was wrong with compile",
            "which subagent wrote the renderer",
            "why was the hook slow",
        ] * 4
        times: dict[bool, list[float]] = {False: [], True: []}
        for on in (False, True):
            search(con, queries[0], semantic=on)  # warm-up
            for q in queries:
                s = time.perf_counter()
                search(con, q, limit=20, semantic=on)
                times[on].append(time.perf_counter() - s)
        con.close()
    print(
        f"in-process: ingest (off) {t1 - t0:.3f} s, numpy+tokenizers import {t2 - t1:.3f} s, model load "
        f"{t3 - t2:.3f} s, embed {n} turns {t4 - t3:.3f} s, refresh with nothing new {1000 * (t5 - t4):.1f} ms; "
        f"search p50 off {1000 * statistics.median(times[False]):.2f} ms, on {1000 * statistics.median(times[True]):.2f} ms"
    )


def scale(fixtures: str, copies: int) -> None:
    """The fixtures' turns copied `copies` times (a large archive, same texts): embedding them,
    an ingest with nothing new, and search with the channel off and on (all projects, and the
    smallest project: the filter that checks the most slices)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CAIRN_HOME"] = tmp
        from cairn.sessions import archive_vectors
        from cairn.sessions.archive import ingest_paths, open_archive
        from cairn.sessions.archive_search import search

        ingest_paths([fixtures], semantic=True)
        con = open_archive()
        cols = "file_id, session_id, uuid, block, role, ts, text, tool, arg, ref, agent"
        base = con.execute("SELECT MAX(id) FROM turns").fetchone()[0]
        con.execute("BEGIN")
        for k in range(1, copies):
            con.execute(
                f"INSERT INTO turns({cols}) SELECT file_id, session_id, uuid || '-{k}', block, role, ts, text,"
                " tool, arg, ref, agent FROM turns WHERE id <= ?",
                (base,),
            )
        con.execute("COMMIT")
        t0 = time.perf_counter()
        n = archive_vectors.refresh(con, True)
        t1 = time.perf_counter()
        archive_vectors.refresh(con, True)
        t2 = time.perf_counter()
        queries = ["why did the tests break", "how do we keep the scroll position", "what was wrong with compile"] * 3
        small = min(
            con.execute(
                "SELECT project_id, COUNT(*) FROM sessions JOIN turns USING (session_id) GROUP BY project_id"
            ).fetchall(),
            key=lambda r: r[1],
        )[0]
        s = time.perf_counter()
        search(con, queries[0], limit=20, semantic=True)
        first = time.perf_counter() - s
        line = []
        for label, kw in (("all projects", {}), ("smallest project", {"project_ids": [small]})):
            for on in (False, True):
                times = []
                for q in queries:
                    s = time.perf_counter()
                    search(con, q, limit=20, semantic=on, **kw)
                    times.append(time.perf_counter() - s)
                line.append(f"{label} {'on' if on else 'off'} {1000 * statistics.median(times):.1f} ms")
        turns = con.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
        vecs = con.execute("SELECT COUNT(*) FROM turn_vectors").fetchone()[0]
        con.close()
    print(
        f"x{copies}: {turns} turns, {vecs} vectors; embedding {n} turns {t1 - t0:.2f} s, an ingest with nothing "
        f"new {1000 * (t2 - t1):.1f} ms, first search on (reads every vector) {1000 * first:.0f} ms; "
        f"search p50: {', '.join(line)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cairn", default=str(benchlib.CAIRN_BIN))
    ap.add_argument("--fixtures", default=str(benchlib.TRANSCRIPTS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument(
        "--scale", type=int, default=0, metavar="N", help="only the large-archive run: turns copied N times"
    )
    args = ap.parse_args()
    if args.scale:
        scale(args.fixtures, args.scale)
        return
    for mode in ("off", "on"):
        full, tail, last = [], [], {}
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                home, folder = Path(tmp) / "home", Path(tmp) / "t"
                home.mkdir()
                (home / "config.toml").write_text(f"[index]\nsemantic = {'true' if mode == 'on' else 'false'}\n")
                shutil.copytree(args.fixtures, folder)
                secs, first = ingest(args.cairn, folder, home)
                full.append(secs)
                with open(folder / "claude-code" / "short.jsonl", "a") as fh:
                    fh.write(json.dumps(TURN) + "\n")
                secs, more = ingest(args.cairn, folder, home)
                tail.append(secs)
                last = {
                    "turns": first["turns"],
                    "vectors": first["vectors"],
                    "tail_turns": more["turns"],
                    "tail_vectors": more["vectors"],
                    "db_kb": (home / "sessions.db").stat().st_size // 1024,
                }
        print(
            f"{mode}: full ingest median {statistics.median(full):.3f} s (min {min(full):.3f}), "
            f"one-turn tail median {statistics.median(tail):.3f} s (min {min(tail):.3f}), {last}"
        )
    detail(args.fixtures)


if __name__ == "__main__":
    main()
