#!/usr/bin/env python3
"""A no-change `cairn index` without the watcher at 100,000 files: git's view (codemap/git_changes.py)
against the stat walk, alternating, wall and CPU (children included) per run.

The tree is made here: --files small text files in folders of 100, one git commit (what the
no-change check costs does not depend on what the files hold: no file is read). It is indexed
once (cold), then run once more so the index holds git's view, then each command --runs times.
`--base SRC`: the other side runs that source tree (e.g. `git archive main src | tar -x -C /tmp/base`)
with the same interpreter; without it only this checkout is timed.

Usage: python bench/nochange_git.py [--files 100000] [--work DIR] [--runs 7] [--base /tmp/base/src]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def make_tree(root: Path, files: int) -> None:
    if (root / ".git").exists():
        return
    root.mkdir(parents=True)
    for i in range(files):
        folder = root / f"p{i // 100:04d}"
        folder.mkdir(exist_ok=True)
        (folder / f"n{i % 100:02d}.txt").write_text(f"note {i}\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)


def timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, check=True, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cairn-nochange"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--base", help="another cairn source tree (its src/ folder) to time beside this one")
    a = ap.parse_args()
    tree, home = a.work / f"tree{a.files}", a.work / "home"
    make_tree(tree, a.files)
    env = {**os.environ, "CAIRN_HOME": str(home), "CAIRN_WARM": "0", "CAIRN_WATCH": "0"}
    here = str(Path(__file__).resolve().parents[1] / "src")
    sides = {"this checkout": {**env, "PYTHONPATH": here}}
    if a.base:
        sides["base"] = {**env, "PYTHONPATH": a.base}
    cmd = [sys.executable, "-m", "cairn", "index", "--root", str(tree)]
    wall, cpu = timed(cmd, sides["this checkout"], tree)
    print(f"cold index: {wall:.1f} s wall, {cpu:.1f} s CPU")
    timed(cmd, sides["this checkout"], tree)  # the first no-change run walks and takes git's view
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    for _ in range(a.runs):
        for name, side_env in sides.items():
            times[name].append(timed(cmd, side_env, tree))
    for name, runs in times.items():
        walls, cpus = sorted(w for w, _ in runs), sorted(c for _, c in runs)
        print(
            f"{name}: no-change index p50 {statistics.median(walls):.2f} s wall (min {walls[0]:.2f}),"
            f" {statistics.median(cpus):.2f} s CPU, {a.runs} runs"
        )


if __name__ == "__main__":
    main()
