#!/usr/bin/env python3
"""Where a session replay's files@5 is lost: read the rows `bench/session_replay.py --dump` wrote.

Per repository: gold files the session had already touched and how many of them the top 5 holds;
novel gold files (not touched yet), how many on a session's first prompt, how many the top 5 of the
ranking without touched files holds. Then files@5 (macro of the repositories) if at most m of the
top 5 may be touched files (the others taken in rank order from the top 10): whether the mix of
seen and new files is what costs.

Usage: python bench/replay_rows.py ROWS.jsonl [--variant '{}']
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict


def capped_top5(row: dict, m: int) -> list[str]:
    """The top 5 when at most `m` of its places may go to files the session touched."""
    touched, out, extra, n = set(row["touched"]), [], [], 0
    for path in row["ranked"]:
        if path in touched and n >= m:
            extra.append(path)
            continue
        n += path in touched
        out.append(path)
        if len(out) == 5:
            break
    return out + extra[: 5 - len(out)]


def files_at5(row: dict, top: list[str]) -> float:
    return sum(g in top for g in row["gold"]) / len(row["gold"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows")
    ap.add_argument("--variant", default="{}", help="which variant's rows (as given to session_replay.py)")
    a = ap.parse_args()
    with open(a.rows) as fh:
        rows = [r for r in map(json.loads, fh) if r.get("variant", "{}") == a.variant]
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        c, touched = counts[r["repo"]], set(r["touched"])
        top5 = r["ranked"][:5]
        new_top5 = [p for p in r["ranked"] if p not in touched][:5]
        for g in r["gold"]:
            key = "touched" if g in touched else "novel"
            c[key] += 1
            c[key + " found"] += g in (top5 if key == "touched" else new_top5)
            if key == "novel" and not touched:
                c["novel, first prompt"] += 1
    for repo, c in sorted(counts.items()):
        print(
            f"{repo}: touched gold {c['touched found']}/{c['touched']} in the top 5; novel gold "
            f"{c['novel found']}/{c['novel']} (first prompts: {c['novel, first prompt']})"
        )
    for m in (0, 1, 2, 3, 5):
        by_repo: dict[str, list[float]] = defaultdict(list)
        for r in rows:
            by_repo[r["repo"]].append(files_at5(r, capped_top5(r, m)))
        macro = sum(sum(v) / len(v) for v in by_repo.values()) / len(by_repo)
        print(f"at most {m} touched files in the top 5: files@5 {macro:.3f}")


if __name__ == "__main__":
    main()
