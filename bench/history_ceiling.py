#!/usr/bin/env python3
"""How much novel@5 the project's past could give at most: the ceiling of history on the dev sessions.

Reads a dump of bench/history_replay.py run with --keep (its rows with the past carry `reach`: the
prompt's novel gold files that any earlier session touched, and where the request log and session
co-access ranked them; a row without it had no earlier session). For each reach, novel@5 if every novel gold file it holds were put into the
top 5 ahead of everything else (the novel gold the search found in its top 5 stays found): an
oracle that ranks the past's evidence perfectly. Printed per repository and macro, beside the
variant's own novel@5 and that without the past.

Usage: python bench/history_ceiling.py rows.jsonl [--variant '{}']
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

REACHES = [
    ("any earlier session touched it", lambda r: set(r["ever"])),
    ("the request log, any rank", lambda r: {g for g, _ in r["asked"]}),
    ("the request log, its top 10", lambda r: {g for g, i in r["asked"] if i < 10}),
    ("co-access with the files in play, any rank", lambda r: {g for g, _ in r["together"]}),
    ("co-access, its top 10", lambda r: {g for g, i in r["together"] if i < 10}),
    (
        "request log or co-access, top 10",
        lambda r: {g for g, i in r["asked"] + r["together"] if i < 10},
    ),
]


def ceiling(row: dict, reached: set[str]) -> float:
    """novel@5 with the reached novel gold files ranked first (at most 5 fit)."""
    seen = set(row["seen"])
    novel = {g for g in row["gold"] if g not in seen}
    found = novel & set([p for p in row["top10"] if p not in seen][:5])
    return min(5, len(found | (novel & reached))) / len(novel)


def table(rows: list[dict], variant: str) -> list[str]:
    base = {(r["repo"], r["session"], r["prompt_index"]): r for r in rows if r["variant"] == "none"}
    by: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["variant"] != variant or "novel@5" not in r or "top10" not in r:
            continue
        reach = r.get("reach") or {"ever": [], "asked": [], "together": []}  # none: no earlier session yet
        b = base.get((r["repo"], r["session"], r["prompt_index"]))
        cells = by[r["repo"]]
        cells["without the past"].append(b["novel@5"] if b else float("nan"))
        cells[f"with the past ({variant})"].append(r["novel@5"])
        for name, of in REACHES:
            cells[f"ceiling: {name}"].append(ceiling(r, of(reach)))
    repos = sorted(by)
    if not repos:
        return ["no rows with `reach` (run history_replay.py with --keep)"]
    out = [
        "| novel@5 | " + " | ".join(r.split("/")[-1] for r in repos) + " | macro |",
        "|---|" + "---:|" * (len(repos) + 1),
    ]
    for name in by[repos[0]]:
        vals = [sum(by[r][name]) / len(by[r][name]) for r in repos]
        out.append(f"| {name} | " + " | ".join(f"{v:.3f}" for v in vals) + f" | {sum(vals) / len(vals):.3f} |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump", type=Path)
    ap.add_argument("--variant", default="{}")
    args = ap.parse_args()
    rows = [json.loads(x) for x in args.dump.read_text().splitlines() if x.strip()]
    print("\n".join(table(rows, args.variant)))


if __name__ == "__main__":
    main()
