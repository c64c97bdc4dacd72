#!/usr/bin/env python3
"""Leave-one-repository-out choice among the variants of a bench/history_replay.py dump.

For each repository held out, the variant is chosen on the other repositories alone: the best
mean novel@5 among the variants with which none of them loses more than --max-loss files@5 or
novel@5 against "none" (the same code without history); then the held-out repository's figures
with that variant are reported beside its own "none". A weight is kept when every held-out
repository gains or loses at most --max-loss. `--base '{}'` judges the variants against the shipped
ranking with the past instead (a ranking change, not the past's own gain).

Usage: python bench/history_loo.py rows.jsonl [rows2.jsonl ...] [--only VARIANT ...] [--max-loss 0.01]
       [--base VARIANT]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def load(paths: list[Path]) -> dict[tuple[str, str], dict[str, float]]:
    """(variant, repo) -> files@5, novel@5, early/late of each, cases."""
    rows = defaultdict(list)
    for p in paths:
        for line in p.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                rows[(r["variant"], r["repo"])].append(r)

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs) if xs else float("nan")

    out = {}
    for key, rs in rows.items():
        m = {
            "cases": len(rs),
            "files@5": mean([r["files@5"] for r in rs]),
            "novel@5": mean([r["novel@5"] for r in rs if "novel@5" in r]),
        }
        for part, early in (("early", True), ("late", False)):
            sub = [r for r in rs if r["early"] == early]
            m[f"{part} files@5"] = mean([r["files@5"] for r in sub])
            m[f"{part} novel@5"] = mean([r["novel@5"] for r in sub if "novel@5" in r])
        out[key] = m
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dumps", nargs="+", type=Path)
    ap.add_argument("--only", nargs="*", help="choose among these variants only (default: all in the dumps)")
    ap.add_argument("--max-loss", type=float, default=0.01)
    ap.add_argument("--base", default="none", help="the variant every other is judged against (default: none)")
    args = ap.parse_args()
    base = args.base
    m = load(args.dumps)
    repos = sorted({r for _, r in m})
    variants = [
        v for v in dict.fromkeys(v for v, _ in m) if v not in ("none", base) and (not args.only or v in args.only)
    ]
    print(
        f"| held out | chosen on the other three | their novel@5 gain | held-out files@5: {base} -> chosen | "
        f"held-out novel@5: {base} -> chosen |"
    )
    print("|---|---|---:|---|---|")
    for out in repos:
        dev = [r for r in repos if r != out]
        best, best_gain = None, float("-inf")
        for v in variants:
            if any((v, r) not in m for r in repos):
                continue
            losses = [
                min(m[(v, r)]["files@5"] - m[(base, r)]["files@5"], m[(v, r)]["novel@5"] - m[(base, r)]["novel@5"])
                for r in dev
            ]
            if min(losses) < -args.max_loss:
                continue
            gain = sum(m[(v, r)]["novel@5"] - m[(base, r)]["novel@5"] for r in dev) / len(dev)
            if gain > best_gain:
                best, best_gain = v, gain
        if best is None:
            print(f"| {out.split('/')[-1]} | (none qualifies) | | | |")
            continue
        a, b = m[(base, out)], m[(best, out)]
        print(
            f"| {out.split('/')[-1]} | `{best}` | {best_gain:+.3f} | {a['files@5']:.3f} -> {b['files@5']:.3f} "
            f"({b['files@5'] - a['files@5']:+.3f}) | {a['novel@5']:.3f} -> {b['novel@5']:.3f} "
            f"({b['novel@5'] - a['novel@5']:+.3f}) |"
        )
    print(f"\nevery variant, per repository (files@5 / novel@5; gain in novel@5 against {base}):")
    for v in dict.fromkeys(["none", base, *variants]):
        cells = []
        for r in repos:
            x = m.get((v, r))
            if x is None:
                cells.append("-")
                continue
            d = x["novel@5"] - m[(base, r)]["novel@5"]
            cells.append(f"{x['files@5']:.3f} / {x['novel@5']:.3f} ({d:+.3f})")
        print(f"  {v}: " + "; ".join(f"{r.split('/')[-1]} {c}" for r, c in zip(repos, cells, strict=True)))


if __name__ == "__main__":
    main()
