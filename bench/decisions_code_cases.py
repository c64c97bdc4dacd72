#!/usr/bin/env python3
"""Code questions in the repositories of the decisions set: does a record ever take the code's place?

The decisions set (../shared/bench/decisions) asks for records; its repositories' code sets (cases/,
semble/, sessions/) hold almost no records, so neither says whether a record put first by the default
search steals rank 1 from the code a code question wants. This mines, from each decisions
repository's history before its snapshot, commits whose subject names a change to 1-3 source files
(no test, doc or record file, no release or dependency bump; subject of four words or more, its
conventional prefix and PR number removed), keeps those whose files still exist at the snapshot,
and writes a seeded sample of at most 30 per repository as case lines (`repo, snapshot, commit,
query, gold`) for bench/decisions_eval.py `--cases`. The tree at the snapshot already holds the
change (the cases measure where the code lands beside the records, not recall of a past state).

Usage: python bench/decisions_code_cases.py --trees TREES --mirrors '/work/.mirror/{owner}+{name}/repo' --out DIR
       [--decisions DIR ...]   (default: the shared set; bench/decisions_extra for this checkout's own)
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
from pathlib import Path

import benchlib

SOURCE = re.compile(r"\.(rs|go|py|hs|kt|java|cpp|h|hpp|cc|c|ts|js)$")
TESTS = re.compile(r"(^|/)(tests?|testing|spec|fixtures|testdata|benches|examples?)/|_test\.|Test\.|Tests\.|test_")
SIDE_FILES = (".lock", ".toml", ".json", ".yaml", ".yml", ".cabal")
NOT_CODE = re.compile(r"\b(adr|rfc|spec|doc|docs|readme|bump|release|version|changelog|deps|dependabot)\b", re.I)


def mine(git_dir: str, repo: str, snapshot: str, tracked: set[str], limit: int = 30) -> list[dict]:
    log = subprocess.run(
        ["git", "--git-dir", git_dir, "log", "--no-merges", "-n", "1500", "--name-only", "--format=@@%H %s", snapshot],
        capture_output=True,
        text=True,
    ).stdout  # a mirror missing
    # blobs (thanos) stops `git log` part way: what it printed is used
    cases = []
    for block in log.split("@@")[1:]:
        lines = [ln for ln in block.splitlines() if ln.strip()]
        sha, subject = lines[0].split(" ", 1)
        changed = lines[1:]
        src = [p for p in changed if SOURCE.search(p) and not TESTS.search(p)]
        others = [p for p in changed if not SOURCE.search(p) and not TESTS.search(p) and not p.endswith(SIDE_FILES)]
        if not src or len(src) > 3 or others or NOT_CODE.search(subject):
            continue
        subject = re.sub(r"\s*\(#\d+\)$", "", re.sub(r"^(\w+(\([^)]*\))?!?:\s*)", "", subject))
        if len(subject.split()) >= 4 and all(p in tracked for p in src):
            cases.append({"repo": repo, "snapshot": snapshot, "commit": sha, "query": subject, "gold": src})
    random.Random(0).shuffle(cases)
    return cases[:limit]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", required=True, help="the harness's trees ({owner}+{name}@{sha} and its .files list)")
    ap.add_argument("--mirrors", required=True, help="bare git directories, with {owner} and {name}")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--decisions", action="append", type=Path, help="folders of decision cases (repeatable)")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    for f in sorted(f for d in a.decisions or [benchlib.SHARED_BENCH / "decisions"] for f in d.glob("*.jsonl")):
        first = json.loads(f.read_text().splitlines()[0])
        repo, snapshot = first["repo"], first["snapshot"]
        owner, name = repo.split("/")
        git_dir = a.mirrors.format(owner=owner, name=name)
        listing = Path(a.trees) / f"{owner}+{name}@{snapshot}.files"
        if listing.exists():
            tracked = set(listing.read_text().split("\n"))
        else:  # a tree written by decisions_eval.py --mirrors: the snapshot's own file list
            out = subprocess.run(
                ["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", snapshot], capture_output=True
            )
            tracked = set(out.stdout.decode("utf-8", "replace").split("\n"))
        cases = mine(git_dir, repo, snapshot, tracked)
        (a.out / f.name).write_text("".join(json.dumps(c) + "\n" for c in cases))
        print(repo, len(cases))


if __name__ == "__main__":
    main()
