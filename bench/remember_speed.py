"""`cairn remember` latency as the vault grows, alone and with concurrent writers.

For each vault size N: a small git project (30 source files) is opted in (`cairn init`), N
notes are written into `.cairn/knowledge/` (rendered by cairn's own node format, titles and
bodies drawn from a fixed vocabulary with a seed), then:

- `cold`: the first `cairn remember` (the vault index beside the notes is built by it);
- `alone`: `--calls` more remembers one after another (median);
- `W writers`: W processes each running `--calls` remembers at once (every call's latency,
  p50 / p95 / max, and how many failed, e.g. on the knowledge lock's 20 s limit).

Every call is the real CLI in a fresh process (`CAIRN_BIN`, default .venv/bin/cairn), as an
agent runs it. Usage:

    .venv/bin/python bench/remember_speed.py --notes 100,2000,10000 --writers 8 --calls 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import benchlib

CAIRN = os.environ.get("CAIRN_BIN", str(benchlib.CAIRN_BIN))
WORDS = (
    "cache index retry coupon checkout payment timeout session token parser graph module vault hook "
    "search rank webhook queue worker schema migration lock backup archive redact budget map"
).split()
TYPES = ("decision", "gotcha", "bug", "concept")


def make_project(base: Path, notes: int, seed: int) -> tuple[Path, dict]:
    from cairn.codemap.knowledge.node import Node, make_id, render

    root = base / "proj"
    (root / "src").mkdir(parents=True)
    for i in range(30):
        (root / "src" / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    env = {
        **os.environ,
        "CAIRN_HOME": str(base / "home"),
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@x",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@x",
    }
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "init"]):
        subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True)
    subprocess.run([CAIRN, "init", "--json"], cwd=root, env=env, check=True, capture_output=True)
    rng = random.Random(seed)
    folder = root / ".cairn" / "knowledge"
    for i in range(notes):
        title = " ".join(rng.choice(WORDS) for _ in range(5)) + f" case {i}"
        body = " ".join(rng.choice(WORDS) for _ in range(60))
        kind = rng.choice(TYPES)
        node_id = make_id(kind, title, body)
        node = Node(
            id=node_id,
            type=kind,
            title=title,
            body=body,
            files=[f"src/m{rng.randrange(30)}.py"],
            created="2026-11-01T00:00:00Z",
            updated="2026-11-01T00:00:00Z",
        )
        node.path = f".cairn/knowledge/{node_id}.md"
        (folder / f"{node_id}.md").write_text(render(node), encoding="utf-8")
    return root, env


def remember(root: Path, env: dict, title: str) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [CAIRN, "remember", title, "--type", "gotcha", "--body", f"measured: {title}", "--file", "src/m1.py"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - t0, proc.returncode, proc.stderr.strip()[:200]


def measure(notes: int, writers: int, calls: int, seed: int) -> dict:
    base = Path(tempfile.mkdtemp(prefix=f"cairn-remember-{notes}-"))
    try:
        root, env = make_project(base, notes, seed)
        cold, rc, err = remember(root, env, "cold start fact zero")
        alone = [remember(root, env, f"lone writer fact a{i}") for i in range(calls)]
        jobs = [(w, c) for w in range(writers) for c in range(calls)]
        t0 = time.perf_counter()
        with ThreadPoolExecutor(writers) as pool:  # each thread runs its writer's calls one after another

            def writer(w: int) -> list[tuple[float, int, str]]:
                return [
                    remember(root, env, f"fact w{w}c{c} about {WORDS[(w * 7 + c) % len(WORDS)]}") for c in range(calls)
                ]  # w0c1 vs w1c0: other specifics, never merged

            results = [r for rs in pool.map(writer, range(writers)) for r in rs]
        wall = time.perf_counter() - t0
        t1 = time.perf_counter()  # a refresh handed to a detached run: wait until the index has it all
        subprocess.run([CAIRN, "index", "--quiet"], cwd=root, env=env, capture_output=True)
        caught_up = time.perf_counter() - t1
        lat = sorted(r[0] for r in results)
        failed = [r[2] for r in results if r[1] != 0]
        written = len(list((root / ".cairn" / "knowledge").glob("*.md")))
        return {
            "notes": notes,
            "cold_s": round(cold, 2),
            "cold_rc": rc,
            "cold_err": err,
            "alone_median_s": round(statistics.median(r[0] for r in alone), 2),
            "writers": writers,
            "calls": len(jobs),
            "p50_s": round(lat[len(lat) // 2], 2),
            "p95_s": round(lat[min(len(lat) - 1, int(len(lat) * 0.95))], 2),
            "max_s": round(lat[-1], 2),
            "failed": len(failed),
            "first_failure": failed[0] if failed else None,
            "wall_s": round(wall, 1),
            "index_caught_up_s": round(caught_up, 2),
            "notes_after": written,
            "expected_after": notes + 1 + calls + len(jobs),
        }
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", default="100,2000,10000", help="vault sizes, comma-separated")
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--calls", type=int, default=3, help="remembers per writer (and alone)")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--out", help="write the rows as JSON here too")
    args = ap.parse_args(argv)
    rows = []
    print(
        f"| notes | cold | alone (median) | {args.writers} writers p50 / p95 / max | failed | notes kept | index caught up |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (int(x) for x in args.notes.split(",")):
        row = measure(n, args.writers, args.calls, args.seed)
        rows.append(row)
        print(
            f"| {n} | {row['cold_s']} s | {row['alone_median_s']} s | {row['p50_s']} / {row['p95_s']} / "
            f"{row['max_s']} s | {row['failed']} of {row['calls']} | {row['notes_after']} of {row['expected_after']} | "
            f"{row['index_caught_up_s']} s |",
            flush=True,
        )
        if row["first_failure"]:
            print(f"  first failure: {row['first_failure']}", file=sys.stderr)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
