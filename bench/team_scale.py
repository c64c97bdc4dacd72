#!/usr/bin/env python3
"""Scale of the team archive on a real PostgreSQL: push throughput, search p50/p95, database size.

Generates `--turns` turns (default 1,000,000) as Claude Code transcripts of `--per-session` turns
each, whose words follow a Zipf law over a 40,000-word made-up vocabulary plus a few common
programming words (so a query can be rare, medium or common, as in real sessions); archives them
with `cairn sessions ingest` into a fresh CAIRN_HOME; starts a throwaway PostgreSQL
(tests/team/pg_server.py: initdb + pg_ctl, default durability settings: fsync on) and runs
`cairn team push` once (throughput: turns per second, redaction included) and once more (must
add nothing); then times `cairn.team.search.search` (the query `cairn team search` runs, one
warm connection) over rare, medium and common queries, and reads the database size.

Usage: python bench/team_scale.py [--turns 1000000] [--per-session 500] [--queries 40] [--out F.json]
       [--workdir DIR [--reuse]]  (keep the generated transcripts and local archive in DIR; --reuse
       skips generating and ingesting when DIR already holds them)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib

benchlib.on_path(benchlib.TESTS / "team")

from pg_server import PgServer  # noqa: E402
from team_helpers import make_repo  # noqa: E402

COMMON = ("error test fix file function import config build run query").split()
CONS, VOW = "bcdfghklmnprstvz", "aeiou"


def vocabulary(n: int, rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choice(CONS) + rng.choice(VOW) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def generate(folder: Path, cwd: Path, turns: int, per_session: int, vocab: list[str], seed: int) -> int:
    """Transcripts with Zipf-distributed words; returns the number of sessions written."""
    rng = random.Random(seed)
    weights = [1 / (r + 1) for r in range(len(vocab))]
    cum = list(__import__("itertools").accumulate(weights))
    folder.mkdir(parents=True, exist_ok=True)
    sessions = (turns + per_session - 1) // per_session
    left = turns
    for s in range(sessions):
        n = min(per_session, left)
        left -= n
        sid = f"bench-{s:06d}"
        picks = rng.choices(vocab, cum_weights=cum, k=n * 12)
        with open(folder / f"{sid}.jsonl", "w", encoding="utf-8") as fh:
            for i in range(n):
                words = picks[i * 12 : (i + 1) * 12] + rng.sample(COMMON, 2)
                text = " ".join(words)
                role = "user" if i % 2 == 0 else "assistant"
                day, sec = s % 365, i
                rec = {
                    "type": role,
                    "uuid": f"{sid}-{i}",
                    "sessionId": sid,
                    "cwd": str(cwd),
                    "gitBranch": "main",
                    "timestamp": f"2026-{day // 28 % 12 + 1:02d}-{day % 28 + 1:02d}T{sec // 3600 % 24:02d}:"
                    f"{sec // 60 % 60:02d}:{sec % 60:02d}Z",
                    "message": {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]},
                }
                fh.write(json.dumps(rec) + "\n")
    return sessions


def cairn(args: list[str], env: dict, cwd: Path) -> tuple[dict, float]:
    start = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "cairn", *args], env=env, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    if r.returncode != 0:
        raise SystemExit(f"cairn {' '.join(args)} failed: {r.stderr.strip()}")
    return (json.loads(r.stdout) if "--json" in args else {}), took


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=1_000_000)
    ap.add_argument("--per-session", type=int, default=500)
    ap.add_argument("--queries", type=int, default=40, help="queries per class (rare, medium, common)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--workdir", type=Path, help="keep transcripts and the local archive here (default: a temp dir)")
    ap.add_argument("--reuse", action="store_true", help="with --workdir: use the archive already ingested there")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    vocab = vocabulary(40_000, rng)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="cairn-team-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    result: dict = {"turns": args.turns, "per_session": args.per_session}
    server = PgServer(fast=False)
    server.start()
    try:
        home = work / "home"
        repo = work / "repo"
        env = {**os.environ, "CAIRN_HOME": str(home), "CAIRN_TEAM_DATABASE": server.url, "CAIRN_WARM": "0"}
        if args.reuse and (home / "sessions.db").exists():
            result["reused"] = str(work)
            result["sessions"] = len(list((work / "tx").glob("*.jsonl")))
        else:
            make_repo(repo)
            home.mkdir()
            (home / "config.toml").write_text('[team]\nuser = "bench"\nmachine = "bench"\n')
            t = time.perf_counter()
            result["sessions"] = generate(work / "tx", repo, args.turns, args.per_session, vocab, args.seed)
            result["generate_s"] = round(time.perf_counter() - t, 1)
            print(f"generated {result['sessions']} sessions in {result['generate_s']}s", file=sys.stderr)
            _, took = cairn(["sessions", "ingest", "--no-backup", "--json", str(work / "tx")], env, repo)
            result["ingest_s"] = round(took, 1)
            print(f"ingested in {took:.0f}s", file=sys.stderr)
        push, took = cairn(["team", "push", "--json"], env, repo)
        result["push"] = {**push, "wall_s": round(took, 1), "turns_per_s": round(push["inserted"] / took)}
        print(f"pushed {push['inserted']} turns in {took:.0f}s", file=sys.stderr)
        again, took = cairn(["team", "push", "--json"], env, repo)
        result["repush"] = {"inserted": again["inserted"], "offered": again["offered"], "wall_s": round(took, 2)}
        import psycopg

        from cairn.team.connect import connect
        from cairn.team.search import search

        with psycopg.connect(server.url, autocommit=True) as con:
            con.execute("VACUUM ANALYZE cairn.turns")
            total = con.execute(
                "SELECT count(*), count(DISTINCT (session_id, uuid, block)) FROM cairn.turns"
            ).fetchone()
            sizes = con.execute(
                "SELECT pg_database_size(current_database()), pg_total_relation_size('cairn.turns'),"
                " pg_relation_size('cairn.turns_tsv'), pg_total_relation_size('cairn.sessions')"
            ).fetchone()
        assert total is not None and sizes is not None
        result["rows"] = {"turns": total[0], "distinct": total[1]}
        result["size_bytes"] = {
            "database": sizes[0],
            "turns_total": sizes[1],
            "gin_index": sizes[2],
            "sessions_total": sizes[3],
        }
        # Query classes by the rank of their words in the Zipf law: rare (tail), medium, common (head).
        classes = {
            "rare (1 word, rank 20k-40k)": lambda: rng.choice(vocab[20_000:]),
            "medium (1 word, rank 200-2k)": lambda: rng.choice(vocab[200:2_000]),
            "common (1 word, rank 0-20)": lambda: rng.choice(vocab[:20]),
            "two words (rank 50-5k)": lambda: f"{rng.choice(vocab[50:5_000])} {rng.choice(vocab[50:5_000])}",
        }
        pg = connect(server.url)
        project = "github.com/acme/app"
        result["search_ms"] = {}
        for name, make in classes.items():
            times, hits = [], []
            for _ in range(args.queries):
                q = make()
                start = time.perf_counter()
                found = search(pg, q, project=project, limit=10)
                times.append((time.perf_counter() - start) * 1000)
                hits.append(len(found))
            result["search_ms"][name] = {
                "p50": round(pct(times, 0.5), 1),
                "p95": round(pct(times, 0.95), 1),
                "mean_hits": round(statistics.mean(hits), 1),
                "queries": len(times),
            }
            print(name, result["search_ms"][name], file=sys.stderr)
        pg.close()
        result["load"] = os.getloadavg()
    finally:
        server.close()
        if not args.workdir:
            subprocess.run(["rm", "-rf", str(work)], check=False)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
