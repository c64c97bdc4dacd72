"""Notes that disagree after a merge: two live decisions on one subject, a supersede chain that forks.

On one machine `remember` merges a fact into the live note on its subject and supersedes only the
live end of a chain, under the knowledge lock. Two people on two branches have no common lock:
each writes its own file (ids are content hashes, so the files never collide and git merges them
cleanly), and the disagreement only shows once the branches meet. This module finds it with the
same rule `remember` uses for "the same knowledge" (`similar.duplicate_of`'s scoring), so what a
single machine would have merged is what a merge reports:

- `same subject`: two or more live decisions (or gotchas) that `remember` would have merged;
- `forked supersede`: two or more notes `supersedes` the same note, or a note's `superseded_by`
  names one note while another also claims to replace it.

Each finding names the files a person reconciles (keep one, supersede the other).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from cairn.codemap.knowledge.graph import normalize_title
from cairn.codemap.knowledge.node import Node
from cairn.memory.similar import BODY_TITLE_FLOOR, TITLE_JACCARD, probe, tokens

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

SUBJECT_TYPES = ("decision", "gotcha")
COMMON_WORD = 200  # a title word in more notes than this names no subject by itself


def _finding(kind: str, nodes: list[Node], subject: str, at: str | None = None) -> dict[str, Any]:
    ordered = sorted(nodes, key=lambda n: n.path or n.id)
    return {
        "kind": kind,
        "subject": subject,
        "at": at,
        "ids": [n.id for n in ordered],
        "paths": [n.path or n.id for n in ordered],
    }


def same_subject(nodes: list[Node]) -> list[dict[str, Any]]:
    """Groups of live decisions/gotchas of one vault that `remember` would have merged into one.

    Pairs are scored only when they share a title word held by at most COMMON_WORD notes, or the
    same normalized title (words in hundreds of titles name no subject on their own), so a vault
    of thousands of decisions is checked in near-linear time.
    """
    live = [n for n in nodes if n.is_live and n.type in SUBJECT_TYPES and n.origin == "project"]
    by_key: dict[tuple[str, str], list[int]] = defaultdict(list)
    words = [tokens(n.title) for n in live]
    norms = [normalize_title(n.title) for n in live]
    for i, (node, ws) in enumerate(zip(live, words, strict=True)):
        by_key[(node.type, "=" + norms[i])].append(i)
        for w in ws:
            by_key[(node.type, w)].append(i)
    parent = list(range(len(live)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    floor = min(TITLE_JACCARD, BODY_TITLE_FLOOR)
    for i, node in enumerate(live):
        shared: Counter[int] = Counter()  # title words each later note shares with this one
        for w in words[i]:
            posting = by_key[(node.type, w)]
            if len(posting) <= COMMON_WORD:
                shared.update(j for j in posting if j > i)
        same = [j for j in by_key[(node.type, "=" + norms[i])] if j > i]
        # score's own first test (title overlap), from the counts: most pairs end here
        candidates = set(same) | {j for j, n in shared.items() if n / (len(words[i]) + len(words[j]) - n or 1) >= floor}
        if not candidates:
            continue
        scorer = probe(node.type, node.title, node.body, node.files or None)
        for j in sorted(candidates):
            if root(i) != root(j) and scorer.score(live[j]) > 0:
                parent[root(j)] = root(i)
    groups: dict[int, list[Node]] = defaultdict(list)
    for i, node in enumerate(live):
        groups[root(i)].append(node)
    out = [
        _finding("same subject", g, min(g, key=lambda n: n.path or n.id).title) for g in groups.values() if len(g) > 1
    ]
    return sorted(out, key=lambda f: f["paths"])


def forked_supersedes(nodes: list[Node]) -> list[dict[str, Any]]:
    """Notes replaced by more than one note (as written in the files, before any read-time repair)."""
    by_id = {n.id: n for n in nodes}
    claims: dict[str, dict[str, Node]] = defaultdict(dict)
    for node in nodes:
        if node.supersedes:
            claims[node.supersedes][node.id] = node
    for node in nodes:  # an old note's own superseded_by is one more claim on it
        if node.superseded_by and node.superseded_by in by_id:
            claims[node.id].setdefault(node.superseded_by, by_id[node.superseded_by])
    out = []
    for old_id, replacing in claims.items():
        if len(replacing) < 2:
            continue
        old = by_id.get(old_id)
        group = ([old] if old is not None else []) + list(replacing.values())
        out.append(_finding("forked supersede", group, old.title if old is not None else old_id, old_id))
    return sorted(out, key=lambda f: f["paths"])


def disagreements(nodes: list[Node]) -> list[dict[str, Any]]:
    """Every finding of this module: {kind, subject, ids, paths}."""
    return same_subject(nodes) + forked_supersedes(nodes)


def describe(finding: dict[str, Any]) -> str:
    """One line for a person: what disagrees and which files to reconcile."""
    files = ", ".join(finding["paths"])
    if finding["kind"] == "same subject":
        return (
            f"disagree: {len(finding['paths'])} live notes on one subject ({finding['subject']!r}): {files}: "
            "keep one (`cairn remember ... --supersedes ID`) or merge them by hand"
        )
    return (
        f"disagree: supersede chain forks at {finding['at']!r} ({finding['subject']!r}): {files}: "
        "keep one replacement, supersede the other"
    )
