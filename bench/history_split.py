#!/usr/bin/env python3
"""Where history's gain can come from: prompts before any file is in play against the later ones.

Reads a dump of bench/history_replay.py (any number of variants) and prints, per repository,
novel@5 without the past ("none") and with each variant, split into the prompts with no file in
play yet (where the request log speaks) and the later ones (files in play); then, for the later
prompts, a per-prompt oracle: novel@5 if each prompt took the better of the shipped ranking
(`--base`) and the variant, which bounds what any gate choosing between the two could give.

Usage: python bench/history_split.py rows.jsonl [--base '{}']
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump", type=Path)
    ap.add_argument("--base", default="{}", help="the shipped variant (default '{}')")
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.dump.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if "novel@5" in r]
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    repos = sorted({r["repo"] for r in rows})
    by: dict[tuple, dict[str, float]] = defaultdict(dict)
    for r in rows:
        by[(r["repo"], r["session"], r["prompt_index"], r["first"])][r["variant"]] = r["novel@5"]

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs) if xs else float("nan")

    print(
        "| repository | prompts with no file in play / later | "
        + " | ".join(f"`{v}` first / later" for v in variants)
        + " |"
    )
    print("|---|---|" + "---|" * len(variants))
    for repo in repos:
        keys = [k for k in by if k[0] == repo]
        first = [k for k in keys if k[3]]
        later = [k for k in keys if not k[3]]
        cells = [
            f"{mean([by[k][v] for k in first if v in by[k]]):.3f} / {mean([by[k][v] for k in later if v in by[k]]):.3f}"
            for v in variants
        ]
        print(f"| {repo.split('/')[-1]} | {len(first)} / {len(later)} | " + " | ".join(cells) + " |")
    print(f"\nlater prompts: `{args.base}`, and the better of it and each variant per prompt (an oracle gate)")
    for v in variants:
        if v in (args.base, "none"):
            continue
        parts = []
        for repo in repos:
            later = [k for k in by if k[0] == repo and not k[3] and args.base in by[k] and v in by[k]]
            base = mean([by[k][args.base] for k in later])
            best = mean([max(by[k][args.base], by[k][v]) for k in later])
            better = sum(by[k][v] > by[k][args.base] for k in later)
            worse = sum(by[k][v] < by[k][args.base] for k in later)
            parts.append(f"{repo.split('/')[-1]} {base:.3f} -> {best:.3f} (+{better} / -{worse} prompts)")
        print(f"  {v}: " + "; ".join(parts))


if __name__ == "__main__":
    main()
