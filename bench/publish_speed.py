#!/usr/bin/env python3
"""A fresh clone's first answer with a published index (`cairn index --from FILE`, then `cairn search`)
against the cold index (`cairn search` in a fresh clone indexes first), wall and CPU (children).

A "CI" clone of the mirror is checked out --ahead commits behind its HEAD, indexed and published to a
file (its size is reported). Then, --runs times each: a fresh clone at the published commit and one at
HEAD (--ahead commits later: the install refreshes only the files that differ) install the file and
answer --query; a fresh clone at the published commit answers cold. Every clone gets an empty
CAIRN_HOME; the watcher is off (CAIRN_WATCH=0: no detached process per clone), so the search after
an install checks git's view. The load average is printed beside every figure (a shared machine).
`--team`: the index goes through a throwaway PostgreSQL (tests/team/pg_server.py) instead of the
file: `cairn index --publish --team`, then `cairn index --from --team` in each clone.

Usage: python bench/publish_speed.py [--mirror /work/.mirror/hashicorp+terraform/repo] [--work DIR]
       [--ahead 5] [--runs 3] [--query "state migrate json view"] [--team]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

CAIRN = [sys.executable, "-m", "cairn"]


def timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float, str]:
    """(wall, CPU of the child, its stdout) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out.stdout


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def clone(mirror: Path, dest: Path, commit: str) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(mirror), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "--detach", commit], check=True)
    return dest


def fresh_env(base: dict, home: Path) -> dict:
    shutil.rmtree(home, ignore_errors=True)
    return {**base, "CAIRN_HOME": str(home)}


def first_answer(mirror: Path, work: Path, commit: str, source: list[str] | None, query: str, base: dict) -> tuple:
    """(wall, CPU, install wall, install CPU, the install's summary) of a fresh clone's first answer;
    `source`: the arguments of `--from` (None: the cold index)."""
    tree = clone(mirror, work / "clone", commit)
    env = fresh_env(base, work / "clone-home")
    iw = ic = 0.0
    summary = ""
    if source is not None:
        iw, ic, summary = timed([*CAIRN, "index", "--from", *source, "-q"], env, tree)
    sw, sc, answer = timed([*CAIRN, "search", query], env, tree)
    assert answer.strip(), "no answer"
    return iw + sw, ic + sc, iw, ic, summary.strip().splitlines()[-1] if summary else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror/hashicorp+terraform/repo"))
    ap.add_argument("--work", type=Path, default=Path("/tmp/cairn-publish-bench"))
    ap.add_argument("--ahead", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--query", default="state migrate json view")
    ap.add_argument("--team", action="store_true", help="through a throwaway PostgreSQL instead of a file")
    a = ap.parse_args()
    src = str(Path(__file__).resolve().parents[1] / "src")
    base = {**os.environ, "PYTHONPATH": src, "CAIRN_WARM": "0", "CAIRN_WATCH": "0"}
    server = None
    if a.team:
        import benchlib

        benchlib.on_path(benchlib.TESTS / "team")
        from pg_server import PgServer

        server = PgServer()
        server.start()
        base["CAIRN_TEAM_DATABASE"] = server.url
    try:
        run(a, base)
    finally:
        if server is not None:
            server.close()


def run(a: argparse.Namespace, base: dict) -> None:
    head = subprocess.run(["git", "-C", str(a.mirror), "rev-parse", "HEAD"], capture_output=True, text=True)
    head_sha = head.stdout.strip()
    published = f"{head_sha}~{a.ahead}"
    a.work.mkdir(parents=True, exist_ok=True)
    ci = clone(a.mirror, a.work / "ci", published)
    env = fresh_env(base, a.work / "ci-home")
    files = subprocess.run(["git", "-C", str(ci), "ls-files"], capture_output=True, text=True).stdout.count("\n")
    cw, cc, _ = timed([*CAIRN, "index", "-q"], env, ci)
    print(f"CI clone at {published} ({files} tracked files): cold index {cw:.2f} s wall, {cc:.2f} CPU-s ({load()})")
    artifact = a.work / "index.cidx"
    target = ["--team"] if a.team else [str(artifact)]
    pw, pc, out = timed([*CAIRN, "index", "--publish", *target], env, ci)
    print(f"publish: {pw:.2f} s wall, {pc:.2f} CPU-s ({load()}); {out.strip()}")
    rows: dict[str, list[tuple]] = {"published commit": [], f"{a.ahead} commits ahead": [], "cold index": []}
    for _ in range(a.runs):
        for name, commit, art in (
            ("published commit", published, target),
            (f"{a.ahead} commits ahead", head_sha, target),
            ("cold index", published, None),
        ):
            if a.team and art is None:
                continue  # the cold index is the file run's
            row = first_answer(a.mirror, a.work, commit, art, a.query, base)
            rows[name].append(row)
            extra = f"; install {row[2]:.2f} s wall {row[3]:.2f} CPU-s: {row[4]}" if art else ""
            print(f"  {name}: first answer {row[0]:.2f} s wall, {row[1]:.2f} CPU-s ({load()}){extra}")
    print("median over runs:")
    for name, rs in rows.items():
        if not rs:
            continue
        print(
            f"  {name}: {statistics.median(r[0] for r in rs):.2f} s wall, "
            f"{statistics.median(r[1] for r in rs):.2f} CPU-s"
        )


if __name__ == "__main__":
    main()
