#!/usr/bin/env python3
"""Candidate bug-report cases from a repository's history: commits that say they fix an issue.

For bench/bugs/ (issue 38): a commit whose message says "fixes #N" / "fix #N" / "closes #N" /
"resolves #N" is the fix of issue N; its first parent is the base commit (the code the report was
written against); gold = the non-test source files it changed (1-3 of them), with the old-side
line ranges of each hunk (bugs_eval.py turns them into the functions changed, from the index of
the base tree). Prints one JSON object a line; the issue's text is added by hand from the issues
corpus (its title and description), never from the repository.

Usage: python bench/bugs_mine.py GIT_DIR OWNER/NAME [--max 80] > candidates.jsonl
       python bench/bugs_mine.py --join candidates.jsonl texts.jsonl > bench/bugs/OWNER+NAME.jsonl
(texts.jsonl: {"issue": N, "title", "body"[, "commit": SHA when the fix names its PR, not the issue]})
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess

FIXES = re.compile(r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s+#(\d{1,6})\b", re.I)
SOURCE = re.compile(r"\.(py|go|ts|tsx|js|mjs|cjs|java|kt|rs|rb|cs|php|c|h|cc|cpp|hpp|swift|scala|ex)$")
TESTISH = re.compile(
    r"(^|/)(tests?|__tests__|spec|testdata|fixtures|e2e|benches|examples?|docs?)/|_test\.go$|"
    r"(^|/)test_[^/]*$|_test\.py$|\.(test|spec)\.[jt]sx?$|Test[^/]*\.java$|/tests?\.rs$"
)
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def git(gd: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gd, *args], capture_output=True, text=True, check=True).stdout


def hunks(gd: str, parent: str, commit: str, path: str) -> list[list[int]]:
    """Old-side [first, last] line of each hunk (a pure insertion: the line it follows)."""
    out = []
    for line in git(gd, "diff", "-U0", parent, commit, "--", path).splitlines():
        m = HUNK.match(line)
        if m:
            start, n = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            out.append([max(start, 1), max(start + n - 1, start, 1)])
    return out


def join(candidates: str, texts: str) -> None:
    """One case a line: the issue's text as the query, the fix's parent as the base, its files as gold."""
    cands = [json.loads(x) for x in open(candidates) if x.strip()]
    for line in open(texts):
        if not line.strip():
            continue
        t = json.loads(line)
        c = next(
            (c for c in cands if c["commit"] == t.get("commit") or (not t.get("commit") and t["issue"] in c["issues"])),
            None,
        )
        if c is None:
            raise SystemExit(f"issue {t['issue']}: no candidate fix")
        query = t["title"] + "\n\n" + t["body"]
        print(
            json.dumps(
                {
                    "repo": c["repo"],
                    "issue": t["issue"],
                    "base": c["base"],
                    "commit": c["commit"],
                    "query": query,
                    "gold": c["gold"],
                    "hunks": c["hunks"],
                    "subject": c["subject"],
                }
            )
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("git_dir")
    ap.add_argument("repo")
    ap.add_argument("--max", type=int, default=80)
    ap.add_argument("--join", action="store_true", help="GIT_DIR and OWNER/NAME are the candidates and texts files")
    ap.add_argument("--commits", default="", help="these fixes (comma-separated) whatever their message says")
    a = ap.parse_args()
    if a.join:
        join(a.git_dir, a.repo)
        return
    fmt = "--format=%H%x00%P%x00%s%x00%b%x01"
    if a.commits:
        log = "".join(git(a.git_dir, "show", "-s", fmt, sha) for sha in a.commits.split(","))
    else:
        grep = r"--grep=(fix(e[sd])?|close[sd]?|resolve[sd]?):? +#[0-9]+"
        log = git(a.git_dir, "log", "--no-merges", fmt, "-i", "-E", grep)
    n = 0
    for rec in log.split("\x01"):
        parts = rec.strip("\n").split("\x00")
        if len(parts) < 4:
            continue
        sha, parents, subject, body = parts
        issues = sorted({int(x) for x in FIXES.findall(subject + "\n" + body)})
        if (not issues and not a.commits) or not parents:
            continue
        parent = parents.split()[0]
        changed = [p for p in git(a.git_dir, "diff", "--name-only", "--diff-filter=M", parent, sha).splitlines() if p]
        gold = [p for p in changed if SOURCE.search(p) and not TESTISH.search(p)]
        if not 1 <= len(gold) <= 3:
            continue
        print(
            json.dumps(
                {
                    "repo": a.repo,
                    "commit": sha,
                    "base": parent,
                    "issues": issues,
                    "subject": subject,
                    "gold": gold,
                    "hunks": {p: hunks(a.git_dir, parent, sha, p) for p in gold},
                }
            )
        )
        n += 1
        if n >= a.max:
            break


if __name__ == "__main__":
    main()
