#!/usr/bin/env python3
"""Two branches that each add a note and change code (regenerating the map), merged with a real
`git merge`: conflicted files with the map committed (as before issue 18) and with it ignored.

Each of `--rounds` rounds builds a fresh repository (`cairn init`, commit), then two branches that
each add a module and a note (`cairn remember`) and run `cairn index`; `git merge` of one into the
other; counts the conflicted files. "committed" force-adds `.cairn/map.md` and `.cairn/modules/`
on every commit, as a repository initialised before this change does.

Usage: python bench/team_merge.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=ENV, check=check)


def cairn(root: Path, *args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "cairn", *args, "--root", str(root)], capture_output=True, text=True, env=ENV, check=True
    )


def commit(root: Path, message: str, committed_map: bool) -> None:
    git(root, "add", "-A")
    if committed_map:
        git(root, "add", "-f", ".cairn/map.md", ".cairn/modules")
    git(root, "commit", "-q", "-m", message)


def one_round(base: Path, n: int, committed_map: bool) -> list[str]:
    root = base / f"r{n}-{'committed' if committed_map else 'ignored'}"
    (root / "app").mkdir(parents=True)
    for i in range(6):
        (root / "app" / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    git(root, "init", "-q", "-b", "main")
    cairn(root, "init")
    commit(root, "init", committed_map)
    for branch, mod in (("alice", "api"), ("bob", "store")):
        git(root, "checkout", "-q", "main")
        git(root, "checkout", "-q", "-b", branch)
        (root / mod).mkdir()
        (root / mod / "core.py").write_text(
            f"from app.m{n % 6} import f{n % 6}\n\n\ndef {mod}_{n}():\n    return f{n % 6}()\n"
        )
        cairn(
            root,
            "remember",
            f"{mod} goes through {mod}.core (round {n})",
            "--type",
            "decision",
            "--body",
            f"Everything about {mod} starts in {mod}/core.py.",
        )
        cairn(root, "index", "--quiet")
        commit(root, branch, committed_map)
    git(root, "merge", "--no-edit", "alice", check=False)
    return git(root, "diff", "--name-only", "--diff-filter=U").stdout.split()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="cairn-team-merge-"))
    os.environ.setdefault("CAIRN_HOME", str(base / "home"))
    ENV["CAIRN_HOME"] = os.environ["CAIRN_HOME"]
    out = {}
    for committed_map in (True, False):
        conflicts = [one_round(base, n, committed_map) for n in range(args.rounds)]
        out["map committed" if committed_map else "map ignored (cairn init now)"] = {
            "merges": args.rounds,
            "merges with a conflict": sum(1 for c in conflicts if c),
            "conflicted files per merge": [len(c) for c in conflicts],
            "conflicted files (all rounds)": sorted({f for c in conflicts for f in c}),
        }
    subprocess.run(["rm", "-rf", str(base)], check=False)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
