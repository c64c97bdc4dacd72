"""Mine evaluation cases from a repository's own history.

A case is a real change: query = the commit subject (ticket numbers and conventional-commit
prefixes stripped), gold = the 1-4 non-test source files it modified, searched on the tree
before the commit (its first parent). Commits whose subject names a gold file are dropped, as
are merges, bots, releases, reverts, typo/format/docs/CI/dependency chores and short subjects.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from cairn.codemap.languages import CODE_LANGUAGES, language_for_path
from cairn.codemap.scan import skip_reason_for_path
from cairn.errors import CairnError
from cairn.search.roles import is_test_path
from cairn.text.tokens import stem_of

MIN_WORDS = 4
MAX_GOLD = 4
MAX_ADDED_DELETED = 2
_SKIP_SUBJECT = re.compile(
    r"^(merge|revert|release|bump|version|v?\d+\.\d+|prepare|changelog|typo|format|lint|style|docs?|ci|"
    r"chore|build|test|tests|deps?|dependabot|update (the )?(deps|dependencies|changelog|readme))\b|"
    r"\b(typos?|formatting|readme|changelog|release notes|bump version|dependabot)\b",
    re.I,
)
_CONVENTIONAL = re.compile(r"^(\w+)(\([^)]*\))?!?:\s*")
_TICKETS = re.compile(r"(?<!\s)\s*\((?:#|[A-Z]+-)\d+\)|(?<!\s)\s*#\d+\b|\b[A-Z][A-Z0-9]+-\d+:?\s*|^\[[^\]]*\]\s*")
_SKIP_TYPES = {"docs", "doc", "ci", "chore", "build", "style", "test", "tests", "release", "deps"}


@dataclass
class Case:
    repo: str
    snapshot: str
    commit: str
    query: str
    gold: list[str]
    subject: str
    date: str


def clean_subject(subject: str) -> str | None:
    """The query a subject yields, or None when the commit is not a real change description."""
    s = subject.strip()
    m = _CONVENTIONAL.match(s)
    if m:
        if m.group(1).lower() in _SKIP_TYPES:
            return None
        s = s[m.end() :]
    s = _TICKETS.sub(" ", s).strip().rstrip(".").strip()
    if not s or _SKIP_SUBJECT.search(s):
        return None
    if len(re.findall(r"[A-Za-z]{2,}", s)) < MIN_WORDS:
        return None
    return s


def is_source(path: str) -> bool:
    lang = language_for_path(path)
    return (
        lang in CODE_LANGUAGES and lang != "markdown" and not is_test_path(path) and skip_reason_for_path(path) is None
    )


def names_gold(query: str, gold: list[str]) -> bool:
    words = {w.lower() for w in re.findall(r"[\w.]+", query)}
    return any(stem_of(g).lower() in words or g.rsplit("/", 1)[-1].lower() in words for g in gold)


def _git(repo: Path, *args: str) -> str:
    try:
        out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CairnError(f"git failed: {exc}") from None
    if out.returncode != 0:
        raise CairnError(f"git {' '.join(args[:2])} failed: {out.stderr.strip()[:200]}")
    return out.stdout


def mine_cases(
    repo: Path, *, limit: int = 40, scan_commits: int = 400, name: str = "", skipped: Counter | None = None
) -> list[Case]:
    """Up to `limit` cases from the newest `scan_commits` first-parent, non-merge commits; with
    `skipped`, counts why each other commit examined gave no case (what `eval cases` reports)."""
    why: Counter = skipped if skipped is not None else Counter()
    log = _git(
        repo,
        "log",
        "--first-parent",
        "--no-merges",
        f"-n{scan_commits}",
        "--name-status",
        "--format=%x00%H%x1f%P%x1f%an%x1f%ad%x1f%s",
        "--date=short",
    )
    cases: list[Case] = []
    seen_queries: set[str] = set()
    for block in log.split("\x00")[1:]:
        head, _, body = block.partition("\n")
        sha, parents, author, date, subject = (head.split("\x1f") + [""] * 5)[:5]
        why["examined"] += 1
        if not parents or "[bot]" in author or "bot@" in author.lower():
            why["the first commit or a bot's"] += 1
            continue
        query = clean_subject(subject)
        if not query or query.lower() in seen_queries:
            why["a chore, short or repeated subject"] += 1
            continue
        modified, added_deleted = [], 0
        for line in body.splitlines():
            parts = line.split("\t")
            if len(parts) < 2:
                continue
            status, path = parts[0], parts[-1]
            if not is_source(path):
                continue
            if status.startswith("M"):
                modified.append(path)
            else:
                added_deleted += 1
        if not modified:
            why["modified no existing source file"] += 1
            continue
        if len(modified) > MAX_GOLD or added_deleted > MAX_ADDED_DELETED:
            why[f"touched more than {MAX_GOLD} source files or added/deleted files"] += 1
            continue
        if names_gold(query, modified):
            why["its subject names the file it changed"] += 1
            continue
        seen_queries.add(query.lower())
        cases.append(Case(name or repo.name, parents.split()[0], sha, query, sorted(modified), subject, date))
        if len(cases) >= limit:
            break
    return cases


def case_dicts(cases: list[Case]) -> list[dict]:
    return [asdict(c) for c in cases]
